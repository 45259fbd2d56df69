// The relationship map walked as a person would: from a Deployment to one of its Pods, to the Node it
// runs on, to the other pods on that Node; references that do not exist are marked; nothing twice.
import { expect, test } from './fixtures.js';
import { createNamespace, settledDeployment, shot } from './helpers.js';

const NS = 'map-e2e';

test.beforeAll(async ({ request }) => {
  await createNamespace(request, NS);
  // four replicas on the demo's three nodes: at least one node runs two of them
  const r = await request.post(`/apis/apps/v1/namespaces/${NS}/deployments`, {
    data: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'walker' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'walker' } },
        template: { metadata: { labels: { app: 'walker' } }, spec: { containers: [{ name: 'web', image: 'example/walker:1', envFrom: [{ configMapRef: { name: 'not-there' } }] }] } },
      },
    },
  });
  // 409 when a worker restarted after a failure runs this again
  expect([201, 409]).toContain(r.status());
  await request.post(`/api/v1/namespaces/${NS}/services`, { data: { metadata: { name: 'walker' }, spec: { selector: { app: 'walker' }, ports: [{ port: 80 }] } } });
  await settledDeployment(request, `/apis/apps/v1/namespaces/${NS}/deployments/walker`);
});

test('walk Deployment → Pod → Node → the other pods on that node in the map', async ({ page }) => {
  await page.goto(`/r/apps/v1/deployments/${NS}/walker/summary`);
  await page.getByTestId('tab-related').click();
  // two hops down: its ReplicaSet, the ReplicaSet's pods, the nodes they run on
  await expect(page.getByTestId('related-dependent')).toContainText('ReplicaSet/walker-');
  const pods = page.getByTestId('related-pods').getByRole('link');
  await expect(pods).toHaveCount(4, { timeout: 20_000 });
  await expect(page.getByTestId('related-runs-on')).toContainText('Node/');
  await expect(page.getByTestId('relations-graph').locator('[data-testid=graph-node][data-node^="Pod/walker-"]')).toHaveCount(4);
  await shot(page, 'map-deployment');

  // find a pod that shares its node with another: walk to it, then to its node
  const podNames = await pods.allInnerTexts();
  await pods.first().click();
  await expect(page.getByTestId('object-title')).toContainText(podNames[0]!.replace('Pod/', ''));
  await expect(page).toHaveURL(/\/pods\/map-e2e\/walker-[^/]+\/related/);
  await expect(page.getByTestId('related-owner')).toContainText('ReplicaSet/walker-');
  await expect(page.getByTestId('related-owners-owner')).toContainText('Deployment/walker');
  await expect(page.getByTestId('related-selected-by')).toContainText('Service/walker');
  // the ConfigMap it names does not exist: marked, not linked
  const missing = page.locator('[data-testid=related-item][data-missing=true]', { hasText: 'ConfigMap/not-there' });
  await expect(missing).toBeVisible();
  await expect(missing.getByRole('link')).toHaveCount(0);
  const node = page.getByTestId('related-runs-on').getByRole('link');
  await expect(node).toHaveCount(1);
  // keyboard: the list's links are reachable and ↓ moves between them
  await node.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/r\/core\/v1\/nodes\/_\/[^/]+\/related/);
  const onNode = page.getByTestId('related-runs');
  await expect(onNode).toContainText(podNames[0]!.replace('Pod/', ''));
  await expect(onNode.getByRole('link').nth(1)).toBeVisible();
  // no node twice
  const items = await page.getByTestId('related-item').allInnerTexts();
  const labels = items.map((t) => t.split(' ')[0]);
  expect(new Set(labels).size).toBe(labels.length);
  await shot(page, 'map-node');
});

test('a Service: its EndpointSlice once, the pods it serves; as a list only', async ({ page }) => {
  await page.goto(`/r/core/v1/services/${NS}/walker/related`);
  await expect(page.getByTestId('related-item').getByRole('link', { name: /^EndpointSlice\// })).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId('related-serves').getByRole('link')).toHaveCount(4);
  await page.getByTestId('related-as-list').check();
  await expect(page.getByTestId('relations-graph')).toHaveCount(0);
  await expect(page.getByTestId('related-serves')).toBeVisible();
});

/** Search a name typed at a person's pace, open the exact match (first, Enter), then its map. */
async function openMapOf(page: import('@playwright/test').Page, name: string, kind: string): Promise<void> {
  await page.goto('/');
  await page.getByTestId('nav-search').click();
  const input = page.getByTestId('search-input');
  await input.pressSequentially(name, { delay: 100 });
  await expect(page.getByTestId('search-status')).toHaveAttribute('data-running', 'false', { timeout: 30_000 });
  const first = page.getByTestId('search-hit').first();
  await expect(first).toHaveAttribute('data-kind', kind);
  await expect(first).toHaveAttribute('data-exact', 'true');
  await input.press('Enter');
  await expect(page.getByTestId('object-title')).toContainText(name);
  await page.getByTestId('tab-related').click();
}

test('an HPA leads to the workload it scales; a target that does not exist is marked', async ({ page, request }) => {
  // the autoscaler holds walker at the four replicas the other journeys count
  const hpa = (name: string, target: string) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, minReplicas: 4, maxReplicas: 4, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
  });
  expect((await request.post(`/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, { data: hpa('walker-autoscaler', 'walker') })).status()).toBe(201);
  expect((await request.post(`/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, { data: hpa('orphan-autoscaler', 'no-such-deployment') })).status()).toBe(201);

  await openMapOf(page, 'walker-autoscaler', 'HorizontalPodAutoscaler');
  const target = page.getByTestId('related-scales').getByRole('link', { name: 'Deployment/walker' });
  await expect(target).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('relations-graph').locator('[data-testid=graph-node][data-node="Deployment/walker"]')).toHaveCount(1);
  await shot(page, 'map-hpa');
  await target.click();
  await expect(page).toHaveURL(/\/r\/apps\/v1\/deployments\/map-e2e\/walker\/related/);
  await expect(page.getByTestId('related-pods').getByRole('link')).toHaveCount(4, { timeout: 20_000 });

  await openMapOf(page, 'orphan-autoscaler', 'HorizontalPodAutoscaler');
  const missing = page.locator('[data-testid=related-item][data-missing=true]', { hasText: 'Deployment/no-such-deployment' });
  await expect(missing).toBeVisible({ timeout: 20_000 });
  await expect(missing.getByRole('link')).toHaveCount(0);
});

test('an Ingress leads to its Services, one that does not exist marked; the Service on to its pods', async ({ page, request }) => {
  const backend = (service: string) => ({ service: { name: service, port: { number: 80 } } });
  const r = await request.post(`/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, {
    data: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'walker-entrance' },
      spec: {
        defaultBackend: backend('walker'),
        rules: [{ host: 'walker.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('walker') }, { path: '/old', pathType: 'Prefix', backend: backend('retired-service') }] } }],
      },
    },
  });
  expect(r.status()).toBe(201);

  await openMapOf(page, 'walker-entrance', 'Ingress');
  const routes = page.getByTestId('related-routes-to');
  // the Service named twice (default backend and a rule) is one node
  await expect(routes.getByRole('link', { name: 'Service/walker' })).toHaveCount(1, { timeout: 20_000 });
  const missing = routes.locator('[data-testid=related-item][data-missing=true]', { hasText: 'Service/retired-service' });
  await expect(missing).toBeVisible();
  await expect(missing.getByRole('link')).toHaveCount(0);
  await shot(page, 'map-ingress');
  await routes.getByRole('link', { name: 'Service/walker' }).click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/services\/map-e2e\/walker\/related/);
  await expect(page.getByTestId('related-serves').getByRole('link')).toHaveCount(4, { timeout: 20_000 });
});

test('a Pod leads to its claim, the claim to its volume, the volume to its StorageClass', async ({ page, request }) => {
  const sc = 'map-e2e-standard';
  const pv = 'map-e2e-volume';
  expect((await request.post('/apis/storage.k8s.io/v1/storageclasses', { data: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: sc }, provisioner: 'example.com/none', reclaimPolicy: 'Retain' } })).status()).toBe(201);
  expect(
    (
      await request.post('/api/v1/persistentvolumes', {
        data: { metadata: { name: pv }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: sc, persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: '/data/map-e2e' } } },
      })
    ).status(),
  ).toBe(201);
  expect(
    (
      await request.post(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
        data: { metadata: { name: 'walker-data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: sc, volumeName: pv, resources: { requests: { storage: '1Gi' } } } },
      })
    ).status(),
  ).toBe(201);
  expect(
    (
      await request.post(`/api/v1/namespaces/${NS}/pods`, {
        data: { metadata: { name: 'walker-reader' }, spec: { containers: [{ name: 'c', image: 'example/reader:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'walker-data' } }] } },
      })
    ).status(),
  ).toBe(201);

  await openMapOf(page, 'walker-reader', 'Pod');
  await expect(page.getByTestId('related-uses').getByRole('link', { name: 'PersistentVolumeClaim/walker-data' })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('related-volume').getByRole('link', { name: `PersistentVolume/${pv}` })).toBeVisible();
  const cls = page.getByTestId('related-storage-class').getByRole('link', { name: `StorageClass/${sc}` });
  await expect(cls).toBeVisible();
  // three hops out in the graph: claim, volume, class, each once
  for (const node of ['PersistentVolumeClaim/walker-data', `PersistentVolume/${pv}`, `StorageClass/${sc}`]) await expect(page.getByTestId('relations-graph').locator(`[data-testid=graph-node][data-node="${node}"]`)).toHaveCount(1);
  await shot(page, 'map-pod-storage');
  await cls.click();
  await expect(page).toHaveURL(new RegExp(`/storageclasses/_/${sc}/related`));
  await expect(page.getByTestId('object-title')).toContainText(sc);
});
