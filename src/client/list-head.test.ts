// The list head reader: a list's metadata from any prefix of its body, never throwing, never guessing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
