import { describe, expect, it } from 'vitest';
import {
  ProtobufError, ProtobufFrameReader, decodeProtobufWatchEvent, encodeProtobufEnvelope, encodeProtobufObject,
  encodeProtobufWatchEvent, encodeProtobufWatchFrame,
} from './index.js';
import { configMap, deployment, partialObjectMetadata } from './testdata.js';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('protobuf watch frames', () => {
  const events: Array<[string, Record<string, unknown>]> = [
    ['ADDED', configMap],
    ['MODIFIED', deployment],
    ['DELETED', partialObjectMetadata],
    ['BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '99', annotations: { 'k8s.io/initial-events-end': 'true' } } }],
  ];
  const frames = events.map(([type, obj]) => encodeProtobufWatchFrame(type, encodeProtobufObject(obj)));

  it('each frame is a 4-byte big-endian length and a raw WatchEvent', () => {
    const f = frames[0];
    const len = new DataView(f.buffer, f.byteOffset).getUint32(0, false);
    expect(len).toBe(f.length - 4);
    expect(f[4]).toBe(0x0a); // WatchEvent.type, no envelope around the event itself
    expect(Array.from(encodeProtobufWatchEvent('ADDED', encodeProtobufObject(configMap)))).toEqual(Array.from(f.subarray(4)));
  });

  it('the frame reader reassembles frames from arbitrary chunking', () => {
    const stream = concat(frames);
    for (const step of [1, 3, 7, 64, stream.length]) {
      const reader = new ProtobufFrameReader();
      const got: Array<{ type: string; object: Record<string, unknown> }> = [];
      for (let i = 0; i < stream.length; i += step) {
        reader.push(stream.subarray(i, i + step));
        for (const frame of reader.frames()) got.push(decodeProtobufWatchEvent(frame));
      }
      expect(reader.buffered).toBe(0);
      expect(got).toEqual(events.map(([type, object]) => ({ type, object })));
    }
  });

  it('waits for a whole frame', () => {
    const reader = new ProtobufFrameReader();
    reader.push(frames[1].subarray(0, 10));
    expect(reader.next()).toBeUndefined();
    reader.push(frames[1].subarray(10));
    expect(decodeProtobufWatchEvent(reader.next()!).type).toBe('MODIFIED');
    expect(reader.next()).toBeUndefined();
  });

  it('rejects oversized frames', () => {
    const reader = new ProtobufFrameReader(16);
    reader.push(frames[0]);
    expect(() => reader.next()).toThrow(ProtobufError);
  });

  it('accepts an enveloped WatchEvent and JSON event objects', () => {
    const json = new TextEncoder().encode(JSON.stringify({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' } }));
    const event = encodeProtobufWatchEvent('ADDED', json);
    expect(decodeProtobufWatchEvent(event)).toEqual({ type: 'ADDED', object: { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' } } });
    const wrapped = encodeProtobufEnvelope('v1', 'WatchEvent', encodeProtobufWatchEvent('ERROR', encodeProtobufObject({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' })));
    expect(decodeProtobufWatchEvent(wrapped)).toEqual({
      type: 'ERROR',
      object: { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
  });
});
