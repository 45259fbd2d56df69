// The list head reader: a list's metadata from any prefix of its body, never throwing, never guessing; and
// the client hook that shows it the body's start.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiClient } from './http.js';
import { listHead } from './list-head.js';

const table = JSON.stringify({
  kind: 'Table',
  apiVersion: 'meta.k8s.io/v1',
  metadata: { resourceVersion: '42', continue: 'eyJ9 "quoted" {brace}', remainingItemCount: 7 },
  columnDefinitions: [{ name: 'Name', type: 'string' }],
  rows: [{ cells: ['a'], object: { metadata: { name: 'a' } } }],
});

describe('listHead', () => {
  it('reads the metadata as soon as it is whole, and asks for more before', () => {
    const end = table.indexOf('"columnDefinitions"');
    for (let i = 0; i < table.length; i++) {
      const h = listHead(table.slice(0, i));
      if (i < end - 1) expect(h).toEqual({ state: 'more' });
      else expect(h).toEqual({ state: 'found', metadata: { resourceVersion: '42', continue: 'eyJ9 "quoted" {brace}', remainingItemCount: 7 } });
    }
  });

  it('skips earlier members of any shape, whitespace included', () => {
    const body = ' {\n "kind" : "List", "x": {"a":[1,{"b":"}"}]}, "n": -1.5e3, "t": true ,\n "metadata" : {"continue":"c"} , "items": []}';
    expect(listHead(body)).toEqual({ state: 'found', metadata: { continue: 'c' } });
  });

  it('gives up when the rows or items come first, or the body is not a JSON object', () => {
    expect(listHead('{"kind":"Table","rows":[{"cells":[]}],"metadata":{"continue":"c"}}')).toEqual({ state: 'none' });
    expect(listHead('{"items":[')).toEqual({ state: 'none' });
    expect(listHead('[{"metadata":{}}]')).toEqual({ state: 'none' });
    expect(listHead('{"metadata":"text"}')).toEqual({ state: 'none' });
    expect(listHead('{"metadata":{"continue":1}}')).toEqual({ state: 'found', metadata: {} });
    expect(listHead('{"metadata":{"continue":""}}')).toEqual({ state: 'found', metadata: {} });
    expect(listHead('{kind:1}')).toEqual({ state: 'none' });
    expect(listHead('   ')).toEqual({ state: 'more' });
  });

  it('an empty continue token or a broken metadata object is never a token', () => {
    expect(listHead('{"metadata":{"continue":"a",}}')).toEqual({ state: 'none' });
  });

  it('fuzz: never throws; a found head is exactly the body metadata, at any cut', () => {
    const meta = fc.record({ resourceVersion: fc.string(), continue: fc.string({ minLength: 1 }), remainingItemCount: fc.integer() }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), meta, fc.nat(), (before, m, cut) => {
        const { metadata: _ignored, items: _i, rows: _r, ...rest } = before as Record<string, unknown>;
        const text = JSON.stringify({ ...rest, metadata: m, items: [1, 2] });
        const h = listHead(text.slice(0, cut % (text.length + 1)));
        if (h.state === 'found') expect(h.metadata).toEqual(m);
        else expect(h.state).toBe('more');
        expect(listHead(text)).toEqual({ state: 'found', metadata: m });
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', ' ', 'a', '1', 'metadata', 'items') }), (s) => {
        const h = listHead(s);
        expect(['found', 'more', 'none']).toContain(h.state);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('ApiClient onPrefix', () => {
  const big = JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { continue: 'c' }, items: Array.from({ length: 5000 }, (_, i) => ({ metadata: { name: `n${i}` } })) });
  const streamed = (text: string, piece: number): typeof fetch => async () => {
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += piece) c.enqueue(bytes.slice(i, i + piece));
        c.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  };

  it('shows the start of the body until satisfied, at most 64 KiB, and the body arrives whole', async () => {
    const seen: number[] = [];
    const c = new ApiClient({ baseUrl: 'http://t', fetch: streamed(big, 1000) });
    const res = await c.request<{ items: unknown[] }>('GET', '/x', { onPrefix: (t) => (seen.push(t.length), false) });
    expect(res.body.items).toHaveLength(5000);
    expect(Math.max(...seen)).toBeLessThanOrEqual(64 * 1024 + 1000);
    expect(seen.length).toBeLessThan(70);
  });

  it('a hook that throws costs nothing', async () => {
    const c = new ApiClient({ baseUrl: 'http://t', fetch: streamed(big, 4096) });
    const res = await c.request<{ items: unknown[] }>('GET', '/x', {
      onPrefix: () => {
        throw new Error('boom');
      },
    });
    expect(res.body.items).toHaveLength(5000);
  });
});
