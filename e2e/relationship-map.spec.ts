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
  expect(r.status()).toBe(201);
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
