// Issue 27 item 10: webhooks backed by simulated pods never dial a simulated address. The scenario runs in a
// network namespace with only loopback (fixtures/webhook-services-netns.ts), recording every connection its
// process opens: a pod naming a loopback target receives the call; a pod that names none fails the call at once
// with upstream's message naming the Service URL.
import { beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/server/sim/port-forward-annotation.js';
import { netnsAvailable, runInLoopbackNetns } from '../helpers/netns.js';

let out: any;

beforeAll(async () => {
  expect(await netnsAvailable(), 'unshare -rn must work on this machine').toBe(true);
  out = (await runInLoopbackNetns('test/admission/fixtures/webhook-services-netns.ts', 90_000)).result;
  expect(out.error, out.error).toBeUndefined();
}, 120_000);

describe('webhooks backed by simulated pods', () => {
  it('no connection leaves loopback', () => {
    expect(out.dials.length).toBeGreaterThan(0);
    const outside = out.dials.filter((d: { host: string }) => d.host !== 'localhost' && !isLoopbackAddress(d.host));
    expect(outside).toEqual([]);
    for (const ip of out.podIPs) expect(out.dials.map((d: { host: string }) => d.host)).not.toContain(ip);
  });

  it('a pod annotated with a loopback target receives the call (TLS verified for the Service name)', () => {
    expect(out.viaPod.status).toBe(400);
    expect(out.viaPod.message).toBe('admission webhook "via-pod.example.com" denied the request: reached /via-pod');
    expect(out.received.filter((r: { path: string }) => r.path === '/via-pod').map((r: { host: string }) => r.host)).toContain('hook.default.svc:443');
  });

  it('a pod without one fails at once, naming the Service URL and ?timeout= as upstream; a URL at a simulated IP is refused', () => {
    expect(out.plain.status).toBe(500);
    expect(out.plain.message).toBe('Internal error occurred: failed calling webhook "plain.example.com": failed to call webhook: Post "https://plain.default.svc:443/plain?timeout=10s": no endpoints available for service "plain"');
    expect(out.missing.status).toBe(500);
    expect(out.podIP.status).toBe(500);
    expect(out.podIP.message).toBe(`Internal error occurred: failed calling webhook "pod-ip.example.com": failed to call webhook: Post "https://${out.podIPs[0]}:8443/direct?timeout=5s": ${out.podIPs[0]} is a simulated address, reachable only inside the simulation`);
    expect(out.svcName.message).toBe('Internal error occurred: failed calling webhook "svc-name.example.com": failed to call webhook: Post "https://hook.default.svc.cluster.local/named?timeout=5s": hook.default.svc.cluster.local is a simulated address, reachable only inside the simulation');
    expect(out.missing.message).toBe('Internal error occurred: failed calling webhook "missing.example.com": failed to call webhook: Post "https://missing.default.svc:443/m?timeout=10s": service "missing" not found');
  });
});
