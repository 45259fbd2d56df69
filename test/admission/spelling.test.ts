// Admission decisions do not depend on the group's spelling: webhooks and ValidatingAdmissionPolicies see
// upstream's `*.k8s.io` spelling (kind, resource, the objects' apiVersion, the review itself) whether the request
// used `rbac.authorization.k8s.io` or `rbac.authorization.service.io`; a webhook's patch applies to that form and
// responses keep the request's spelling.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { reviewRequest } from '../../src/server/admission/webhooks.js';
import { GROUP_ALIASES } from '../../src/server/registry/names.js';
import { AR, allow, deny, hook, patch, WebhookServer, useWebhookFixture, type WebhookFixture } from '../helpers/webhook.js';

const f = useWebhookFixture();
let api: ApiServer;
let c: WebhookFixture['c'];
let wh: WebhookServer;
let caBundle: string;
beforeAll(() => {
  ({ api, c, wh, caBundle } = f);
});
let n = 0;
const SPELLINGS = ['rbac.authorization.k8s.io', 'rbac.authorization.service.io'] as const;
const UP = 'rbac.authorization.k8s.io';
const roles = (g: string) => `/apis/${g}/v1/namespaces/default/roles`;
const role = (g: string, name: string) => ({ apiVersion: `${g}/v1`, kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
const roleRules = (apiGroup: string) => [{ operations: ['CREATE', 'UPDATE'], apiGroups: [apiGroup], apiVersions: ['v1'], resources: ['roles'] }];

describe('admission webhooks see one spelling', () => {
  it('kind, resource, object and oldObject are in upstream spelling for a request in either spelling', async () => {
    for (const ruleGroup of SPELLINGS) {
      await c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'see' }, webhooks: [hook('see.example.com', wh.url('/see'), caBundle, { rules: roleRules(ruleGroup) })] });
      for (const g of SPELLINGS) {
        wh.received.length = 0;
        const name = `r-${++n}`;
        const created = await c.post(roles(g), role(g, name));
        expect(created.status).toBe(201);
        expect(created.body.apiVersion).toBe(`${g}/v1`);
        const upd = await c.put(`${roles(g)}/${name}`, { ...created.body, metadata: { ...created.body.metadata, labels: { x: 'y' } } });
        expect(upd.status).toBe(200);
        expect(upd.body.apiVersion).toBe(`${g}/v1`);
        const reviews = wh.reviewsFor('/see');
        expect(reviews).toHaveLength(2);
        for (const r of reviews) {
          expect(r.apiVersion).toBe('admission.k8s.io/v1');
          expect(r.request.kind).toEqual({ group: UP, version: 'v1', kind: 'Role' });
          expect(r.request.resource).toEqual({ group: UP, version: 'v1', resource: 'roles' });
          expect(r.request.requestKind.group).toBe(UP);
          expect(r.request.requestResource.group).toBe(UP);
          expect(r.request.object.apiVersion).toBe(`${UP}/v1`);
        }
        expect(reviews[1].request.oldObject.apiVersion).toBe(`${UP}/v1`);
      }
      await c.del(`${AR}/validatingwebhookconfigurations/see`);
    }
  });

  it('a webhook denying by the upstream group denies both spellings', async () => {
    await c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'deny-rbac' }, webhooks: [hook('deny.example.com', wh.url('/deny'), caBundle, { rules: roleRules('*') })] });
    // a policy engine written against upstream: it allows everything it does not recognise
    wh.reply = (r) => (r.request.kind.group === UP && r.request.object.apiVersion === `${UP}/v1` ? deny(r, { code: 403, message: 'no roles' }) : allow(r));
    for (const g of SPELLINGS) {
      const r = await c.post(roles(g), role(g, `d-${++n}`));
      expect(r.status).toBe(403);
      expect(r.body.message).toContain('no roles');
    }
  });

  it("a mutating webhook's patch applies to the upstream form; the response keeps the request's spelling", async () => {
    await c.post(`${AR}/mutatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'mut' }, webhooks: [hook('mut.example.com', wh.url('/mut'), caBundle, { rules: roleRules(UP) })] });
    wh.reply = (r) =>
      patch(r, [
        { op: 'test', path: '/apiVersion', value: `${UP}/v1` },
        { op: 'add', path: '/metadata/labels', value: { patched: 'yes' } },
      ]);
    for (const g of SPELLINGS) {
      const r = await c.post(roles(g), role(g, `m-${++n}`));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.apiVersion).toBe(`${g}/v1`);
      expect(r.body.metadata.labels).toEqual({ patched: 'yes' });
    }
  });
});

describe('ValidatingAdmissionPolicy sees one spelling', () => {
  it('match rules, object.apiVersion and request.kind.group decide the same for both spellings', async () => {
    const p = await c.post(`${AR}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'roles' },
      spec: {
        matchConstraints: { resourceRules: roleRules(UP) },
        validations: [
          { expression: `object.apiVersion == '${UP}/v1'`, message: 'apiVersion' },
          { expression: `request.kind.group == '${UP}' && request.resource.group == '${UP}'`, message: 'group' },
          { expression: "!object.metadata.name.startsWith('bad-')", message: 'bad name' },
        ],
      },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const b = await c.post(`${AR}/validatingadmissionpolicybindings`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'roles' }, spec: { policyName: 'roles', validationActions: ['Deny'] } });
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    for (const g of SPELLINGS) {
      const good = await c.post(roles(g), role(g, `ok-${++n}`));
      expect(good.status, JSON.stringify(good.body)).toBe(201);
      const bad = await c.post(roles(g), role(g, `bad-${++n}`));
      expect(bad.status).toBe(422);
      expect(bad.body.message).toContain('bad name');
    }
  });
});

describe('every aliased group', () => {
  it('reaches webhooks and policies in upstream spelling, for every resource of the group', () => {
    const types = api.types.all();
    let seen = 0;
    for (const [up, canon] of Object.entries(GROUP_ALIASES)) {
      for (const type of types.filter((t) => t.group === canon)) {
        seen++;
        const object = { apiVersion: `${canon}/${type.version}`, kind: type.kind, metadata: { name: 'x' } };
        const req = reviewRequest({ operation: 'UPDATE', type, namespace: '', name: 'x', subresource: '', object, oldObject: object, dryRun: false, user: 'u' }, 'uid');
        expect(req.kind).toMatchObject({ group: up, kind: type.kind });
        expect(req.resource).toMatchObject({ group: up, resource: type.plural });
        expect((req.object as any).apiVersion).toBe(`${up}/${type.version}`);
        expect((req.oldObject as any).apiVersion).toBe(`${up}/${type.version}`);
        // the attributes' own object is not changed
        expect(object.apiVersion).toBe(`${canon}/${type.version}`);
      }
    }
    expect(seen).toBeGreaterThan(20);
  });
});
