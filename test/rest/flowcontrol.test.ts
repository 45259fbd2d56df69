// flowcontrol.apiserver.k8s.io/v1: upstream's bootstrap priority levels and flow schemas exist from the start,
// kubectl prints them with upstream's columns, and FlowSchema / PriorityLevelConfiguration writes are defaulted
// and validated as upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
let kc: string;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  kc = kubeconfigFor(server.url);
});
afterAll(() => server.close());

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

function causes(body: any): string[] {
  return (body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
}

describe('API Priority and Fairness objects', () => {
  it('creates the mandatory and suggested configuration at start', async () => {
    const pls = (await api.get(`${FC}/prioritylevelconfigurations`)).body.items.map((i: any) => i.metadata.name).sort();
    expect(pls).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    const fs = (await api.get(`${FC}/flowschemas`)).body.items;
    const names = fs.map((i: any) => i.metadata.name);
    for (const n of ['exempt', 'probes', 'system-leader-election', 'system-nodes', 'service-accounts', 'global-default', 'catch-all']) expect(names).toContain(n);
    const exempt = (await api.get(`${FC}/flowschemas/exempt`)).body;
    expect(exempt.apiVersion).toBe('flowcontrol.apiserver.k8s.io/v1');
    expect(exempt.metadata.annotations['apf.kubernetes.io/autoupdate-spec']).toBe('true');
    expect(exempt.spec).toMatchObject({ priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1 });
    expect(exempt.spec.rules[0].subjects).toEqual([{ kind: 'Group', group: { name: 'system:masters' } }]);
    expect(exempt.status.conditions[0]).toMatchObject({ type: 'Dangling', status: 'False', reason: 'Found' });
    const catchAll = (await api.get(`${FC}/prioritylevelconfigurations/catch-all`)).body;
    expect(catchAll.spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } });
  });

  it('kubectl get flowschemas and prioritylevelconfigurations print upstream columns', async () => {
    const fs = await kubectl(kc, ['get', 'flowschemas']);
    expect(fs.stderr).toBe('');
    const fl = fs.stdout.trim().split('\n');
    expect(fl[0]!.split(/\s{2,}/)).toEqual(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    expect(fl.some((l) => /^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/.test(l))).toBe(true);
    expect(fl.some((l) => /^catch-all\s+catch-all\s+10000\s+ByUser\s+\S+\s+False$/.test(l))).toBe(true);
    const pl = await kubectl(kc, ['get', 'prioritylevelconfigurations']);
    expect(pl.stderr).toBe('');
    const pll = pl.stdout.trim().split('\n');
    expect(pll[0]!.split(/\s{2,}/)).toEqual(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    expect(pll.some((l) => /^exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\S+$/.test(l))).toBe(true);
    expect(pll.some((l) => /^workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\S+$/.test(l))).toBe(true);
    expect(pll.some((l) => /^catch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+\S+$/.test(l))).toBe(true);
  });

  it('defaults and validates new objects as upstream', async () => {
    const pl = await api.post(`${FC}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'team' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } },
    });
    expect(pl.status).toBe(201);
    expect(pl.body.spec.limited).toEqual({ nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
    const fs = await api.post(`${FC}/flowschemas`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'team' },
      spec: { priorityLevelConfiguration: { name: 'team' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'team' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }] },
    });
    expect(fs.status).toBe(201);
    expect(fs.body.spec.matchingPrecedence).toBe(1000);

    const badPl = await api.post(`${FC}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 8, queueLengthLimit: 0 } } } },
    });
    expect(badPl.status).toBe(422);
    expect(causes(badPl.body)).toEqual(expect.arrayContaining([
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: 0: must be positive',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)',
    ]));
    const exemptNamed = await api.post(`${FC}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'other' }, spec: { type: 'Exempt', exempt: {} },
    });
    expect(causes(exemptNamed.body)).toContain("spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'");

    const badFs = await api.post(`${FC}/flowschemas`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'bad' },
      spec: { priorityLevelConfiguration: { name: 'team' }, matchingPrecedence: 10001, distinguisherMethod: { type: 'ByColor' }, rules: [{ subjects: [] }] },
    });
    expect(badFs.status).toBe(422);
    expect(causes(badFs.body)).toEqual(expect.arrayContaining([
      'spec.matchingPrecedence: Invalid value: 10001: must be between 1 and 10000, inclusive',
      'spec.distinguisherMethod.type: Unsupported value: "ByColor": supported values: "ByNamespace", "ByUser"',
      'spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    ]));
  });
});
