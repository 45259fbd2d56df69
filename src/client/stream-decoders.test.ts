import { encode } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { CborSequenceDecoder, NdjsonDecoder, decodeStream, decoderFor } from './stream-decoders.js';

const events = [
  { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '5', labels: { x: 'ü' } }, data: { k: 'v'.repeat(300) } } },
  { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '6' }, binaryData: { b: new Uint8Array([1, 2, 3]) } } },
  { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '7' } } },
  { type: 'DELETED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '8' } } },
];

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? [...x] : x)));

describe('CBOR sequence decoder', () => {
  const bytes = concat(events.map((e) => encode(e)));

  it('decodes a whole sequence in one chunk', () => {
    const d = new CborSequenceDecoder();
    expect(plain(d.push(bytes))).toEqual(plain(events));
    expect(d.end()).toEqual([]);
  });

  it('decodes the same values however the bytes are split', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const d = new CborSequenceDecoder();
      const out = [...d.push(bytes.slice(0, cut)), ...d.push(bytes.slice(cut))];
      expect(plain(out)).toEqual(plain(events));
    }
  });

  it('decodes byte by byte', () => {
    const d = new CborSequenceDecoder();
    const out: unknown[] = [];
    for (const b of bytes) out.push(...d.push(new Uint8Array([b])));
    expect(plain(out)).toEqual(plain(events));
  });

  it('reports a stream that ends inside an item', () => {
    const d = new CborSequenceDecoder();
    d.push(bytes.slice(0, bytes.length - 3));
    expect(() => d.end()).toThrow(/ended inside a data item/);
  });

  it('reads from a ReadableStream chosen by content type', async () => {
    const chunks = [bytes.slice(0, 7), bytes.slice(7, 200), bytes.slice(200)];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(ch);
        c.close();
      },
    });
    const out: unknown[] = [];
    for await (const v of decodeStream(stream, decoderFor('application/cbor-seq'))) out.push(v);
    expect(plain(out)).toEqual(plain(events));
  });
});

describe('NDJSON decoder', () => {
  it('splits lines across chunks, multi-byte characters included', () => {
    const text = events.map((e) => JSON.stringify(plain(e))).join('\n') + '\n';
    const bytes = new TextEncoder().encode(text);
    for (const cut of [1, 10, 57, bytes.length - 1]) {
      const d = new NdjsonDecoder();
      const out = [...d.push(bytes.slice(0, cut)), ...d.push(bytes.slice(cut)), ...d.end()];
      expect(out).toEqual(plain(events));
    }
  });

  it('keeps a last line without a newline', () => {
    const d = new NdjsonDecoder();
    expect(d.push(new TextEncoder().encode('{"a":1}\n{"b"'))).toEqual([{ a: 1 }]);
    expect(d.push(new TextEncoder().encode(':2}'))).toEqual([]);
    expect(d.end()).toEqual([{ b: 2 }]);
  });
});
