// Operating with the explorer as a person does (mouse and keyboard, typing at ~100 ms/key): scaling
// through a dry-run diff, draining a node a PodDisruptionBudget partly refuses, reading a crash-looping
// pod's containers, and the displays that used to be wrong.
import { expect, test, type APIRequestContext } from './fixtures.js';
import { createNamespace, settledDeployment, shot } from './helpers.js';

async function createDeployment(request: APIRequestContext, ns: string, name: string, replicas: number): Promise<void> {
  const r = await request.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    data: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    },
  });
  expect(r.status(), await r.text()).toBe(201);
}

test('scale a Deployment 3 → 0 → 3 through the dry-run diff', async ({ page, request }) => {
  const ns = 'e2e-scale';
  await createNamespace(request, ns);
  await createDeployment(request, ns, 'web', 3);
  await settledDeployment(request, `/apis/apps/v1/namespaces/${ns}/deployments/web`);

  await page.goto(`/r/apps/v1/deployments?ns=${ns}`);
  await page.getByTestId('text-filter').pressSequentially('web', { delay: 100 });
  await page.getByRole('gridcell', { name: 'web' }).first().click();
  await expect(page.getByTestId('bar-available')).toContainText('3', { timeout: 20_000 });

  await page.getByTestId('action-scale').click();
  const input = page.getByTestId('scale-replicas');
  await input.fill('');
  await input.pressSequentially('0', { delay: 100 });
  await page.getByTestId('scale-review').click();
  const dialog = page.getByTestId('action-dialog');
  await expect(dialog.getByTestId('action-request')).toContainText('PATCH /apis/apps/v1/namespaces/e2e-scale/deployments/web?dryRun=All');
  await expect(dialog.getByTestId('action-diff')).toContainText('replicas: 0', { timeout: 20_000 });
  await shot(page, 'scale-dry-run');
  await dialog.getByTestId('action-confirm').click();
  await expect(page.getByTestId('toast-ok')).toContainText('Scale to 0');
  await expect(page.getByTestId('workload-pod')).toHaveCount(0, { timeout: 20_000 });

  // back to three with the keyboard: s opens the scale prompt
  await page.getByTestId('object-title').click();
  await page.keyboard.press('s');
  await page.getByTestId('scale-replicas').fill('');
  await page.getByTestId('scale-replicas').pressSequentially('3', { delay: 100 });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('action-diff')).toContainText('replicas: 3', { timeout: 20_000 });
  await page.getByTestId('action-confirm').click();
  await expect(page.getByTestId('bar-available')).toContainText('3', { timeout: 30_000 });
  await expect(page.getByTestId('workload-pod')).toHaveCount(3);
  const d = await (await request.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).json();
  expect(d.metadata.managedFields.some((m: { manager: string }) => m.manager === 'periscope')).toBe(true);
});

test('scaling warns when a HorizontalPodAutoscaler sets the replicas', async ({ page, request }) => {
  const ns = 'e2e-scale-hpa';
  await createNamespace(request, ns);
  await createDeployment(request, ns, 'auto', 1);
  const hpa = await request.post(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, {
    data: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'auto' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'auto' }, minReplicas: 1, maxReplicas: 5 } },
  });
  expect(hpa.status(), await hpa.text()).toBe(201);
  await page.goto(`/r/apps/v1/deployments/${ns}/auto/summary`);
  await page.getByTestId('action-scale').click();
  await expect(page.getByTestId('scale-hpa-warning')).toContainText('HorizontalPodAutoscaler auto (min 1, max 5)');
  await request.delete(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/auto`);
});

test('rollout restart stamps the pod template and rolls the pods', async ({ page, request }) => {
  const ns = 'e2e-restart';
  await createNamespace(request, ns);
  await createDeployment(request, ns, 'api', 1);
  await settledDeployment(request, `/apis/apps/v1/namespaces/${ns}/deployments/api`);
  await page.goto(`/r/apps/v1/deployments/${ns}/api/summary`);
  await page.getByTestId('action-restart').click();
  await expect(page.getByTestId('action-diff')).toContainText('annotations:', { timeout: 20_000 });
  await expect(page.getByTestId('action-patch')).toContainText('"kubectl.kubernetes.io/restartedAt"');
  await page.getByTestId('action-confirm').click();
  await expect(page.getByTestId('toast-ok')).toContainText('Restart rollout');
  await expect(page.getByTestId('revision-2')).toContainText('active', { timeout: 30_000 });
});

test('drain a node: one pod evicted, one blocked by its PodDisruptionBudget', async ({ page, request }) => {
  const ns = 'e2e-drain';
  const node = 'e2e-drain-node';
  await createNamespace(request, ns);
  const n = await request.post('/api/v1/nodes', {
    data: { apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { 'kubernetes.io/hostname': node }, annotations: { 'node.periscope.dev/simulated': 'true' } }, status: { addresses: [{ type: 'InternalIP', address: '10.250.0.9' }, { type: 'Hostname', address: node }] } },
  });
  expect([201, 409]).toContain(n.status());
  for (const app of ['free', 'guarded']) {
    const p = await request.post(`/api/v1/namespaces/${ns}/pods`, {
      data: { apiVersion: 'v1', kind: 'Pod', metadata: { name: app, labels: { app } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox:1.36' }] } },
    });
    expect(p.status(), await p.text()).toBe(201);
  }
  const pdb = await request.post(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
    data: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } },
  });
  expect(pdb.status(), await pdb.text()).toBe(201);
  // the budget's controller has counted the healthy pod
  await expect
    .poll(async () => (await (await request.get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/guarded`)).json()).status?.currentHealthy, { timeout: 20_000 })
    .toBe(1);

  await page.goto(`/r/core/v1/nodes/_/${node}/summary`);
  await page.getByTestId('action-drain').click();
  const dialog = page.getByTestId('drain-dialog');
  await expect(dialog.getByTestId('drain-pod')).toHaveCount(2);
  await dialog.getByTestId('drain-confirm').click();
  await expect(dialog.getByTestId('drain-progress')).toContainText('1 of 2 evicted, 1 blocked', { timeout: 20_000 });
  await expect(dialog.locator('[data-state=blocked]')).toContainText(`${ns}/guarded`);
  await expect(dialog.locator('[data-state=blocked]')).toContainText(/disruption budget/i);
  await shot(page, 'drain-blocked');
  await expect(page.getByTestId('toast-bad')).toContainText('1 evicted, 1 blocked');
  await dialog.getByRole('button', { name: 'Close' }).click();
  // cordoned: the header now offers uncordon
  await expect(page.getByTestId('action-uncordon')).toBeVisible();
  await page.getByTestId('action-uncordon').click();
  await expect(page.getByTestId('action-diff')).toContainText('unschedulable', { timeout: 20_000 });
  await page.getByTestId('action-confirm').click();
  await expect(page.getByTestId('action-cordon')).toBeVisible({ timeout: 20_000 });
  await request.delete(`/api/v1/nodes/${node}`);
});

test('a crash-looping pod: containers show state, last state with exit code, and the node links', async ({ page }) => {
  await page.goto('/');
  const warnings = page.getByTestId('recent-warnings');
  await expect(warnings.getByTestId('warning-row').filter({ hasText: 'BackOff' }).first()).toBeVisible({ timeout: 20_000 });
  await warnings.getByTestId('warning-row').filter({ hasText: 'Back-off restarting failed container checkout' }).first().getByRole('link').click();
  await page.getByTestId('tab-summary').click();
  const container = page.getByTestId('container-checkout');
  await expect(container.getByTestId('container-state')).toContainText(/Waiting: CrashLoopBackOff|Running|Terminated/, { timeout: 20_000 });
  await expect(container.getByTestId('container-last-state')).toContainText('Terminated: Error (exit code 1)', { timeout: 30_000 });
  await expect(container.getByTestId('container-restarts')).not.toHaveText('0');
  await expect(container).toHaveAttribute('data-role', 'container');
  await shot(page, 'pod-containers');
  await page.getByTestId('node-link').click();
  await expect(page).toHaveURL(/\/r\/core\/v1\/nodes\/_\/[^/]+\/summary/);
  // a healthy node's pressure conditions (False) read as healthy, not red
  await expect(page.getByTestId('condition-MemoryPressure')).toHaveClass(/cond-ok/, { timeout: 20_000 });
  await expect(page.getByTestId('condition-Ready')).toHaveClass(/cond-ok/);
});

test('deleting a ReplicaSet-owned pod says it will be recreated, then shows the list with the replacement', async ({ page, request }) => {
  const ns = 'e2e-delete-owned';
  await createNamespace(request, ns);
  await createDeployment(request, ns, 'solo', 1);
  await settledDeployment(request, `/apis/apps/v1/namespaces/${ns}/deployments/solo`);
  const pods = (await (await request.get(`/api/v1/namespaces/${ns}/pods`)).json()).items;
  const old = pods[0].metadata.name as string;

  await page.goto(`/r/core/v1/pods?ns=${ns}`);
  await page.getByRole('gridcell', { name: old }).click();
  await page.getByTestId('delete-button').click();
  const dialog = page.getByTestId('delete-dialog');
  await expect(dialog.getByTestId('delete-recreated-by')).toContainText(/ReplicaSet solo-[a-z0-9]+ owns this Pod: it will create a replacement/);
  await dialog.getByTestId('delete-confirm').click();
  await expect(page).toHaveURL(new RegExp(`/r/core/v1/pods\\?ns=${ns}$`));
  // the replacement appears in the list
  await expect(page.getByRole('gridcell', { name: /solo-/ }).filter({ hasNotText: old }).first()).toBeVisible({ timeout: 20_000 });
});

test('a Secret is masked until revealed, per key', async ({ page, request }) => {
  const ns = 'e2e-secret';
  await createNamespace(request, ns);
  const r = await request.post(`/api/v1/namespaces/${ns}/secrets`, { data: { metadata: { name: 'creds' }, stringData: { password: 's3cret-é', user: 'admin' } } });
  expect(r.status(), await r.text()).toBe(201);
  await page.goto(`/r/core/v1/secrets?ns=${ns}`);
  await page.getByRole('gridcell', { name: 'creds' }).click();
  const pw = page.getByTestId('secret-key-password');
  await expect(pw.getByTestId('secret-value')).toContainText('••••');
  await expect(page.getByTestId('secret-data')).not.toContainText('s3cret');
  await pw.getByTestId('secret-reveal').click();
  await expect(pw.getByTestId('secret-value')).toHaveText('s3cret-é');
  await expect(page.getByTestId('secret-key-user').getByTestId('secret-value')).toContainText('••••');
});

test('bulk delete from a list: pick with Space and the row box, dry run per object, then delete', async ({ page, request }) => {
  const ns = 'e2e-bulk';
  await createNamespace(request, ns);
  for (const name of ['bulk-a', 'bulk-b', 'bulk-c']) {
    const r = await request.post(`/api/v1/namespaces/${ns}/configmaps`, { data: { metadata: { name } } });
    expect(r.status()).toBe(201);
  }
  await page.goto(`/r/core/v1/configmaps?ns=${ns}`);
  await page.getByTestId('text-filter').pressSequentially('bulk', { delay: 100 });
  const grid = page.getByTestId('resource-table');
  await expect(grid.locator('.vrow')).toHaveCount(3);
  await grid.focus();
  await page.keyboard.press('Space'); // the first row
  await grid.locator('.vrow').nth(1).getByTestId('row-check').check();
  await expect(grid.locator('.vrow[data-checked=true]')).toHaveCount(2);
  await page.getByTestId('bulk-delete').click();
  const dialog = page.getByTestId('bulk-delete-dialog');
  await expect(dialog.locator('[data-state=ok]')).toHaveCount(2);
  await dialog.getByTestId('bulk-delete-confirm').click();
  await expect(page.getByTestId('toast-ok')).toContainText('Deleted 2 of 2 configmaps');
  await expect(grid.locator('.vrow')).toHaveCount(1);
  await expect(grid.locator('.vrow')).toContainText('bulk-c');
});
