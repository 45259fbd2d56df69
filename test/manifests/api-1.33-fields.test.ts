// The API fields added from 1.28 to 1.33, one upstream documentation manifest each (test/manifests/api-1.33/,
// each citing its source), applied with kubectl 1.33 and strict field validation: client-side (created, then
// unchanged on a re-apply), then server-side; the new field reads back as the manifest wrote it. Then the
// behaviours the fields carry that are cheap to see: selectable CRD fields as field selectors, and a Job whose
// controller-written status (status.terminating, 1.28) no longer breaks a strict re-apply.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';

const DIR = join(import.meta.dirname, 'api-1.33');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
const NS = 'api133';

let server: ApiServer;
let kubeconfig: string;
beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
  const r = await kubectl(kubeconfig, ['create', 'namespace', NS]);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => server.close());

/** `# field: a.b.0.c = value` lines: the path (list indices as numbers) and the value the manifest sets there. */
function fieldsOf(text: string): { path: string[]; value: string }[] {
  return [...text.matchAll(/^# field: (\S+) = (.+)$/gm)].map((m) => ({ path: m[1]!.split('.'), value: m[2]!.trim() }));
}

function at(obj: unknown, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  return cur;
}

const outputLines = (s: string) => s.split('\n').filter(Boolean);

describe('1.28-1.33 fields, strictly applied with kubectl 1.33', () => {
  it.each(FILES)('%s', async (file) => {
    const path = join(DIR, file);
    const text = readFileSync(path, 'utf8');
    const fields = fieldsOf(text);
    expect(fields.length).toBeGreaterThan(0);
    const csa = await kubectl(kubeconfig, ['apply', '-n', NS, '--validate=strict', '-f', path]);
    expect(csa.stderr).toBe('');
    expect(csa.code).toBe(0);
    for (const l of outputLines(csa.stdout)) expect(l).toMatch(/ created$/);
    const again = await kubectl(kubeconfig, ['apply', '-n', NS, '--validate=strict', '-f', path]);
    expect(again.stderr).toBe('');
    const reapplied = /^# reapply: configured/m.test(text) ? / configured$/ : / unchanged$/;
    for (const l of outputLines(again.stdout)) expect(l).toMatch(reapplied);
    const ssa = await kubectl(kubeconfig, ['apply', '-n', NS, '--server-side', '--validate=strict', '-f', path]);
    expect(ssa.stderr).toBe('');
    expect(ssa.code).toBe(0);
    for (const l of outputLines(ssa.stdout)) expect(l).toMatch(/ serverside-applied$/);
    const got = await kubectl(kubeconfig, ['get', '-n', NS, '-f', path, '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    const parsed = JSON.parse(got.stdout);
    const first = parsed.kind === 'List' ? parsed.items[0] : parsed;
    for (const f of fields) expect(String(at(first, f.path)), f.path.join('.')).toBe(f.value);
  });

  it('selects custom resources by their selectable fields (`--field-selector spec.color=blue`)', async () => {
    const blue = await kubectl(kubeconfig, ['get', 'shirts', '-n', NS, '--field-selector', 'spec.color=blue', '-o', 'name']);
    expect(blue.stderr).toBe('');
    expect(outputLines(blue.stdout).sort()).toEqual(['shirt.stable.example.com/example1', 'shirt.stable.example.com/example2']);
    const bad = await kubectl(kubeconfig, ['get', 'shirts', '-n', NS, '--field-selector', 'spec.weight=1']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('field label not supported: spec.weight');
  });
});

describe('controller-written 1.28+ status fields', () => {
  let cluster: ApiServer;
  let clusterConfig: string;
  beforeAll(async () => {
    cluster = await testServer({ controllers: ['job-controller'] });
    clusterConfig = kubeconfigFor(cluster.url);
  });
  afterAll(() => cluster.close());

  it('a Job whose status the Job controller wrote (status.terminating) re-applies strictly, either mode', async () => {
    const job = [
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: pi',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '      - name: pi',
      '        image: perl:5.34.0',
      '        command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(20)"]',
      '      restartPolicy: Never',
      '',
    ].join('\n');
    const first = await kubectl(clusterConfig, ['apply', '-f', '-'], job);
    expect(first.code, first.stderr).toBe(0);
    // the controller's first status write carries `terminating` (as upstream's, JobPodReplacementPolicy on)
    const waited = await kubectl(clusterConfig, ['wait', 'job/pi', '--for=jsonpath={.status.terminating}=0', '--timeout=30s']);
    expect(waited.code, waited.stderr).toBe(0);
    const got = JSON.parse((await kubectl(clusterConfig, ['get', 'job/pi', '-o', 'json'])).stdout);
    expect(got.status.terminating).toBe(0);
    // kubectl sends the live object's fields back in its patch computation; none may be unknown to the server
    const csa = await kubectl(clusterConfig, ['apply', '--validate=strict', '-f', '-'], job);
    expect(csa.stderr).toBe('');
    expect(csa.code).toBe(0);
    const ssa = await kubectl(clusterConfig, ['apply', '--server-side', '--validate=strict', '-f', '-'], job);
    expect(ssa.stderr).toBe('');
    expect(ssa.code).toBe(0);
    // the whole live object, status included, sent back (an unconditional update: the controller may write meanwhile)
    delete got.metadata.resourceVersion;
    const put = await kubectl(clusterConfig, ['replace', '--validate=strict', '-f', '-'], JSON.stringify(got));
    expect(put.stderr).toBe('');
    expect(put.code).toBe(0);
  });
});
