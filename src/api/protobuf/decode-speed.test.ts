import { describe, expect, it } from 'vitest';
import { decodeProtobufEnvelope, decodeProtobufObject, decodeProtobufRaw, encodeProtobufObject } from './index.js';
import { pod } from './testdata.js';
import { utf8Decode } from './wire.js';

// The decoder's speed-ups (slot arrays reused per depth, strings read through Buffer) must not change
// what it produces.
describe('protobuf decoder reuse', () => {
  it('decodes correctly after a message failed half-way (no slot left over from it)', () => {
    const good = encodeProtobufObject(pod as Record<string, unknown>);
    // a smaller pod: any field left from the failed decode would show up in it
    const small = encodeProtobufObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'small' } });
    const want = decodeProtobufObject(small);
    const { apiVersion, kind, raw } = decodeProtobufEnvelope(good);
    // cut inside the object so the decoder fails with nested messages partly read
    let failed = 0;
    for (let cut = raw.length - 1; cut > raw.length / 3; cut -= 7) {
      try {
        decodeProtobufRaw(apiVersion, kind, raw.subarray(0, cut));
      } catch {
        failed++;
      }
      expect(decodeProtobufObject(small)).toEqual(want);
    }
    expect(failed).toBeGreaterThan(0);
  });

  it('reads strings as TextDecoder does: replacement characters, and a leading BOM dropped', () => {
    const td = new TextDecoder('utf-8', { fatal: false });
    let seed = 5;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
    const samples: number[][] = [[0xef, 0xbb, 0xbf, 0x61], [0xe2, 0x82], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x61, 0xff, 0x62]];
    for (let i = 0; i < 3000; i++) samples.push(Array.from({ length: 1 + (rand() % 12) }, () => (rand() % 3 === 0 ? 0x41 + (rand() % 26) : rand())));
    for (const s of samples) {
      const buf = new Uint8Array([0x20, ...s, 0x20]);
      expect(utf8Decode(buf, 1, buf.length - 1)).toBe(td.decode(buf.subarray(1, buf.length - 1)));
    }
  });
});
