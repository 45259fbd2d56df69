// Helpers for the e2e tests: objects created through the API of the server Playwright started.
import { expect, type APIRequestContext, type Page } from '@playwright/test';

export async function createNamespace(request: APIRequestContext, name: string): Promise<void> {
  const r = await request.post('/api/v1/namespaces', { data: { metadata: { name } } });
  if (r.status() !== 201 && r.status() !== 409) throw new Error(`namespace ${name}: ${r.status()} ${await r.text()}`);
}

export async function createConfigMap(request: APIRequestContext, ns: string, name: string, data: Record<string, string> = {}): Promise<void> {
  const r = await request.post(`/api/v1/namespaces/${ns}/configmaps`, { data: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data } });
  if (r.status() !== 201) throw new Error(`configmap ${ns}/${name}: ${r.status()} ${await r.text()}`);
}

/** n configmaps named prefix-0000.., created concurrently. */
export async function createConfigMaps(request: APIRequestContext, ns: string, n: number, prefix = 'cm', concurrency = 32): Promise<void> {
  const width = String(n - 1).length;
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await createConfigMap(request, ns, `${prefix}-${String(i).padStart(width, '0')}`, { index: String(i) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/${name}.png` });
}

/** Scrolls the collection table's body by a number of pixels. */
export async function scrollTable(page: Page, dy: number): Promise<void> {
  await page.locator('.vbody').evaluate((el, d) => el.scrollBy(0, d), dy);
}

/** The e2e server runs controllers: a new Deployment's status moves until its pods are available. */
export async function settledDeployment(request: APIRequestContext, path: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const r = await request.get(path);
        const d = r.status() === 200 ? await r.json() : undefined;
        return d !== undefined && d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === d.spec.replicas;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
}
