import { describe, expect, it } from 'vitest';
import { LogBuffer, type LogLine } from '../data/pod-logs.js';
import { MatchIndex, RowIndex, visibleRange } from './log-window.js';

const lines = (from: number, n: number, text = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, j) => ({ ts: '', text: text(from + j) }));

describe('log window', () => {
  it('one row a line without wrap: height, line at a row, visible range with overscan', () => {
    const b = new LogBuffer(100);
    const idx = new RowIndex<LogLine>(100, (l) => l.text.length);
    b.append(lines(0, 30));
    idx.sync(b, b.lastSeq, 0, '');
    expect(idx.height(b, b.lastSeq)).toBe(30);
    expect(idx.seqAt(b, 12, b.lastSeq)).toBe(12);
    expect(visibleRange(idx, b, b.lastSeq, 10, 5, 2)).toEqual({ from: 8, to: 17 });
    // paused at 19: nothing past it
    expect(idx.height(b, 19)).toBe(20);
    expect(visibleRange(idx, b, 19, 15, 10, 2).to).toBe(19);
  });

  it('keeps working as the ring wraps: rows relative to the first line held', () => {
    const b = new LogBuffer(100);
    const idx = new RowIndex<LogLine>(100, (l) => l.text.length);
    for (let k = 0; k < 25; k++) {
      b.append(lines(k * 10, 10));
      idx.sync(b, b.lastSeq, 0, '');
    }
    expect(b.firstSeq).toBe(150);
    expect(idx.height(b, b.lastSeq)).toBe(100);
    expect(idx.seqAt(b, 0, b.lastSeq)).toBe(150);
    expect(idx.seqAt(b, 99, b.lastSeq)).toBe(249);
    expect(idx.rowOf(b, 200)).toBe(50);
  });

  it('with wrap a line fills ceil(width / columns) rows, re-laid out when the columns change', () => {
    const b = new LogBuffer(10);
    const idx = new RowIndex<LogLine>(10, (l) => l.text.length);
    b.append([{ ts: '', text: 'x'.repeat(25) }, { ts: '', text: '' }, { ts: '', text: 'y'.repeat(10) }]);
    idx.sync(b, b.lastSeq, 10, 'wrap');
    expect([idx.rowOf(b, 0), idx.rowOf(b, 1), idx.rowOf(b, 2)]).toEqual([0, 3, 4]);
    expect(idx.height(b, b.lastSeq)).toBe(5);
    expect(idx.seqAt(b, 2, b.lastSeq)).toBe(0);
    expect(idx.seqAt(b, 3, b.lastSeq)).toBe(1);
    idx.sync(b, b.lastSeq, 5, 'wrap');
    expect(idx.height(b, b.lastSeq)).toBe(5 + 1 + 2);
    idx.sync(b, b.lastSeq, 0, '');
    expect(idx.height(b, b.lastSeq)).toBe(3);
  });

  it('re-indexes when more lines arrive at once than the ring holds', () => {
    const b = new LogBuffer(10);
    const idx = new RowIndex<LogLine>(10, (l) => l.text.length);
    b.append(lines(0, 5));
    idx.sync(b, b.lastSeq, 0, '');
    b.append(lines(5, 40));
    idx.sync(b, b.lastSeq, 0, '');
    expect(idx.height(b, b.lastSeq)).toBe(10);
    expect(idx.seqAt(b, 3, b.lastSeq)).toBe(38);
  });

  it('counts matches incrementally, forgets dropped lines, stops at a pause, scans a new query in slices', () => {
    const b = new LogBuffer(100);
    const m = new MatchIndex<LogLine>((l) => l.text);
    b.append(lines(0, 50, (i) => (i % 5 === 0 ? `ERROR ${i}` : `ok ${i}`)));
    expect(m.update(b, 'error', b.lastSeq)).toBe(true);
    expect(m.count(b.lastSeq)).toBe(10);
    expect(m.count(24)).toBe(5);
    b.append(lines(50, 100, (i) => (i % 5 === 0 ? `error ${i}` : `ok ${i}`)));
    m.update(b, 'error', b.lastSeq);
    expect(m.count(b.lastSeq)).toBe(20); // 50..149 held: every fifth
    // a new query: 30 lines per call
    expect(m.update(b, 'ok 1', b.lastSeq, 30)).toBe(false);
    let calls = 1;
    while (!m.update(b, 'ok 1', b.lastSeq, 30)) calls++;
    expect(calls).toBe(3);
    const want = b.all().filter((l) => l.text.includes('ok 1')).length;
    expect(m.count(b.lastSeq)).toBe(want);
    expect(m.update(b, '', b.lastSeq)).toBe(true);
    expect(m.count(b.lastSeq)).toBe(0);
  });
});
