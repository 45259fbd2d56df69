import { describe, expect, it } from 'vitest';
import { LineSplitter, LogBatcher, LogBuffer, ResumeMark, logPath, logQuery, splitTimestamp } from './pod-logs.js';

describe('pod logs', () => {
  it('asks pods/log with upstream PodLogOptions, timestamps always on', () => {
    expect(logPath({ namespace: 'a b', pod: 'p' })).toBe('/api/v1/namespaces/a%20b/pods/p/log');
    expect(logQuery({ container: 'c', follow: true, previous: true, tailLines: 100, sinceSeconds: 60 })).toEqual({
      container: 'c', follow: 'true', previous: 'true', timestamps: 'true', sinceTime: undefined, sinceSeconds: 60, tailLines: 100, limitBytes: undefined,
    });
    // a resume names the time: never both since fields (422 upstream), and no tail
    const q = logQuery({ follow: true, sinceSeconds: 60, tailLines: 10, sinceTime: '2026-01-01T00:00:00Z' });
    expect(q.sinceSeconds).toBeUndefined();
    expect(q.tailLines).toBeUndefined();
  });

  it('splits lines across chunks, multi-byte characters included', () => {
    const s = new LineSplitter();
    const bytes = new TextEncoder().encode('one\r\ntwo é\nthr');
    expect(s.push(bytes.slice(0, 9))).toEqual(['one']);
    expect(s.push(bytes.slice(9))).toEqual(['two é']);
    expect(s.end()).toEqual(['thr']);
  });

  it('splits the timestamp', () => {
    expect(splitTimestamp('2026-11-28T10:00:00.123456789Z hello world')).toEqual({ ts: '2026-11-28T10:00:00.123456789Z', text: 'hello world' });
    expect(splitTimestamp('no time here')).toEqual({ ts: '', text: 'no time here' });
  });

  it('a ring: stays at max, keeps the newest lines in order, finds each by seq', () => {
    const b = new LogBuffer(1000);
    for (let i = 0; i < 100; i++) b.append(Array.from({ length: 100 }, (_, j) => ({ ts: '', text: `l${i * 100 + j}` })));
    expect(b.length).toBe(1000);
    expect(b.firstSeq).toBe(9000);
    expect(b.lastSeq).toBe(9999);
    expect(b.all().map((l) => l.text)).toEqual(Array.from({ length: 1000 }, (_, i) => `l${9000 + i}`));
    expect(b.at(b.firstSeq)!.text).toBe('l9000');
    expect(b.at(8999)).toBeUndefined();
    expect(b.at(10_000)).toBeUndefined();
    expect(b.dropped + b.length).toBe(10_000);
    b.clear();
    expect([b.length, b.firstSeq, b.at(9999)]).toEqual([0, 10_000, undefined]);
    b.append([{ ts: '', text: 'after' }]);
    expect(b.at(10_000)!.text).toBe('after');
  });

  it('batches: streams push, the buffer changes once a frame; what waits stays bounded', () => {
    const b = new LogBuffer(100);
    const frames: (() => void)[] = [];
    const flushed: number[] = [];
    const batch = new LogBatcher(b, (f) => frames.push(f), (v) => flushed.push(v));
    batch.push([{ ts: '', text: 'a' }]);
    batch.push([{ ts: '', text: 'b' }, { ts: '', text: 'c' }]);
    expect(frames).toHaveLength(1);
    expect(b.length).toBe(0);
    expect(batch.backlog).toBe(3);
    frames.shift()!();
    expect(b.all().map((l) => l.text)).toEqual(['a', 'b', 'c']);
    expect(flushed).toEqual([b.version]);
    // no frames (a hidden tab): past max waiting lines go into the ring at once
    for (let i = 0; i < 30; i++) batch.push(Array.from({ length: 10 }, (_, j) => ({ ts: '', text: `x${i * 10 + j}` })));
    expect(batch.backlog).toBeLessThanOrEqual(100);
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(b.length).toBe(100);
    expect(b.at(b.lastSeq)!.text).toBe('x299');
    batch.close();
    batch.push([{ ts: '', text: 'late' }]);
    expect(frames).toHaveLength(0);
  });

  it('drops on resume only the lines already seen at the resume timestamp', () => {
    const m = new ResumeMark();
    m.note('t1', 'a');
    m.note('t2', 'b');
    m.note('t2', 'c');
    const keep = m.filter();
    expect(keep('t2', 'b')).toBe(false);
    expect(keep('t2', 'c')).toBe(false);
    expect(keep('t2', 'c')).toBe(true); // a new line with the same text and time
    expect(keep('t3', 'b')).toBe(true);
  });
});
