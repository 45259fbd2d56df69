import { describe, expect, it } from 'vitest';
import { ApiClient } from './http.js';
import { ApiError } from './errors.js';
import { FEATURE_METRIC, MetricsTextParser, featureGatesOf, parseMetricsText, parseSampleValue, readFeatureGates } from './metrics.js';

const UPSTREAM = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 12
# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1
kubernetes_feature_enabled{name="AllAlpha",stage="ALPHA"} 0
kubernetes_feature_enabled{name="SomeGA",stage=""} 1
process_start_time_seconds 1.7e+09
go_gc_duration_seconds{quantile="0.5"} NaN 1700000000000
`;

describe('metrics text', () => {
  it('parses samples, labels, values and timestamps; skips comments', () => {
    const m = parseMetricsText(UPSTREAM);
    expect(m.malformed).toBe(0);
    expect(m.samples).toHaveLength(6);
    expect({ ...m.samples[0]!.labels }).toMatchObject({ resource: 'pods', verb: 'LIST', dry_run: '' });
    expect(m.samples[0]!.value).toBe(12);
    expect(m.samples[4]).toMatchObject({ name: 'process_start_time_seconds', value: 1.7e9 });
    expect(m.samples[5]!.value).toBeNaN();
  });

  it('reads the feature gates, only the wanted metric kept', () => {
    const m = parseMetricsText(UPSTREAM, { names: new Set([FEATURE_METRIC]) });
    expect(m.samples).toHaveLength(3);
    expect(featureGatesOf(m.samples)).toEqual([
      { name: 'APIResponseCompression', stage: 'BETA', enabled: true },
      { name: 'AllAlpha', stage: 'ALPHA', enabled: false },
      { name: 'SomeGA', stage: '', enabled: true },
    ]);
  });

  it('unescapes label values and accepts blanks, a trailing comma and CRLF', () => {
    const m = parseMetricsText('x{a="q\\"uote",b="back\\\\slash", c = "line\\nfeed",} +Inf\r\ny -Inf\n');
    expect(m.malformed).toBe(0);
    expect({ ...m.samples[0]!.labels }).toEqual({ a: 'q"uote', b: 'back\\slash', c: 'line\nfeed' });
    expect(m.samples[0]!.value).toBe(Infinity);
    expect(m.samples[1]!.value).toBe(-Infinity);
  });

  it('counts malformed lines instead of throwing', () => {
    const bad = ['x{a="unterminated} 1', 'x{a=b} 1', 'x{a="1",a="2"} 1', 'x 0x10', 'x 1 2 3', 'x{a="\\q"} 1', '{a="b"} 1', 'x', 'x 1 notatime', '9x 1'];
    const m = parseMetricsText(bad.join('\n') + '\nok 1\n');
    expect(m.malformed).toBe(bad.length);
    expect(m.samples).toEqual([expect.objectContaining({ name: 'ok', value: 1 })]);
  });

  it('never lets label names reach Object.prototype', () => {
    const m = parseMetricsText('x{__proto__="p",constructor="c",name="n"} 1\n');
    expect(m.samples[0]!.labels['__proto__']).toBe('p');
    expect(({} as Record<string, unknown>)['name']).toBeUndefined();
    expect(Object.getPrototypeOf(m.samples[0]!.labels)).toBeNull();
  });

  it('parses values as Go does', () => {
    expect(parseSampleValue('1e3')).toBe(1000);
    expect(parseSampleValue('.5')).toBe(0.5);
    expect(parseSampleValue('')).toBeUndefined();
    expect(parseSampleValue('Infinity')).toBe(Infinity);
    expect(parseSampleValue('1_000')).toBeUndefined();
  });

  it('reads text split anywhere into chunks the same as whole', () => {
    const whole = parseMetricsText(UPSTREAM);
    for (let size = 1; size < 40; size += 7) {
      const p = new MetricsTextParser();
      for (let i = 0; i < UPSTREAM.length; i += size) p.push(UPSTREAM.slice(i, i + size));
      expect(p.end()).toEqual(whole);
    }
  });
});

describe('metrics text, hostile input', () => {
  it('bounds line length, labels and samples kept', () => {
    const long = `x{a="${'z'.repeat(200_000)}"} 1\n`;
    const p = new MetricsTextParser({ maxLineLength: 1000 });
    for (let i = 0; i < long.length; i += 4096) p.push(long.slice(i, i + 4096));
    p.push('ok 1\n');
    const m = p.end();
    expect(m.malformed).toBe(1);
    expect(m.samples.map((s) => s.name)).toEqual(['ok']);

    const labels = Array.from({ length: 100 }, (_, i) => `l${i}="v"`).join(',');
    expect(parseMetricsText(`x{${labels}} 1\n`, { maxLabels: 64 }).malformed).toBe(1);

    const many = parseMetricsText('x 1\n'.repeat(50_000), { maxSamples: 100 });
    expect(many.samples).toHaveLength(100);
    expect(many.truncated).toBe(true);
  });

  it('survives random bytes and mutated upstream text (deterministic fuzz)', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const alphabet = 'ab_:{}="\\,\n\t #+-.0123456789eEnNaIf\r\u0000\u2028😀';
    for (let round = 0; round < 300; round++) {
      let text: string;
      if (round % 2) {
        text = Array.from({ length: Math.floor(rnd() * 400) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      } else {
        const chars = [...UPSTREAM];
        for (let k = 0; k < 10; k++) chars[Math.floor(rnd() * chars.length)] = alphabet[Math.floor(rnd() * alphabet.length)]!;
        text = chars.join('');
      }
      const m = parseMetricsText(text, { maxSamples: 50 });
      expect(m.samples.length).toBeLessThanOrEqual(50);
      for (const s of m.samples) expect(typeof s.value).toBe('number');
      expect(() => featureGatesOf(m.samples)).not.toThrow();
    }
  });
});

describe('reading /metrics', () => {
  const serving = (body: string | (() => ReadableStream<Uint8Array>), status = 200) =>
    new ApiClient({ fetch: async () => new Response(typeof body === 'string' ? body : body(), { status, headers: { 'content-type': status === 200 ? 'text/plain; version=0.0.4' : 'application/json' } }) });

  it('reads the gates from a server', async () => {
    const r = await readFeatureGates(serving(UPSTREAM));
    expect(r.truncated).toBe(false);
    expect(r.gates.map((g) => g.name)).toEqual(['APIResponseCompression', 'AllAlpha', 'SomeGA']);
  });

  it('stops reading an endless body at maxBytes', async () => {
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          pulled++;
          c.enqueue(new TextEncoder().encode('kubernetes_feature_enabled{name="G",stage="ALPHA"} 1\n'.repeat(100)));
        },
      });
    const r = await readFeatureGates(serving(endless), { maxBytes: 100_000 });
    expect(r.truncated).toBe(true);
    expect(r.gates).toEqual([{ name: 'G', stage: 'ALPHA', enabled: true }]);
    expect(pulled).toBeLessThan(100);
  });

  it('reports a denial as the ApiError it is', async () => {
    const denied = serving(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'forbidden: User "x" cannot get path "/metrics"' }), 403);
    await expect(readFeatureGates(denied)).rejects.toSatisfy((e) => e instanceof ApiError && e.code === 403);
  });
});
