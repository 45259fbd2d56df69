import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from './index.js';
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseRfc3339 } from './time.js';
import { Reader, Writer, base64Decode, base64Encode } from './wire.js';

describe('time conversions', () => {
  it('parses RFC 3339 with offsets and fractions', () => {
    expect(parseRfc3339('2024-01-02T03:04:05Z')).toEqual({ seconds: 1704164645, nanos: 0 });
    expect(parseRfc3339('2024-01-02T05:34:05.5+02:30')).toEqual({ seconds: 1704164645, nanos: 500000000 });
    expect(parseRfc3339('1970-01-01T00:00:00.000000001Z')).toEqual({ seconds: 0, nanos: 1 });
    expect(parseRfc3339('0001-01-01T00:00:00Z').seconds).toBe(-62135596800);
    expect(() => parseRfc3339('yesterday')).toThrow(/RFC 3339/);
  });

  it('formats like metav1.Time and metav1.MicroTime', () => {
    expect(formatTime(1704164645)).toBe('2024-01-02T03:04:05Z');
    expect(formatTime(-62135596800)).toBe('0001-01-01T00:00:00Z');
    expect(formatTime(951782400)).toBe('2000-02-29T00:00:00Z');
    expect(formatMicroTime(1704164645, 123456789)).toBe('2024-01-02T03:04:05.123456Z');
    expect(formatMicroTime(1704164645, 0)).toBe('2024-01-02T03:04:05.000000Z');
  });

  it('formats and parses Go durations', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'], [1, '1ns'], [1500, '1.5µs'], [1.5e6, '1.5ms'], [1e9, '1s'], [90e9, '1m30s'], [3600e9, '1h0m0s'],
      [3723.5e9, '1h2m3.5s'], [-2e9, '-2s'],
    ];
    for (const [ns, s] of cases) {
      expect(formatDuration(ns)).toBe(s);
      expect(parseDuration(s)).toBe(ns);
    }
    expect(parseDuration('1.5h')).toBe(5400e9);
    expect(parseDuration('300ms')).toBe(3e8);
    expect(() => parseDuration('5 minutes')).toThrow(/duration/);
  });

  it('carries times before 1970 (negative seconds) through the wire', () => {
    const obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'old', creationTimestamp: '1960-06-01T12:00:00Z' } };
    expect(decodeProtobufObject(encodeProtobufObject(obj))).toEqual(obj);
  });
});

describe('wire primitives', () => {
  it('round-trips varints across the 32/53-bit boundaries and negatives', () => {
    const values = [0, 1, 127, 128, 16383, 16384, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -1, -2, -(2 ** 31), -(2 ** 40) - 3];
    const w = new Writer(4);
    for (const v of values) w.varint(v);
    const r = new Reader(w.finish());
    for (const v of values) expect(r.varint()).toBe(v);
    expect(r.done()).toBe(true);
  });

  it('writes multi-byte lengths for long nested sections', () => {
    const w = new Writer(8);
    const start = w.beginLen();
    w.string('é'.repeat(300));
    w.endLen(start);
    const r = new Reader(w.finish());
    const n = r.len();
    expect(n).toBe(2 + 600);
    expect(r.string()).toBe('é'.repeat(300));
  });

  it('base64 matches the standard alphabet with padding', () => {
    for (const s of ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']) {
      const b = new TextEncoder().encode(s);
      expect(base64Encode(b)).toBe(Buffer.from(s).toString('base64'));
      expect(Array.from(base64Decode(Buffer.from(s).toString('base64')))).toEqual(Array.from(b));
    }
    expect(() => base64Decode('a$b')).toThrow(/base64/);
  });
});
