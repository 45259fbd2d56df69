// The overview (counts, problems first, warnings), global search, an object's history and its
// relationships, against the embedded server.
import { expect, test, type APIRequestContext } from './fixtures.js';
import { createConfigMap, createNamespace } from './helpers.js';

const NS = 'insights-e2e';

async function post(request: APIRequestContext, path: string, body: unknown, manager?: string): Promise<any> {
  const r = await request.post(`${path}${manager ? `?fieldManager=${manager}` : ''}`, { data: body });
  if (r.status() !== 201) throw new Error(`POST ${path}: ${r.status()} ${await r.text()}`);
  return r.json();
}

const pod = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
  // (again after a failed test restarts the worker: already there is fine)
  for (const n of ['a', 'b', 'c']) await request.post(`/api/v1/namespaces/${NS}/configmaps`, { data: { metadata: { name: `counted-${n}` } } });
});

test('overview: counts per kind, problems first, recent warnings, live', async ({ page, request }) => {
  await page.goto(`/?ns=${NS}`);
  const cm = page.locator('[data-testid=kind-count][data-kind=ConfigMap]');
  await expect(cm.getByTestId('count')).toHaveText('3');
  // the server runs a simulated kubelet: an image that cannot be pulled keeps the pod from ever being ready
  await post(request, `/api/v1/namespaces/${NS}/pods`, { ...pod('unready'), metadata: { name: 'unready', namespace: NS, annotations: { 'sim.periscope.dev/fail': 'image' } } });
  await expect(page.getByTestId('problems')).toContainText(`Pod ${NS}/unready`);
  await expect(page.getByTestId('problems')).toContainText('not ready');
  // its one pod exits 1 and the job controller fails the Job (backoffLimit 0)
  await post(request, `/apis/batch/v1/namespaces/${NS}/jobs`, {
    metadata: { name: 'broken' },
    spec: {
      backoffLimit: 0,
      template: { metadata: { annotations: { 'sim.periscope.dev/fail': 'exit' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });
  await expect(page.getByTestId('problems')).toContainText('failed: BackoffLimitExceeded', { timeout: 30_000 });
  await post(request, `/api/v1/namespaces/${NS}/events`, {
    metadata: { name: 'warn-1' },
    type: 'Warning',
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    involvedObject: { kind: 'Pod', name: 'unready', namespace: NS },
  });
  await expect(page.getByTestId('recent-warnings')).toContainText('BackOff');
  await createConfigMap(request, NS, 'counted-d');
  await expect(cm.getByTestId('count')).toHaveText('4', { timeout: 20_000 });
});

test('search: a name fragment or a label selector across kinds, keyboard driven', async ({ page, request }) => {
  await createConfigMap(request, NS, 'needle-config');
  await post(request, `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'needle-secret', labels: { team: 'haystack' } }, stringData: { k: 'v' } });
  await page.goto('/');
  await expect(page.getByTestId('server-version')).toContainText('v1.');
  await page.keyboard.press('s');
  await expect(page).toHaveURL(/\/search/);
  await expect(page.getByTestId('search-input')).toBeFocused();
  await page.keyboard.type('needle');
  await expect(page.getByTestId('search-hit')).toHaveCount(2);
  await expect(page.getByTestId('search-status')).toHaveAttribute('data-running', 'false');
  await expect(page.getByTestId('search-results')).toContainText('needle-config');
  await expect(page.getByTestId('search-results')).toContainText('needle-secret');
  await page.getByTestId('search-input').fill('team=haystack');
  await expect(page.getByTestId('search-hit')).toHaveCount(1);
  await expect(page.getByTestId('search-hit')).toContainText('needle-secret');
  await page.getByTestId('search-input').fill('needle');
  await expect(page.getByTestId('search-hit')).toHaveCount(2);
  await page.getByTestId('search-input').press('ArrowDown');
  const second = await page.getByTestId('search-hit').nth(1).innerText();
  await page.getByTestId('search-input').press('Enter');
  await expect(page.getByTestId('object-title')).toContainText(second.includes('secret') ? 'needle-secret' : 'needle-config');
});

test('history: an object edited three times shows three diffs with who made each', async ({ page, request }) => {
  const path = `/api/v1/namespaces/${NS}/configmaps`;
  await post(request, path, { metadata: { name: 'storied' }, data: { step: '0' } }, 'creator');
  for (const [i, manager] of ['alice', 'bob', 'carol'].entries()) {
    const r = await request.patch(`${path}/storied?fieldManager=${manager}`, { data: { data: { step: String(i + 1) } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status()).toBe(200);
  }
  await page.goto(`/r/core/v1/configmaps/${NS}/storied/history`);
  const entries = page.getByTestId('timeline-entry');
  await expect(entries).toHaveCount(4);
  await expect(page.locator('[data-testid=timeline-entry][data-type=MODIFIED]')).toHaveCount(3);
  // newest first: carol changed step 2 → 3
  await expect(entries.nth(0).getByTestId('timeline-author')).toContainText('carol');
  await expect(entries.nth(0).getByTestId('timeline-diff')).toContainText('- step: "2"');
  await expect(entries.nth(0).getByTestId('timeline-diff')).toContainText('+ step: "3"');
  await expect(entries.nth(2).getByTestId('timeline-author')).toContainText('alice');
  await expect(entries.nth(3)).toHaveAttribute('data-type', 'ADDED');
  await expect(entries.nth(3).getByTestId('timeline-author')).toContainText('creator');
});

test('relationships: owners and dependents, pods using a configmap, as a graph and lists', async ({ page, request }) => {
  const parent = await post(request, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'parent' } });
  await post(request, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'child', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: parent.metadata.uid }] } });
  await post(request, `/api/v1/namespaces/${NS}/pods`, pod('consumer', { volumes: [{ name: 'cfg', configMap: { name: 'parent' } }] }));
  await page.goto(`/r/core/v1/configmaps/${NS}/parent/related`);
  await expect(page.getByTestId('related-dependent')).toContainText('ConfigMap/child');
  await expect(page.getByTestId('related-used-by')).toContainText('Pod/consumer');
  await expect(page.getByTestId('relations-graph')).toContainText('Pod/consumer');
  await page.getByTestId('related-used-by').getByRole('link', { name: 'Pod/consumer' }).click();
  await expect(page.getByTestId('object-title')).toContainText('consumer');
  await page.getByTestId('tab-related').click();
  await expect(page.getByTestId('related-uses')).toContainText('ConfigMap/parent');
  await expect(page.getByTestId('related-uses')).toContainText('ServiceAccount/default');
  await page.goto(`/r/core/v1/configmaps/${NS}/child/related`);
  await expect(page.getByTestId('related-owner')).toContainText('ConfigMap/parent');
});

test('history of a namespace: what changed in the last minutes, with who', async ({ page, request }) => {
  await post(request, `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'just-now' }, data: { a: '1' } }, 'recent-writer');
  await page.goto(`/r/core/v1/namespaces/_/${NS}/history`);
  const changes = page.getByTestId('namespace-change');
  await expect(changes.filter({ hasText: 'ConfigMap/just-now' })).toContainText('recent-writer');
  await expect(page.getByTestId('timeline-entry').first()).toBeVisible();
});
