// The programmatic API as another project's tests use it: start, client-node, CRDs, a reconciler, stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startPeriscope, type Periscope } from '../../src/index.js';
import { KUBECTL } from '../helpers/kubectl.js';

const crd = (plural: string, kind: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } }, subresources: { status: {} } }],
  },
});

describe('startPeriscope', () => {
  let p: Periscope;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'periscope-crd-'));
    const file = join(dir, 'widgets.yaml');
    writeFileSync(file, `# two documents\n${JSON.stringify(crd('widgets', 'Widget'))}\n---\n${JSON.stringify(crd('gadgets', 'Gadget'))}\n`);
    p = await startPeriscope({ crds: [file, crd('sprockets', 'Sprocket')] });
  });
  afterAll(() => p?.stop());

  it('serves the API on a free loopback port with an admin kubeconfig', async () => {
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(p.kubeconfigPath)).toBe(true);
    const core = p.client().makeApiClient(k8s.CoreV1Api);
    const ns = await core.listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining(['default', 'kube-system']));
  });

  it('installs the CRDs before returning (Established), from files and objects', async () => {
    const custom = p.client().makeApiClient(k8s.CustomObjectsApi);
    for (const [plural, kind] of [['widgets', 'Widget'], ['gadgets', 'Gadget'], ['sprockets', 'Sprocket']] as const) {
      const created = await custom.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural, body: { apiVersion: 'example.com/v1', kind, metadata: { name: 'one' }, spec: { size: 2 } } });
      expect(created.metadata.name).toBe('one');
    }
    // the schema is in force
    await expect(custom.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 0 } } })).rejects.toThrow(/spec.size/);
  });

  it('runs a reconciler: an informer on Widgets writes status and an Event', async () => {
    const kc = p.client();
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const events = kc.makeApiClient(k8s.EventsV1Api);
    const path = '/apis/example.com/v1/namespaces/default/widgets';
    const informer = k8s.makeInformer(kc, path, () => custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' }) as never);
    informer.on('add', (w: any) => {
      if (w.status?.ready) return;
      void custom.patchNamespacedCustomObjectStatus({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: w.metadata.name, body: { status: { ready: true, size: w.spec.size } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      void events.createNamespacedEvent({ namespace: 'default', body: { metadata: { generateName: 'widget-' }, eventTime: new k8s.V1MicroTime(), action: 'Reconcile', reason: 'Ready', note: `widget ${w.metadata.name} is ready`, reportingController: 'example.com/widgets', reportingInstance: 'test', type: 'Normal', regarding: { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: w.metadata.name } } });
    });
    await informer.start();
    try {
      await custom.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'reconciled' }, spec: { size: 3 } } });
      let w: any;
      for (let i = 0; i < 200 && !w?.status?.ready; i++) {
        await new Promise((r) => setTimeout(r, 25));
        w = await custom.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'reconciled' });
      }
      expect(w.status).toEqual({ ready: true, size: 3 });
      let notes: string[] = [];
      for (let i = 0; i < 200 && !notes.includes('widget reconciled is ready'); i++) {
        notes = (await events.listNamespacedEvent({ namespace: 'default' })).items.map((e) => e.note ?? '');
        if (!notes.includes('widget reconciled is ready')) await new Promise((r) => setTimeout(r, 25));
      }
      expect(notes).toContain('widget reconciled is ready');
    } finally {
      await informer.stop();
    }
  });
});

describe('startPeriscope instances and authentication', () => {
  it('runs several instances side by side, each with its own objects', async () => {
    const [a, b] = await Promise.all([startPeriscope(), startPeriscope()]);
    try {
      expect(a.url).not.toBe(b.url);
      await a.client().makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'only-in-a' } } });
      const inB = await b.client().makeApiClient(k8s.CoreV1Api).listNamespace();
      expect(inB.items.map((n) => n.metadata?.name)).not.toContain('only-in-a');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('stop() removes the kubeconfig and closes the port', async () => {
    const p = await startPeriscope();
    await p.stop();
    expect(existsSync(p.kubeconfigPath)).toBe(false);
    await expect(fetch(p.url + '/readyz')).rejects.toThrow();
  });

  for (const mode of ['token', 'certificate'] as const) {
    it(`authentication: '${mode}' — HTTPS, anonymous refused, kubectl and client-node as the admin`, async () => {
      const p = await startPeriscope({ authentication: mode });
      try {
        expect(p.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        const ns = await p.client().makeApiClient(k8s.CoreV1Api).listNamespace();
        expect(ns.items.length).toBeGreaterThan(0);
        const anon = await new Promise<number>((resolve, reject) => {
          import('node:https').then(({ request }) => request(p.url + '/api/v1/namespaces', { ca: p.caCert }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject).end());
        });
        expect(anon).toBe(401);
        // async: the server runs in this process
        const who = JSON.parse((await promisify(execFile)(KUBECTL, ['--kubeconfig', p.kubeconfigPath, 'auth', 'whoami', '-o', 'json'], { encoding: 'utf8' })).stdout);
        expect(who.status.userInfo.groups).toContain('system:masters');
        if (mode === 'certificate') expect(who.status.userInfo.username).toBe('periscope-admin');
      } finally {
        await p.stop();
      }
    });
  }
});
