// The admission plugin set: defaults, --enable/--disable-admission-plugins, AdmissionConfiguration
// (webhook kubeConfigFile credentials), and the built-in pod plugins.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../helpers/server.js';
import { AR, hook, makeCert, WebhookServer } from '../helpers/webhook.js';

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent' }], ...extra },
});

async function withServer(flags: Record<string, unknown>, fn: (c: ReturnType<typeof client>) => Promise<void>) {
  const api = await testServer(flags);
  const c = client(api.url);
  await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  try {
    await fn(c);
  } finally {
    await api.close();
  }
}

describe('default plugins', () => {
  it('ServiceAccount projects the token volume, DefaultTolerationSeconds adds 300s tolerations; images are not forced', async () => {
    await withServer({}, async (c) => {
      const r = await c.post('/api/v1/namespaces/default/pods', pod('p1'));
      expect(r.status).toBe(201);
      const spec = r.body.spec;
      expect(spec.serviceAccountName).toBe('default');
      const vol = spec.volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
      expect(vol.projected.sources[0]).toEqual({ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
      expect(spec.containers[0].volumeMounts).toContainEqual({ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });
      expect(spec.tolerations).toEqual([
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ]);
      expect(spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
      const own = await c.post('/api/v1/namespaces/default/pods', pod('p2', { automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }] }));
      expect(own.body.spec.volumes ?? []).toEqual([]);
      expect(own.body.spec.tolerations).toEqual([{ operator: 'Exists' }]);
    });
  });
});

describe('--enable-admission-plugins / --disable-admission-plugins', () => {
  it('AlwaysPullImages on; ServiceAccount, DefaultTolerationSeconds and NamespaceLifecycle off', async () => {
    await withServer(
      { enableAdmissionPlugins: ['AlwaysPullImages'], disableAdmissionPlugins: ['ServiceAccount', 'DefaultTolerationSeconds', 'NamespaceLifecycle'] },
      async (c) => {
        const r = await c.post('/api/v1/namespaces/default/pods', pod('p1'));
        expect(r.body.spec.containers[0].imagePullPolicy).toBe('Always');
        expect(r.body.spec.volumes ?? []).toEqual([]);
        expect(r.body.spec.tolerations).toBeUndefined();
        // without NamespaceLifecycle a namespace need not exist (as upstream)
        expect((await c.post('/api/v1/namespaces/absent/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(201);
      },
    );
  });

  it('refuses unknown and unsupported plugin names at start', async () => {
    await expect(testServer({ enableAdmissionPlugins: ['NoSuchPlugin'] })).rejects.toThrow('admission plugin "NoSuchPlugin" is not registered');
    await expect(testServer({ enableAdmissionPlugins: ['PodSecurity'] })).rejects.toThrow('admission plugin "PodSecurity" is not supported by this server');
  });
});

describe('AdmissionConfiguration', () => {
  let dir: string;
  let wh: WebhookServer;
  let caBundle: string;
  let cleanup: () => void;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'periscope-admcfg-'));
    const made = makeCert('IP:127.0.0.1');
    cleanup = made.cleanup;
    caBundle = made.cert.caBundle;
    wh = await new WebhookServer(made.cert).start();
  });
  afterAll(async () => {
    await wh.close();
    cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the webhook plugins their kubeConfigFile credentials (inline configuration and path)', async () => {
    writeFileSync(join(dir, 'validating-kubeconfig.yaml'), 'apiVersion: v1\nkind: Config\nusers:\n- name: "127.0.0.1"\n  user:\n    token: validating-secret\n');
    writeFileSync(join(dir, 'mutating-kubeconfig.yaml'), 'apiVersion: v1\nkind: Config\nusers:\n- name: "*"\n  user:\n    username: admin\n    password: pw\n');
    writeFileSync(join(dir, 'mutating.yaml'), `apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: ${join(dir, 'mutating-kubeconfig.yaml')}\n`);
    const file = join(dir, 'admission.yaml');
    writeFileSync(
      file,
      `apiVersion: apiserver.config.service.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: validating-kubeconfig.yaml
- name: MutatingAdmissionWebhook
  path: mutating.yaml
`,
    );
    await withServer({ admissionControlConfigFile: file }, async (c) => {
      await c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [hook('v.example.com', wh.url('/v'), caBundle)] });
      await c.post(`${AR}/mutatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks: [hook('m.example.com', wh.url('/m'), caBundle)] });
      expect((await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(201);
      const v = wh.received.find((r) => r.path === '/v')!;
      const m = wh.received.find((r) => r.path === '/m')!;
      expect(v.headers.authorization).toBe('Bearer validating-secret');
      expect(m.headers.authorization).toBe(`Basic ${Buffer.from('admin:pw').toString('base64')}`);
    });
  });
});
