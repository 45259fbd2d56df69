// Writes that change nothing store nothing (upstream compares the defaulted object with the stored one and skips
// the write): server-side apply right after an identical client-side apply, and re-applies of manifests that spell
// defaults or empty values (`replicas: null`, `creationTimestamp: null`) keep the resourceVersion and generation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';

let server: ApiServer;
let kubeconfig: string;
beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

const template = (name: string) => [
  '  selector:',
  '    matchLabels:',
  `      app: ${name}`,
  '  template:',
  '    metadata:',
  '      labels:',
  `        app: ${name}`,
  '    spec:',
  '      containers:',
  '      - name: c',
  '        image: nginx:1.27',
  '        ports:',
  '        - containerPort: 80',
];
const workloads: Record<string, string> = {
  deployment: ['apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: web', 'spec:', '  replicas: 2', ...template('web')].join('\n'),
  statefulset: ['apiVersion: apps/v1', 'kind: StatefulSet', 'metadata:', '  name: db', 'spec:', '  serviceName: db', ...template('db')].join('\n'),
  daemonset: ['apiVersion: apps/v1', 'kind: DaemonSet', 'metadata:', '  name: agent', 'spec:', ...template('agent')].join('\n'),
};

async function state(ref: string): Promise<string> {
  const r = await kubectl(kubeconfig, ['get', ref, '-o', 'jsonpath={.metadata.resourceVersion} {.metadata.generation}']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('no-op writes', () => {
  it.each(Object.entries(workloads))('server-side apply after an identical client-side apply leaves a %s as it was', async (kind, doc) => {
    const csa = await kubectl(kubeconfig, ['apply', '-f', '-'], doc);
    expect(csa.code, csa.stderr).toBe(0);
    const ref = csa.stdout.trim().split(' ')[0]!;
    const before = await state(ref);
    expect(before.endsWith(' 1'), kind).toBe(true);
    const ssa = await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(ssa.stderr).toBe('');
    const after = await state(ref);
    // the migration of managedFields is a write of its own (upstream too); the generation stays
    expect(after.split(' ')[1]).toBe('1');
    const again = await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(again.stderr).toBe('');
    expect(await state(ref)).toBe(after);
  });

  it('re-applying a Deployment that spells replicas: null changes nothing', async () => {
    const doc = ['apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: nullrep', 'spec:', '  replicas: null', ...template('nullrep')].join('\n');
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], doc)).code).toBe(0);
    const before = await state('deployment/nullrep');
    // kubectl sends `replicas: null` again (a non-empty patch: it prints "configured", as with upstream); the server
    // defaults the field back and finds nothing to write
    const again = await kubectl(kubeconfig, ['apply', '-f', '-'], doc);
    expect(again.code, again.stderr).toBe(0);
    expect(await state('deployment/nullrep')).toBe(before);
    const ssa = await kubectl(kubeconfig, ['apply', '--server-side', '--field-manager', 'other', '-f', '-'], doc);
    expect(ssa.code, ssa.stderr).toBe(0);
    const afterSsa = await state('deployment/nullrep');
    const ssaAgain = await kubectl(kubeconfig, ['apply', '--server-side', '--field-manager', 'other', '-f', '-'], doc);
    expect(ssaAgain.code, ssaAgain.stderr).toBe(0);
    expect(await state('deployment/nullrep')).toBe(afterSsa);
  });

  it('re-applying a webhook configuration that spells creationTimestamp: null changes nothing', async () => {
    const doc = [
      'apiVersion: admissionregistration.k8s.io/v1',
      'kind: ValidatingWebhookConfiguration',
      'metadata:',
      '  creationTimestamp: null',
      '  name: nulltime',
      'webhooks:',
      '- name: check.example.com',
      '  admissionReviewVersions: ["v1"]',
      '  sideEffects: None',
      '  clientConfig:',
      '    url: https://127.0.0.1:9443/check',
      '  rules:',
      '  - apiGroups: [""]',
      '    apiVersions: ["v1"]',
      '    operations: ["CREATE"]',
      '    resources: ["configmaps"]',
    ].join('\n');
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], doc)).code).toBe(0);
    const before = await state('validatingwebhookconfiguration/nulltime');
    const again = await kubectl(kubeconfig, ['apply', '-f', '-'], doc);
    expect(again.code, again.stderr).toBe(0);
    expect(await state('validatingwebhookconfiguration/nulltime')).toBe(before);
    const ssa = await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(ssa.code, ssa.stderr).toBe(0);
    const afterSsa = await state('validatingwebhookconfiguration/nulltime');
    const ssaAgain = await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], doc);
    expect(ssaAgain.code, ssaAgain.stderr).toBe(0);
    expect(await state('validatingwebhookconfiguration/nulltime')).toBe(afterSsa);
  });

  it('a PodDisruptionBudget re-applied client-side after a server-side apply is not written', async () => {
    // kubectl sends its selector every time (upstream's OpenAPI gives PodDisruptionBudgetSpec.selector the patch
    // strategy `replace`, so strategicpatch always emits it, and kubectl prints "configured" with upstream too);
    // the server finds the object unchanged
    const doc = ['apiVersion: policy/v1', 'kind: PodDisruptionBudget', 'metadata:', '  name: web', 'spec:', '  minAvailable: 1', '  selector:', '    matchLabels:', '      app: web'].join('\n');
    expect((await kubectl(kubeconfig, ['apply', '-f', '-'], doc)).code).toBe(0);
    expect((await kubectl(kubeconfig, ['apply', '--server-side', '-f', '-'], doc)).code).toBe(0);
    const before = await state('pdb/web');
    const again = await kubectl(kubeconfig, ['apply', '-f', '-'], doc);
    expect(again.code, again.stderr).toBe(0);
    expect(await state('pdb/web')).toBe(before);
  });
});
