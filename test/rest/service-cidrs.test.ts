// networking.k8s.io/v1 ServiceCIDR and IPAddress (MultiCIDRServiceAllocator, GA in 1.33): the default ServiceCIDR
// from --service-cluster-ip-range, cluster IPs held by IPAddress objects created and deleted with their Services,
// cluster IPs outside every ServiceCIDR refused, a ServiceCIDR in use held by its finalizer; validation with
// upstream's messages; discovery, OpenAPI, tables and kubectl 1.33 get/explain.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl, kubectlBinary } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';
import { parseFlags } from '../../src/server/flags.js';
import { serviceIPs } from '../../src/server/registry/builtin-service.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/api/protobuf/index.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
let kubeconfig: string;
const NET = '/apis/networking.k8s.io/v1';

beforeAll(async () => {
  server = await testServer({ serviceClusterIPRange: ['10.100.0.0/16'] });
  api = client(server.url);
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

const svc = (name: string, clusterIP?: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { ...(clusterIP ? { clusterIP } : {}), ports: [{ port: 80 }] },
});

/** Polls (no sleeps between reads beyond the event loop) until `fn` holds or the deadline passes. */
async function eventually<T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the default ServiceCIDR', () => {
  it('is `kubernetes`, from --service-cluster-ip-range, Ready, with the finalizer', async () => {
    const c = await eventually(async () => {
      const r = await api.get(`${NET}/servicecidrs/kubernetes`);
      return r.body.metadata?.finalizers?.length ? r.body : undefined;
    });
    expect(c.spec.cidrs).toEqual(['10.100.0.0/16']);
    expect(c.metadata.finalizers).toEqual(['networking.k8s.io/service-cidr-finalizer']);
    const ready = c.status.conditions.find((x: any) => x.type === 'Ready');
    expect(ready.status).toBe('True');
    // the `kubernetes` Service takes the range's first address, held by an IPAddress
    const k = await api.get('/api/v1/namespaces/default/services/kubernetes');
    expect(k.body.spec.clusterIP).toBe('10.100.0.1');
    const ip = await api.get(`${NET}/ipaddresses/10.100.0.1`);
    expect(ip.status).toBe(200);
    expect(ip.body.spec.parentRef).toEqual({ group: '', resource: 'services', namespace: 'default', name: 'kubernetes' });
  });
});

describe('cluster IPs as IPAddress objects', () => {
  it('a Service creates its IPAddress (upstream labels, parentRef) and deleting it removes the IPAddress', async () => {
    const r = await api.post('/api/v1/namespaces/default/services', svc('held'));
    expect(r.status).toBe(201);
    const ip = r.body.spec.clusterIP as string;
    expect(ip.startsWith('10.100.')).toBe(true);
    const got = await api.get(`${NET}/ipaddresses/${ip}`);
    expect(got.status).toBe(200);
    expect(got.body.metadata.labels).toEqual({ 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
    expect(got.body.spec.parentRef).toEqual({ group: '', resource: 'services', namespace: 'default', name: 'held' });
    const d = await api.del('/api/v1/namespaces/default/services/held');
    expect(d.status).toBe(200);
    expect((await api.get(`${NET}/ipaddresses/${ip}`)).status).toBe(404);
    // the address is free again
    const again = await api.post('/api/v1/namespaces/default/services', svc('held-again', ip));
    expect(again.status).toBe(201);
  });

  it('a Service turned ExternalName releases its address; turned back, it holds a new one', async () => {
    const r = await api.post('/api/v1/namespaces/default/services', svc('flip'));
    const ip = r.body.spec.clusterIP as string;
    expect((await api.get(`${NET}/ipaddresses/${ip}`)).status).toBe(200);
    const ext = await api.put('/api/v1/namespaces/default/services/flip', { ...r.body, spec: { type: 'ExternalName', externalName: 'example.com' } });
    expect(ext.status, ext.text).toBe(200);
    expect((await api.get(`${NET}/ipaddresses/${ip}`)).status).toBe(404);
    const back = await api.put('/api/v1/namespaces/default/services/flip', { ...ext.body, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } });
    expect(back.status, back.text).toBe(200);
    const ip2 = await api.get(`${NET}/ipaddresses/${back.body.spec.clusterIP}`);
    expect(ip2.body.spec.parentRef.name).toBe('flip');
  });

  it("an address the defaults picked outside the ServiceCIDRs, or another replica's, is picked again inside them", async () => {
    // this process's allocator set to another range (as another server in the process, or a stale view)
    serviceIPs.setRange('10.96.0.0/12');
    try {
      const r = await api.post('/api/v1/namespaces/default/services', svc('repicked'));
      expect(r.status, r.text).toBe(201);
      expect(r.body.spec.clusterIP).toMatch(/^10\.100\./);
      expect(r.body.spec.clusterIPs).toEqual([r.body.spec.clusterIP]);
      expect((await api.get(`${NET}/ipaddresses/${r.body.spec.clusterIP}`)).body.spec.parentRef.name).toBe('repicked');
    } finally {
      serviceIPs.setRange('10.100.0.0/16');
    }
  });

  it('a dry-run create writes no IPAddress', async () => {
    const r = await api.post('/api/v1/namespaces/default/services?dryRun=All', svc('dry', '10.100.9.9'));
    expect(r.status).toBe(201);
    expect((await api.get(`${NET}/ipaddresses/10.100.9.9`)).status).toBe(404);
  });

  it('refuses a cluster IP outside every ServiceCIDR, and one already held', async () => {
    const out = await api.post('/api/v1/namespaces/default/services', svc('outside', '10.200.0.5'));
    expect(out.status).toBe(422);
    expect(out.body.message).toBe(
      'Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.200.0.5"}: failed to allocate IP 10.200.0.5: the provided network does not match the current range',
    );
    const taken = await api.post('/api/v1/namespaces/default/services', svc('taken', '10.100.0.1'));
    expect(taken.status).toBe(422);
    expect(taken.body.message).toBe('Service "taken" is invalid: spec.clusterIPs: Invalid value: []string{"10.100.0.1"}: failed to allocate IP 10.100.0.1: provided IP is already allocated');
  });

  it('a new ServiceCIDR widens the addresses a Service may ask for; deleting it waits while an address inside is in use', async () => {
    const c = await api.post(`${NET}/servicecidrs`, { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.200.0.0/24'] } });
    expect(c.status).toBe(201);
    const s = await api.post('/api/v1/namespaces/default/services', svc('in-extra', '10.200.0.5'));
    expect(s.status).toBe(201);
    await eventually(async () => ((await api.get(`${NET}/servicecidrs/extra`)).body.metadata.finalizers?.length ? true : undefined));
    const d = await api.del(`${NET}/servicecidrs/extra`);
    expect(d.status).toBe(200);
    const held = await eventually(async () => {
      const r = await api.get(`${NET}/servicecidrs/extra`);
      const ready = r.body.status?.conditions?.find((x: any) => x.type === 'Ready');
      return ready?.status === 'False' ? r.body : undefined;
    });
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.status.conditions.find((x: any) => x.type === 'Ready')).toMatchObject({
      reason: 'Terminating',
      message: 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR',
    });
    // a ServiceCIDR being deleted hands out nothing
    const refused = await api.post('/api/v1/namespaces/default/services', svc('late', '10.200.0.6'));
    expect(refused.status).toBe(422);
    expect((await api.del('/api/v1/namespaces/default/services/in-extra')).status).toBe(200);
    await eventually(async () => ((await api.get(`${NET}/servicecidrs/extra`)).status === 404 ? true : undefined));
  });
});

describe('validation as upstream', () => {
  const cidr = (name: string, cidrs: unknown) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } });
  const ipaddr = (name: string, parentRef?: unknown) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name }, spec: parentRef === undefined ? {} : { parentRef } });

  it.each([
    ['empty', [], 'ServiceCIDR.networking.k8s.io "empty" is invalid: spec.cidrs: Required value: at least one CIDR required'],
    ['not-canonical', ['10.1.0.0/016'], 'ServiceCIDR.networking.k8s.io "not-canonical" is invalid: spec.cidrs[0]: Invalid value: "10.1.0.0/016": must not have leading 0s in IP or prefix length'],
    ['host-bits', ['10.1.0.1/16'], 'ServiceCIDR.networking.k8s.io "host-bits" is invalid: spec.cidrs[0]: Invalid value: "10.1.0.1/16": must not have bits set beyond the prefix length'],
    ['not-cidr', ['10.1.0.0'], 'ServiceCIDR.networking.k8s.io "not-cidr" is invalid: spec.cidrs[0]: Invalid value: "10.1.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['v6-canonical', ['2001:DB8::/64'], 'ServiceCIDR.networking.k8s.io "v6-canonical" is invalid: spec.cidrs[0]: Invalid value: "2001:DB8::/64": must be in canonical form ("2001:db8::/64")'],
    ['same-family', ['10.1.0.0/16', '10.2.0.0/16'], 'ServiceCIDR.networking.k8s.io "same-family" is invalid: spec.cidrs: Invalid value: ["10.1.0.0/16","10.2.0.0/16"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'],
  ])('ServiceCIDR %s', async (name, cidrs, message) => {
    const r = await api.post(`${NET}/servicecidrs`, cidr(name, cidrs));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(message);
  });

  it('ServiceCIDR cidrs are immutable, but a single-family one may add the other family', async () => {
    expect((await api.post(`${NET}/servicecidrs`, cidr('grow', ['10.3.0.0/16']))).status).toBe(201);
    const changed = await api.patch(`${NET}/servicecidrs/grow`, { spec: { cidrs: ['10.4.0.0/16'] } }, 'application/merge-patch+json');
    expect(changed.status).toBe(422);
    expect(changed.body.message).toBe('ServiceCIDR.networking.k8s.io "grow" is invalid: spec.cidrs[0]: Invalid value: "10.4.0.0/16": field is immutable');
    const dual = await api.patch(`${NET}/servicecidrs/grow`, { spec: { cidrs: ['10.3.0.0/16', 'fd00:10:3::/112'] } }, 'application/merge-patch+json');
    expect(dual.status).toBe(200);
  });

  it.each([
    ['10.1.1.01', { resource: 'services', name: 'a' }, 'IPAddress.networking.k8s.io "10.1.1.01" is invalid: metadata.name: Invalid value: "10.1.1.01": must not have leading 0s'],
    ['2001:DB8::1', { resource: 'services', name: 'a' }, 'IPAddress.networking.k8s.io "2001:DB8::1" is invalid: metadata.name: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")'],
    ['10.1.1.1', undefined, 'IPAddress.networking.k8s.io "10.1.1.1" is invalid: spec.parentRef: Required value'],
    ['10.1.1.2', { name: 'a' }, 'IPAddress.networking.k8s.io "10.1.1.2" is invalid: spec.parentRef.resource: Required value'],
    ['10.1.1.3', { resource: 'services', name: 'a/b' }, 'IPAddress.networking.k8s.io "10.1.1.3" is invalid: spec.parentRef.name: Invalid value: "a/b": may not contain \'/\''],
  ])('IPAddress %s', async (name, ref, message) => {
    const r = await api.post(`${NET}/ipaddresses`, ipaddr(name, ref));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(message);
  });

  it('IPAddress parentRef is immutable', async () => {
    expect((await api.post(`${NET}/ipaddresses`, ipaddr('192.168.77.1', { resource: 'gateways', group: 'gateway.networking.k8s.io', namespace: 'ns', name: 'gw' }))).status).toBe(201);
    const r = await api.patch(`${NET}/ipaddresses/192.168.77.1`, { spec: { parentRef: { resource: 'gateways', group: 'gateway.networking.k8s.io', namespace: 'ns', name: 'other' } } }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.parentRef: Invalid value:');
    expect(r.body.message).toContain('field is immutable');
  });
});

describe('kubectl 1.33', () => {
  it('lists both kinds with upstream columns, explains them, and discovery names them', async () => {
    const get = await kubectl(kubeconfig, ['get', 'servicecidrs,ipaddresses']);
    expect(get.stderr).toBe('');
    const lines = get.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+CIDRS\s+AGE$/);
    expect(lines.find((l) => l.startsWith('servicecidr.networking.k8s.io/kubernetes'))).toMatch(/^servicecidr\.networking\.k8s\.io\/kubernetes\s+10\.100\.0\.0\/16\s+\S+$/);
    expect(get.stdout).toMatch(/\nNAME\s+PARENTREF\n/);
    expect(lines.find((l) => l.startsWith('ipaddress.networking.k8s.io/10.100.0.1 '))).toMatch(/\s+services\/default\/kubernetes$/);
    const explain = await kubectl(kubeconfig, ['explain', 'servicecidr.spec.cidrs']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/GROUP:\s+networking\.k8s\.io/);
    expect(explain.stdout).toContain('FIELD: cidrs <[]string>');
    const ex2 = await kubectl(kubeconfig, ['explain', 'ipaddress.spec.parentRef']);
    expect(ex2.stdout).toContain('resource\t<string> -required-');
    // OpenAPI v2 (kubectl up to 1.28 explains from it) and v3 carry both kinds
    const old = await kubectl(kubeconfig, ['explain', 'ipaddress.spec.parentRef.resource'], undefined, 30_000, { binary: kubectlBinary('1.27') });
    expect(old.stderr).toBe('');
    expect(old.stdout).toMatch(/FIELD:\s+resource <string>/);
    const v2 = await api.get('/openapi/v2');
    expect(v2.body.definitions['io.k8s.api.networking.v1.ServiceCIDR']['x-kubernetes-group-version-kind']).toContainEqual({ group: 'networking.k8s.io', kind: 'ServiceCIDR', version: 'v1' });
    expect(v2.body.paths['/apis/networking.k8s.io/v1/servicecidrs/{name}/status']).toBeDefined();
    const v3 = await api.get('/openapi/v3/apis/networking.k8s.io/v1');
    expect(v3.body.components.schemas['io.k8s.api.networking.v1.IPAddress']).toBeDefined();
    const res = await kubectl(kubeconfig, ['api-resources', '--api-group=networking.k8s.io', '-o', 'wide']);
    expect(res.stdout).toMatch(/\nipaddresses\s+networking\.k8s\.io\/v1\s+false\s+IPAddress\s+/);
    expect(res.stdout).toMatch(/\nservicecidrs\s+networking\.k8s\.io\/v1\s+false\s+ServiceCIDR\s+/);
  });
});

describe('protobuf (as Go clients read and write them)', () => {
  const PB = 'application/vnd.kubernetes.protobuf';
  it.each([
    ['servicecidrs', 'pb-cidr', { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'pb-cidr' }, spec: { cidrs: ['10.250.0.0/24', 'fd00:250::/112'] } }],
    ['ipaddresses', '10.251.0.7', { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: '10.251.0.7' }, spec: { parentRef: { group: 'gateway.networking.k8s.io', resource: 'gateways', namespace: 'default', name: 'gw' } } }],
  ])('%s: a protobuf body creates what JSON reads; a protobuf read decodes to it', async (plural, name, body) => {
    const created = await fetch(`${server.url}${NET}/${plural}`, { method: 'POST', headers: { 'Content-Type': PB, Accept: 'application/json' }, body: encodeProtobufObject(body as never) as unknown as BodyInit });
    expect(created.status, await created.clone().text()).toBe(201);
    // the ServiceCIDR controller writes its Ready condition meanwhile: compare two reads of one version
    for (let i = 0; ; i++) {
      const json = (await api.get(`${NET}/${plural}/${name}`)).body;
      expect(json.spec).toEqual(body.spec);
      const pb = await fetch(`${server.url}${NET}/${plural}/${name}`, { headers: { Accept: PB } });
      expect(pb.headers.get('content-type')).toBe(PB);
      const decoded = decodeProtobufObject(new Uint8Array(await pb.arrayBuffer())) as { metadata?: { resourceVersion?: string } };
      if (decoded.metadata?.resourceVersion !== json.metadata.resourceVersion && i < 20) continue;
      expect(decoded).toEqual(json);
      break;
    }
  });
});

describe('at start (upstream repairip)', () => {
  it('a stored Service whose address has no IPAddress gets one; an allocator IPAddress without its Service goes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-cidr-'));
    const first = await testServer({ store: 'sqlite', dataDir });
    const a = client(first.url);
    const s = await a.post('/api/v1/namespaces/default/services', svc('stored'));
    expect(s.status).toBe(201);
    const ip = s.body.spec.clusterIP as string;
    // as a store written before IPAddress objects existed: the Service's is gone, an orphan is left
    expect((await a.del(`${NET}/ipaddresses/${ip}`)).status).toBe(200);
    const orphan = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name: '10.96.3.3', labels: { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io', 'ipaddress.kubernetes.io/ip-family': 'IPv4' } },
      spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'gone' } },
    };
    expect((await a.post(`${NET}/ipaddresses`, orphan)).status).toBe(201);
    await first.close();
    const second = await testServer({ store: 'sqlite', dataDir });
    try {
      const b = client(second.url);
      const back = await b.get(`${NET}/ipaddresses/${ip}`);
      expect(back.status).toBe(200);
      expect(back.body.spec.parentRef).toEqual({ group: '', resource: 'services', namespace: 'default', name: 'stored' });
      expect((await b.get(`${NET}/ipaddresses/10.96.3.3`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});

describe('--service-cluster-ip-range', () => {
  it('takes one CIDR or a dual-stack pair, as kube-apiserver', () => {
    expect(parseFlags([]).serviceClusterIPRange).toEqual(['10.96.0.0/12']);
    expect(parseFlags(['--service-cluster-ip-range', '10.0.0.0/16,fd00::/108']).serviceClusterIPRange).toEqual(['10.0.0.0/16', 'fd00::/108']);
    expect(() => parseFlags(['--service-cluster-ip-range', '10.0.0.0/16,10.1.0.0/16'])).toThrow(/different IP families/);
    expect(() => parseFlags(['--service-cluster-ip-range', '10.0.0.1/16'])).toThrow(/must not have bits set beyond the prefix length/);
    expect(() => parseFlags(['--service-cluster-ip-range', '10.0.0.0/8'])).toThrow(/between \/12 and \/30/);
  });
});
