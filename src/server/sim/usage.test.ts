import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../registry/types.js';
import { nodeUsage, parseUsageAnnotation, podUsage, usageQuantities, USAGE_ANNOTATION } from './usage.js';

const node: KubeObject = { metadata: { name: 'n1', uid: 'u-n1' } };
const pod = (annotations: Record<string, string>, containers: Record<string, unknown>[], phase = 'Running'): KubeObject =>
  ({ metadata: { name: 'p', uid: 'u-p', annotations }, spec: { nodeName: 'n1', containers }, status: { phase } }) as KubeObject;

describe('simulated usage', () => {
  it('takes the annotation exactly, per container or for all', () => {
    const p = pod({ [USAGE_ANNOTATION]: 'app:cpu=300m;cpu=10m,memory=1Mi' }, [{ name: 'app' }, { name: 'side' }]);
    const u = podUsage(p, node, true, 0)!;
    expect(u[0]).toMatchObject({ name: 'app', cpu: 300e6 });
    expect(u[1]).toEqual({ name: 'side', cpu: 10e6, memory: 1024 * 1024 });
    expect(usageQuantities(u[1]!)).toEqual({ cpu: '10000000n', memory: '1024Ki' });
  });

  it('derives from requests within the documented ranges, steady within a minute', () => {
    const p = pod({}, [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }]);
    const a = podUsage(p, node, true, 60_000)![0]!;
    expect(a.cpu).toBeGreaterThanOrEqual(0.4e9);
    expect(a.cpu).toBeLessThanOrEqual(0.6e9);
    expect(a.memory).toBeGreaterThanOrEqual(0.5 * 2 ** 30 - 1024);
    expect(a.memory).toBeLessThanOrEqual(0.7 * 2 ** 30 + 1024);
    expect(podUsage(p, node, true, 119_999)![0]).toEqual(a);
  });

  it('has no metrics for pods not running, or not on a simulated node', () => {
    expect(podUsage(pod({}, [{ name: 'c' }], 'Pending'), node, true, 0)).toBeUndefined();
    expect(podUsage(pod({}, [{ name: 'c' }]), node, false, 0)).toBeUndefined();
    expect(podUsage(pod({}, [{ name: 'c' }]), undefined, true, 0)).toBeUndefined();
  });

  it('a node adds its pods to its own share', () => {
    const idle = nodeUsage(node, [], 0);
    const busy = nodeUsage(node, [[{ name: 'c', cpu: 1e9, memory: 2 ** 20 }]], 0);
    expect(busy.cpu - idle.cpu).toBe(1e9);
    expect(busy.memory - idle.memory).toBe(2 ** 20);
  });

  it('fuzz: the annotation parser never throws and only yields non-negative finite amounts', () => {
    const piece = fc.oneof(fc.constantFrom('cpu', 'memory', 'gpu', 'app', ':', ';', ',', '=', '250m', '64Mi', '-1', '1e3', '1e300', 'E', '.5', ' ', 'x:'), fc.string({ maxLength: 8 }), fc.nat().map(String));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }).map((a) => a.join('')), (v) => {
        const r = parseUsageAnnotation(v);
        for (const u of [r.all, ...r.byContainer.values()])
          for (const n of Object.values(u)) {
            expect(Number.isFinite(n)).toBe(true);
            expect(n).toBeGreaterThanOrEqual(0);
          }
      }),
      { numRuns: 2000 },
    );
    expect(parseUsageAnnotation('cpu=1,'.repeat(1000)).errors).toEqual(['value longer than 4096 characters']);
    expect(parseUsageAnnotation('cpu=1e308,memory=9e99Ei').errors).toHaveLength(2);
  });
});
