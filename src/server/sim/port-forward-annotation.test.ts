import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isLoopbackAddress, loopbackTargetFor, parsePortForwardAnnotation, PORT_FORWARD_ANNOTATION } from './port-forward-annotation.js';

describe('sim.periscope.dev/port-forward', () => {
  it('reads loopback targets per pod port', () => {
    const p = parsePortForwardAnnotation('80=127.0.0.1:3000, 8443=[::1]:9443');
    expect(p.errors).toEqual([]);
    expect(p.targets.get(80)).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(p.targets.get(8443)).toEqual({ host: '::1', port: 9443 });
  });

  it('refuses anything that is not a numeric loopback address', () => {
    for (const v of ['80=10.244.2.9:3000', '80=localhost:3000', '80=example.com:80', '80=0.0.0.0:1', '80=[::]:1', '80=[fe80::1]:1', '80=169.254.169.254:80']) {
      const p = parsePortForwardAnnotation(v);
      expect(p.targets.size, v).toBe(0);
      expect(p.errors.length, v).toBe(1);
    }
  });

  it('refuses malformed ports', () => {
    for (const v of ['0=127.0.0.1:1', '80=127.0.0.1:0', '80=127.0.0.1:65536', 'x=127.0.0.1:1', '80=127.0.0.1', '=127.0.0.1:1']) {
      expect(parsePortForwardAnnotation(v).targets.size, v).toBe(0);
    }
  });

  it('finds the target of a pod', () => {
    expect(loopbackTargetFor({ [PORT_FORWARD_ANNOTATION]: '80=127.0.0.2:8080' }, 80)).toEqual({ host: '127.0.0.2', port: 8080 });
    expect(loopbackTargetFor({ [PORT_FORWARD_ANNOTATION]: '80=127.0.0.2:8080' }, 81)).toBeUndefined();
    expect(loopbackTargetFor(undefined, 80)).toBeUndefined();
  });

  it('never throws and only ever yields loopback targets (fuzz)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const p = parsePortForwardAnnotation(s);
        for (const t of p.targets.values()) expect(isLoopbackAddress(t.host)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
