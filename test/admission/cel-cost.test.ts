// Issue 27 item 8: CEL runs under upstream's runtime cost limits everywhere. The reported attack — a policy with a
// cubic expression and one ConfigMap with 500 keys froze the server — is cancelled at the per-call limit; the
// failure policy decides; /readyz is answered while a costly policy is evaluated. The same limits cut webhook
// matchConditions and CRD rules.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { eventually } from '../deletion/support.js';
import { AR, hook, WebhookServer, useWebhookFixture, type WebhookFixture } from '../helpers/webhook.js';

const f = useWebhookFixture();
let api: ApiServer;
let c: WebhookFixture['c'];
let wh: WebhookServer;
let caBundle: string;
beforeAll(() => {
  ({ api, c, wh, caBundle } = f);
});

const CUBIC = 'object.data.all(a, object.data.all(b, object.data.all(c, a != "" && b != "" && c != "")))';
let n = 0;
function configMap(keys: number) {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[`key-${i}`] = `value-${i}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${++n}` }, data };
}
const cmRules = { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };

async function policy(name: string, failurePolicy: string, validations: unknown[]) {
  const p = await c.post(`${AR}/validatingadmissionpolicies`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy, matchConstraints: cmRules, validations } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const b = await c.post(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${name}-binding` }, spec: { policyName: name, validationActions: ['Deny'] } });
  expect(b.status, JSON.stringify(b.body)).toBe(201);
}

/** Waits until the policy is in effect (policies reach admission through the watch cache): its probe is denied. */
async function enforced(name: string) {
  const probe = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } };
  await eventually(async () => expect((await c.post('/api/v1/namespaces/default/configmaps', probe)).status).toBe(422));
}

describe('ValidatingAdmissionPolicy under the runtime cost limit', () => {
  it('failurePolicy Fail: the cubic expression over 500 keys is cancelled and denied with upstream\'s message', async () => {
    await policy('cubic-fail', 'Fail', [{ expression: 'object.metadata.name != "denied-by-fail-policy"' }, { expression: CUBIC }]);
    await enforced('denied-by-fail-policy');
    const r = await c.post('/api/v1/namespaces/default/configmaps', configMap(500));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.kind).toBe('Status');
    expect(r.body.message).toContain("ValidatingAdmissionPolicy 'cubic-fail' with binding 'cubic-fail-binding' denied request");
    expect(r.body.message).toContain(`resulted in error: operation cancelled: actual cost limit exceeded`);
    // a small ConfigMap passes: the limit cuts cost, not the expression
    expect((await c.post('/api/v1/namespaces/default/configmaps', configMap(5))).status).toBe(201);
  });

  it('failurePolicy Ignore: the same evaluation error admits', async () => {
    await policy('cubic-ignore', 'Ignore', [{ expression: CUBIC }, { expression: 'object.metadata.name != "denied-by-ignore-policy"' }]);
    await enforced('denied-by-ignore-policy');
    const r = await c.post('/api/v1/namespaces/default/configmaps', configMap(500));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('the policy\'s budget runs out over several costly validations: no further rules run, upstream\'s message', async () => {
    // each validation stays just under the per-call limit; sixteen of them exceed the 10^7 budget of the binding
    const quadratic = 'object.data.all(a, object.data.all(b, a != "" && b != ""))';
    await policy('budget', 'Fail', Array.from({ length: 16 }, () => ({ expression: quadratic })).concat([{ expression: 'object.metadata.name != "denied-by-budget-policy"' }]));
    await enforced('denied-by-budget-policy');
    const r = await c.post('/api/v1/namespaces/default/configmaps', configMap(300));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.message).toContain('validation failed due to running out of cost budget, no further validation rules will be run');
  });

  it('/readyz is answered while a costly policy is being evaluated', async () => {
    await policy('slow', 'Fail', Array.from({ length: 10 }, () => ({ expression: CUBIC })).concat([{ expression: 'object.metadata.name != "denied-by-slow-policy"' }]));
    await enforced('denied-by-slow-policy');
    const order: string[] = [];
    const write = fetch(`${api.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(configMap(500)) }).then(async (r) => {
      order.push('create');
      return r.status;
    });
    // asked once the create is on its way: the server is evaluating the policy (about a second of budget)
    await new Promise((r) => setTimeout(r, 100));
    const ready = fetch(`${api.url}/readyz`).then(async (r) => {
      order.push('readyz');
      return r.status;
    });
    expect(await ready).toBe(200);
    expect(await write).toBe(422);
    expect(order).toEqual(['readyz', 'create']);
  });
});

describe('webhook matchConditions under the runtime cost limit', () => {
  it('a costly condition is cancelled; failurePolicy Fail rejects without calling the webhook', async () => {
    const r = await c.post(`${AR}/validatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'costly' },
      webhooks: [hook('costly.example.com', wh.url('/costly'), caBundle, { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], matchConditions: [{ name: 'cubic', expression: CUBIC }] })],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    let got: { status: number; body: any } | undefined;
    await eventually(async () => {
      got = await c.post('/api/v1/namespaces/default/configmaps', configMap(500));
      expect(got.status).not.toBe(201);
    });
    expect(got!.body.message).toContain("expression 'cubic' resulted in error: operation cancelled: actual cost limit exceeded");
    expect(wh.reviewsFor('/costly')).toHaveLength(0);
  });
});

describe('CRD validation rules under the runtime cost limit', () => {
  it('a rule over a large list is cancelled at the per-call limit with upstream\'s message', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'lists.cost.example.com' },
      spec: {
        group: 'cost.example.com',
        scope: 'Namespaced',
        names: { plural: 'lists', singular: 'list', kind: 'List' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
            items: { type: 'array', maxItems: 1000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, a >= 0 || b >= 0))', message: 'negative pair' }] },
          } } } } },
        }],
      },
    };
    const r = await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const path = '/apis/cost.example.com/v1/namespaces/default/lists';
    await eventually(async () => expect((await c.get(path)).status).toBe(200));
    const small = await c.post(path, { apiVersion: 'cost.example.com/v1', kind: 'List', metadata: { name: 'small' }, spec: { items: [1, 2, 3] } });
    expect(small.status, JSON.stringify(small.body)).toBe(201);
    const big = await c.post(path, { apiVersion: 'cost.example.com/v1', kind: 'List', metadata: { name: 'big' }, spec: { items: Array.from({ length: 1000 }, (_, i) => i) } });
    expect(big.status, JSON.stringify(big.body)).toBe(422);
    expect(big.body.details.causes[0]).toMatchObject({ field: 'spec.items' });
    expect(big.body.details.causes[0].message).toContain("'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: negative pair");
  });

  it('the rules of one object share the 10^7 budget: past it no further rules run, upstream\'s message; /readyz answered meanwhile', async () => {
    const pairRule = (op: string) => ({ rule: `self.tags.all(x, self.tags.all(y, x ${op} y || x != y))` });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'fleets.cost.example.com' },
      spec: {
        group: 'cost.example.com',
        scope: 'Namespaced',
        names: { plural: 'fleets', singular: 'fleet', kind: 'Fleet' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
            items: { type: 'array', maxItems: 500, items: { type: 'object', properties: { tags: { type: 'array', maxItems: 36, items: { type: 'string', maxLength: 4 } } }, 'x-kubernetes-validations': [pairRule('=='), pairRule('<='), pairRule('>=')] } },
          } } } } },
        }],
      },
    };
    const r = await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const path = '/apis/cost.example.com/v1/namespaces/default/fleets';
    await eventually(async () => expect((await c.get(path)).status).toBe(200));
    const tags = Array.from({ length: 36 }, (_, i) => `t-${i}`);
    const fleet = (name: string, n: number) => ({ apiVersion: 'cost.example.com/v1', kind: 'Fleet', metadata: { name }, spec: { items: Array.from({ length: n }, () => ({ tags })) } });
    // each item's evaluations stay far under the per-call limit; 20 items fit the budget, 500 do not
    expect((await c.post(path, fleet('small', 20))).status).toBe(201);
    // the whole budget is spent on this write: /readyz is answered meanwhile
    const order: string[] = [];
    const write = c.post(path, fleet('big', 500)).then((r) => (order.push('create'), r));
    await new Promise((r) => setTimeout(r, 100));
    const ready = fetch(`${api.url}/readyz`).then((r) => (order.push('readyz'), r.status));
    expect(await ready).toBe(200);
    const big = await write;
    expect(order).toEqual(['readyz', 'create']);
    expect(big.status, JSON.stringify(big.body).slice(0, 500)).toBe(422);
    const causes = big.body.details.causes as { field: string; message: string }[];
    const out = causes.filter((x) => x.message.includes('validation failed due to running out of cost budget, no further validation rules will be run'));
    expect(out).toHaveLength(1);
    expect(out[0]!.field).toMatch(/^spec\.items\[\d+\]$/);
    expect(causes.at(-1)).toEqual(out[0]);
  });
});
