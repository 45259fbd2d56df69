// Webhook authorizers of an AuthorizationConfiguration against a real local HTTPS webhook: decisions,
// cache TTLs and switches, failure policies (errors, malformed answers, timeouts), CEL match conditions
// (64 of them, an erroring one), v1beta1 reviews, and reload keeping the last good configuration.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookConfiguration } from '../../src/config/types.js';
import type { Attributes } from '../../src/server/authz/attributes.js';
import { endpointFromKubeconfig, WebhookAuthorizer } from '../../src/server/authz/webhook.js';
import { authzServer, type AuthzFixture } from './support.js';
import { client } from '../helpers/server.js';

type Answer = { status?: number; body?: unknown; hang?: boolean };
let dir: string;
let hook: Server;
let answer: (review: any) => Answer;
const received: any[] = [];
let kubeconfigFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-authz-webhook-'));
  const cert = join(dir, 'hook.crt');
  const key = join(dir, 'hook.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  hook = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ review, auth: req.headers.authorization, path: req.url });
      const a = answer(review);
      if (a.hang) return; // never answers: the client's timeout must end it
      res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const port = (hook.address() as AddressInfo).port;
  kubeconfigFile = join(dir, 'webhook-kubeconfig.yaml');
  writeFileSync(
    kubeconfigFile,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: hook\n  cluster:\n    server: https://127.0.0.1:${port}/authorize\n    certificate-authority: ${cert}\nusers:\n- name: api\n  user:\n    token: hook-secret\ncontexts:\n- name: c\n  context: {cluster: hook, user: api}\ncurrent-context: c\n`,
  );
});
afterAll(async () => {
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  received.length = 0;
  answer = (r) => ({ body: { apiVersion: r.apiVersion, kind: 'SubjectAccessReview', status: { allowed: r.spec.user === 'alice' } } });
});

const reply = (r: any, status: Record<string, unknown>) => ({ body: { apiVersion: r.apiVersion, kind: 'SubjectAccessReview', status } });

function webhookConfig(over: Partial<WebhookConfiguration> = {}): WebhookConfiguration {
  return {
    authorizedTTL: '5m',
    unauthorizedTTL: '30s',
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    connectionInfo: { type: 'ServiceConfig', serviceConfigFile: kubeconfigFile },
    matchConditions: [],
    ...over,
  };
}

const attrs = (user: string, over: Partial<Attributes> = {}): Attributes => ({
  user: { name: user, uid: `u-${user}`, groups: ['g1', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
  verb: 'get',
  resourceRequest: true,
  path: '/api/v1/namespaces/team/pods/p',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'team',
  name: 'p',
  ...over,
});

function authorizer(over: Partial<WebhookConfiguration> = {}, clock = { t: 0 }) {
  return new WebhookAuthorizer({ name: 'hook', config: webhookConfig(over), endpoint: endpointFromKubeconfig(kubeconfigFile), now: () => clock.t });
}

describe('webhook authorizer', () => {
  it('POSTs a v1 SubjectAccessReview with the credentials of its kubeconfig and follows the answer', async () => {
    const w = authorizer();
    expect((await w.authorize(attrs('alice'))).decision).toBe('Allow');
    expect(received[0].path).toBe('/authorize');
    expect(received[0].auth).toBe('Bearer hook-secret');
    expect(received[0].review).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u-alice',
        groups: ['g1', 'system:authenticated'],
        extra: { scopes: ['a', 'b'] },
        // empty fields are left out, as upstream's omitempty
        resourceAttributes: { namespace: 'team', verb: 'get', version: 'v1', resource: 'pods', name: 'p' },
      },
    });
    expect((await w.authorize(attrs('bob'))).decision).toBe('NoOpinion');
    answer = (r) => reply(r, { allowed: false, denied: true, reason: 'bob is on leave' });
    expect(await w.authorize(attrs('carol'))).toMatchObject({ decision: 'Deny', reason: 'bob is on leave' });
    const nonRes = await w.authorize(attrs('alice', { resourceRequest: false, path: '/metrics', resource: '', namespace: '', name: '' }));
    expect(nonRes.decision).toBe('Deny');
    expect(received.at(-1).review.spec.nonResourceAttributes).toEqual({ path: '/metrics', verb: 'get' });
  });

  it('sends v1beta1 reviews (groups as "group") when configured', async () => {
    const w = authorizer({ subjectAccessReviewVersion: 'v1beta1' as 'v1' });
    expect((await w.authorize(attrs('alice'))).decision).toBe('Allow');
    expect(received[0].review.apiVersion).toBe('authorization.k8s.io/v1beta1');
    expect(received[0].review.spec.group).toEqual(['g1', 'system:authenticated']);
    expect(received[0].review.spec.groups).toBeUndefined();
  });

  it('caches allowed answers for authorizedTTL and the rest for unauthorizedTTL', async () => {
    const clock = { t: 1_000_000 };
    const w = authorizer({ authorizedTTL: '5m', unauthorizedTTL: '30s' }, clock);
    await w.authorize(attrs('alice'));
    await w.authorize(attrs('alice'));
    await w.authorize(attrs('bob'));
    await w.authorize(attrs('bob'));
    expect(w.calls).toBe(2);
    clock.t += 31_000; // past unauthorizedTTL, within authorizedTTL
    await w.authorize(attrs('alice'));
    await w.authorize(attrs('bob'));
    expect(w.calls).toBe(3);
    clock.t += 5 * 60_000;
    await w.authorize(attrs('alice'));
    expect(w.calls).toBe(4);
    // another attribute is another cache entry
    await w.authorize(attrs('alice', { verb: 'list', name: '' }));
    expect(w.calls).toBe(5);
  });

  it('honours the cache switches', async () => {
    const w = authorizer({ cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false });
    for (let i = 0; i < 3; i++) {
      await w.authorize(attrs('alice'));
      await w.authorize(attrs('bob'));
    }
    expect(w.calls).toBe(6);
  });

  it('applies the failure policy to errors, malformed answers and timeouts (and caches none of them)', async () => {
    const failures: [string, (r: any) => Answer][] = [
      ['HTTP 500', () => ({ status: 500, body: 'boom' })],
      ['not JSON', () => ({ body: '<html>' })],
      ['no status.allowed', (r) => reply(r, { reason: 'x' })],
      ['allowed and denied', (r) => reply(r, { allowed: true, denied: true })],
      ['wrong kind', (r) => ({ body: { apiVersion: r.apiVersion, kind: 'TokenReview', status: { allowed: true } } })],
      ['timeout', () => ({ hang: true })],
    ];
    for (const [what, a] of failures) {
      answer = a;
      const deny = authorizer({ failurePolicy: 'Deny', timeout: '300ms' });
      const r1 = await deny.authorize(attrs('alice'));
      expect(r1.decision, what).toBe('Deny');
      expect(r1.error, what).toBeTruthy();
      const noOpinion = authorizer({ failurePolicy: 'NoOpinion', timeout: '300ms' });
      expect((await noOpinion.authorize(attrs('alice'))).decision, what).toBe('NoOpinion');
      await deny.authorize(attrs('alice'));
      expect(deny.calls, what).toBe(2);
    }
  });

  it('calls only when every match condition holds; 64 conditions; an erroring one follows the failure policy', async () => {
    const many = Array.from({ length: 64 }, (_, i) => ({ expression: `request.user.size() > ${i % 3} || request.user == 'alice'` }));
    const w = authorizer({ matchConditions: many });
    expect((await w.authorize(attrs('alice'))).decision).toBe('Allow');
    expect(w.calls).toBe(1);
    const only = authorizer({ matchConditions: [{ expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team'" }] });
    expect((await only.authorize(attrs('alice', { namespace: 'other' }))).decision).toBe('NoOpinion');
    expect(only.calls).toBe(0);
    expect((await only.authorize(attrs('alice'))).decision).toBe('Allow');
    expect(only.calls).toBe(1);
    // nonResourceAttributes is absent for a resource request: evaluating it errors
    const erroring = [{ expression: "request.nonResourceAttributes.path == '/x'" }];
    const deny = authorizer({ matchConditions: erroring, failurePolicy: 'Deny' });
    const r = await deny.authorize(attrs('alice'));
    expect(r.decision).toBe('Deny');
    expect(r.error).toContain('match conditions');
    expect(deny.calls).toBe(0);
    expect((await authorizer({ matchConditions: erroring }).authorize(attrs('alice'))).decision).toBe('NoOpinion');
    // a false condition wins over an erroring one
    const mixed = authorizer({ matchConditions: [...erroring, { expression: "request.user == 'nobody'" }], failurePolicy: 'Deny' });
    expect((await mixed.authorize(attrs('alice'))).decision).toBe('NoOpinion');
  });

  it('a match condition past the CEL per-call cost limit is an error the failure policy decides; the webhook is not called', async () => {
    const cubic = [{ expression: "request.groups.all(a, request.groups.all(b, request.groups.all(c, a != '' && b != '' && c != '')))" }];
    const many = attrs('alice', { user: { name: 'alice', uid: 'u', groups: Array.from({ length: 200 }, (_, i) => `group-${i}`), extra: {} } });
    const deny = authorizer({ matchConditions: cubic, failurePolicy: 'Deny' });
    const r = await deny.authorize(many);
    expect(r.decision).toBe('Deny');
    expect(r.error).toContain('operation cancelled: actual cost limit exceeded');
    expect(deny.calls).toBe(0);
    const open = authorizer({ matchConditions: cubic });
    expect((await open.authorize(many)).decision).toBe('NoOpinion');
    expect(open.calls).toBe(0);
    // the same condition over a few groups is cheap and holds
    expect((await open.authorize(attrs('alice'))).decision).toBe('Allow');
  });
});

describe('--authorization-config with a webhook', () => {
  let f: AuthzFixture;
  let configFile: string;
  const yaml = (failurePolicy: string, name = 'hook') =>
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AuthorizationConfiguration',
      'authorizers:',
      '- type: Webhook',
      `  name: ${name}`,
      '  webhook:',
      '    authorizedTTL: 1ms',
      '    unauthorizedTTL: 1ms',
      '    cacheAuthorizedRequests: false',
      '    cacheUnauthorizedRequests: false',
      '    timeout: 2s',
      '    subjectAccessReviewVersion: v1',
      '    matchConditionSubjectAccessReviewVersion: v1',
      `    failurePolicy: ${failurePolicy}`,
      '    connectionInfo:',
      '      type: KubeConfigFile',
      `      kubeConfigFile: ${kubeconfigFile}`,
      '    matchConditions:',
      "    - expression: \"!('system:masters' in request.groups)\"",
      '- type: RBAC',
      '  name: rbac',
      '',
    ].join('\n');

  beforeAll(async () => {
    configFile = join(dir, 'authz.yaml');
    writeFileSync(configFile, yaml('Deny'));
    f = await authzServer({ authorizationConfig: configFile });
  });
  afterAll(() => f.close());

  it('a denying webhook denies with its reason; NoOpinion passes on to RBAC', async () => {
    answer = (r) => (r.spec.user === 'alice' ? reply(r, { allowed: false, denied: true, reason: 'alice is on leave' }) : reply(r, { allowed: false }));
    const r = await f.as('alice').get('/api/v1/namespaces/team/configmaps');
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team": alice is on leave');
    // bob: webhook has no opinion, RBAC grants nothing
    expect((await f.as('bob').get('/api/v1/namespaces/team/configmaps')).status).toBe(403);
    answer = (r) => reply(r, { allowed: r.spec.user === 'bob' });
    expect((await f.as('bob').get('/api/v1/namespaces/team/configmaps')).status).toBe(200);
  });

  it('fails closed with failurePolicy Deny when the webhook errors, and reloads the file keeping the last good version', async () => {
    answer = () => ({ status: 500, body: 'down' });
    const r = await f.as('bob').get('/api/v1/namespaces/team/configmaps');
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team": authorizer "hook" failed and its failure policy denies');
    expect(f.logs.some((l) => l.includes('the webhook answered HTTP 500'))).toBe(true);
    // an invalid version is refused: still Deny
    writeFileSync(configFile, yaml('Maybe'));
    await f.srv.deps.authorization!.reload();
    expect((await f.as('bob').get('/api/v1/namespaces/team/configmaps')).status).toBe(403);
    // a valid one with NoOpinion takes effect: RBAC (view bound below) decides
    writeFileSync(configFile, yaml('NoOpinion'));
    await f.srv.deps.authorization!.reload();
    const admin = f.as('admin');
    await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'bob-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    });
    expect((await f.as('bob').get('/api/v1/namespaces/team/configmaps')).status).toBe(200);
  });
});

describe('--authorization-mode Webhook (legacy flags)', () => {
  it('asks the webhook of --authorization-webhook-config-file with the configured review version, then RBAC', async () => {
    const f = await authzServer({ authorizationMode: ['Webhook', 'RBAC'], authorizationWebhookConfigFile: kubeconfigFile, authorizationWebhookVersion: 'v1' }, []);
    try {
      answer = (r) => reply(r, r.spec.user === 'alice' ? { allowed: true } : { allowed: false });
      expect((await f.as('alice').get('/api/v1/namespaces/default/secrets')).status).toBe(200);
      expect((await f.as('bob').get('/api/v1/namespaces/default/secrets')).status).toBe(403);
      expect(received.at(-1).review.apiVersion).toBe('authorization.k8s.io/v1');
    } finally {
      await f.close();
    }
  });
});

describe('the group a webhook authorizer sees does not depend on the request spelling', () => {
  it('a webhook denying clusterroles in rbac.authorization.k8s.io denies both spellings, and SubjectAccessReviews agree', async () => {
    const f = await authzServer({ authorizationMode: ['Webhook', 'RBAC'], authorizationWebhookConfigFile: kubeconfigFile, authorizationWebhookVersion: 'v1' }, []);
    try {
      const UP = 'rbac.authorization.k8s.io';
      answer = (r) => {
        const ra = r.spec.resourceAttributes;
        if (ra?.resource === 'clusterroles' && ra.group === UP) return reply(r, { allowed: false, denied: true, reason: 'no clusterroles' });
        return reply(r, { allowed: r.spec.user === 'alice' });
      };
      for (const g of [UP, 'rbac.authorization.service.io']) {
        received.length = 0;
        const r = await f.as('alice').get(`/apis/${g}/v1/clusterroles`);
        expect(r.status, g).toBe(403);
        // the second spelling may be answered from the cache: its key is the same review
        // (the cluster's components are authorized through the same chain: their reviews are not alice's)
        for (const x of received.filter((x) => x.review.spec.user === 'alice')) expect(x.review.spec.resourceAttributes?.group).toBe(UP);
        for (const sarGroup of ['authorization.k8s.io', 'authorization.service.io']) {
          const sar = await f.as('admin').post(`/apis/${sarGroup}/v1/subjectaccessreviews`, {
            apiVersion: `${sarGroup}/v1`,
            kind: 'SubjectAccessReview',
            spec: { user: 'alice', resourceAttributes: { verb: 'list', group: g, resource: 'clusterroles' } },
          });
          expect(sar.status).toBe(201);
          expect(sar.body.status).toMatchObject({ allowed: false, denied: true, reason: 'no clusterroles' });
        }
      }
    } finally {
      await f.close();
    }
  });
});

describe('the request deadline covers the whole chain', () => {
  it('a non-resource request whose webhook authorizer hangs ends at --request-timeout with 504', async () => {
    const f = await authzServer({ authorizationMode: ['Webhook', 'RBAC'], authorizationWebhookConfigFile: kubeconfigFile, authorizationWebhookVersion: 'v1', requestTimeoutMs: 1000 }, []);
    try {
      // alice's review hangs (the components' writes, authorized by the same chain, are answered)
      answer = (r) => (r.spec.user === 'alice' ? { hang: true } : reply(r, { allowed: false }));
      const r = await f.as('alice').get('/apis');
      expect(r.status).toBe(504);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'Timeout' });
    } finally {
      await f.close();
    }
  }, 15_000);
});

describe('requests in flight are counted after authentication (upstream: max-in-flight sits inside it)', () => {
  it('a full budget answers 429 to authenticated callers only; bad credentials are still 401', async () => {
    const f = await authzServer({ authorizationMode: ['Webhook', 'RBAC'], authorizationWebhookConfigFile: kubeconfigFile, authorizationWebhookVersion: 'v1', requestTimeoutMs: 3000, maxRequestsInflight: 1 }, []);
    try {
      answer = (r) => (r.spec.user === 'alice' ? { hang: true } : reply(r, { allowed: false }));
      const held = f.as('alice').get('/apis'); // holds the one read slot while its authorizer hangs
      while (!received.some((x) => x.review.spec.user === 'alice')) await new Promise((r) => setTimeout(r, 10));
      const c = client(f.srv.url);
      expect((await c.get('/apis', { Authorization: 'Bearer wrong-token' })).status).toBe(401);
      expect((await f.as('bob').get('/apis')).status).toBe(429);
      expect((await held).status).toBe(504);
    } finally {
      await f.close();
    }
  }, 15_000);
});
