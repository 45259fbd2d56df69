import { describe, expect, it } from 'vitest';
import { LineSplitter, LogBuffer, ResumeMark, logPath, logQuery, splitTimestamp } from './pod-logs.js';

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

  it('stays bounded and keeps the newest lines', () => {
    const b = new LogBuffer(1000);
    for (let i = 0; i < 100; i++) b.append(Array.from({ length: 100 }, (_, j) => ({ ts: '', text: `l${i * 100 + j}` })));
    expect(b.length).toBeLessThanOrEqual(1000 + 1000 / 16);
    expect(b.all().at(-1)!.text).toBe('l9999');
    expect(b.at(b.firstSeq)!.text).toBe(`l${b.firstSeq}`);
    expect(b.dropped + b.length).toBe(10_000);
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
