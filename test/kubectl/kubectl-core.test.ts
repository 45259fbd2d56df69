// Stock kubectl (1.33) against our server: discovery, create (protobuf bodies), get, delete, explain, CRDs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let kc: string;
const k = (args: string[], input?: string) => kubectl(kc, args, input);

beforeAll(async () => {
  server = await testServer();
  kc = kubeconfigFor(server.url);
  await client(server.url).post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(() => server.close());

describe('kubectl', () => {
  it('api-resources lists built-ins with short names', async () => {
    const r = await k(['api-resources']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
  });

  it('creates a namespace and a configmap, gets them as json and yaml, and deletes them', async () => {
    expect((await k(['create', 'namespace', 'kc'])).stdout).toContain('namespace/kc created');
    const cm = await k(['create', 'configmap', 'settings', '-n', 'kc', '--from-literal=mode=fast']);
    expect(cm.stderr).toBe('');
    expect(cm.stdout).toContain('configmap/settings created');
    const json = await k(['get', 'configmap', 'settings', '-n', 'kc', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'ConfigMap', data: { mode: 'fast' }, metadata: { name: 'settings', namespace: 'kc' } });
    const yaml = await k(['get', 'ns', 'kc', '-o', 'yaml']);
    expect(yaml.stdout).toContain('name: kc');
    const del = await k(['delete', 'configmap', 'settings', '-n', 'kc']);
    expect(del.stdout).toContain('configmap "settings" deleted');
    const gone = await k(['get', 'configmap', 'settings', '-n', 'kc']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('NotFound');
  });

  it('creates from a manifest and lists with the server-side table', async () => {
    const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`;
    const r = await k(['create', '-f', '-'], manifest);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('deployment.apps/web created');
    const get = await k(['get', 'deploy']);
    expect(get.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    expect(get.stdout).toMatch(/^web\s+/m);
  });

  it('explains a built-in kind', async () => {
    const r = await k(['explain', 'deployment.spec.replicas']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('replicas');
    expect(r.stdout).toContain('integer');
  });

  it('creates a CRD, then objects of it, and explains it', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
`;
    const c = await k(['create', '-f', '-'], crd);
    expect(c.stderr).toBe('');
    expect(c.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created');
    let created;
    for (let i = 0; i < 20; i++) {
      created = await k(['create', '-f', '-'], 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  color: red\n');
      if (created.code === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(created!.stdout).toContain('gadget.example.com/g1 created');
    const list = await k(['get', 'gd']);
    expect(list.stdout).toMatch(/^g1\s+/m);
    const ex = await k(['explain', 'gadget.spec']);
    expect(ex.stderr).toBe('');
    expect(ex.stdout).toContain('color');
  });
});
