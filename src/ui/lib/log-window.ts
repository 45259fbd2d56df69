// What the Logs tab draws of a buffer holding up to 50k lines: only the lines in view. Every line has a
// row count (1, or with wrap the monospace columns it fills) and a start row; the start rows live in a
// ring beside the buffer's, so a new line costs O(1), finding the line at a scroll offset O(log n), and
// only a change of the layout (wrap, width, timestamps) goes over every line again. Match counts of the
// search work the same way: new lines are scanned as they come, a new query in slices of bounded size.

/** The part of LogBuffer the window reads. */
export interface LineSource<L> {
  readonly max: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  at(seq: number): L | undefined;
}

export class RowIndex<L> {
  private readonly start: Float64Array;
  private readonly rows: Uint32Array;
  /** Last seq whose start row is known (for the current layout). */
  private through = -1;
  private layout = '';

  constructor(
    readonly max: number,
    private readonly width: (line: L) => number,
  ) {
    this.start = new Float64Array(max);
    this.rows = new Uint32Array(max);
  }

  /** Brings the index up to `last` (≤ buffer.lastSeq); `cols` 0 means no wrap (one row a line). */
  sync(buf: LineSource<L>, last: number, cols: number, layoutKey: string): void {
    const key = `${cols}|${layoutKey}`;
    if (key !== this.layout || this.through < buf.firstSeq - 1 || this.through > buf.lastSeq) {
      this.layout = key;
      this.through = buf.firstSeq - 1;
    }
    for (let seq = this.through + 1; seq <= last; seq++) {
      const line = buf.at(seq);
      if (!line) break;
      const n = cols > 0 ? Math.max(1, Math.ceil(this.width(line) / cols)) : 1;
      const i = seq % this.max;
      // start rows are relative to an arbitrary base: only differences are read
      this.start[i] = seq === buf.firstSeq ? 0 : this.startOf(seq - 1) + this.rowsOf(seq - 1);
      this.rows[i] = n;
      this.through = seq;
    }
  }

  startOf(seq: number): number {
    return this.start[seq % this.max]!;
  }
  rowsOf(seq: number): number {
    return this.rows[seq % this.max]!;
  }

  /** Rows from the first line held through `last`. */
  height(buf: LineSource<L>, last: number): number {
    if (last < buf.firstSeq) return 0;
    return this.startOf(last) + this.rowsOf(last) - this.startOf(buf.firstSeq);
  }

  /** The line at `row` (counted from the first line held), clamped to [firstSeq, last]. */
  seqAt(buf: LineSource<L>, row: number, last: number): number {
    const base = this.startOf(buf.firstSeq);
    let lo = buf.firstSeq;
    let hi = last;
    if (hi < lo) return lo;
    const target = base + Math.max(0, row);
    while (lo < hi) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      if (this.startOf(mid) <= target) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Row (from the first line held) where `seq` starts. */
  rowOf(buf: LineSource<L>, seq: number): number {
    return this.startOf(seq) - this.startOf(buf.firstSeq);
  }
}

/** Lines `from`..`to` to draw for a viewport of `viewRows` rows at `topRow`, with `overscan` lines around. */
export function visibleRange<L>(idx: RowIndex<L>, buf: LineSource<L>, last: number, topRow: number, viewRows: number, overscan: number): { from: number; to: number } {
  if (last < buf.firstSeq) return { from: buf.firstSeq, to: buf.firstSeq - 1 };
  const first = idx.seqAt(buf, topRow, last);
  const end = idx.seqAt(buf, topRow + viewRows, last);
  return { from: Math.max(buf.firstSeq, first - overscan), to: Math.min(last, end + overscan) };
}

/**
 * Seqs of the lines whose text holds the query (lower-cased), kept as lines arrive and leave: a queue
 * with a moving head (dropped lines leave from the front in O(1) amortised). A new query is scanned
 * `budget` lines per call; `done` says when the count is complete.
 */
export class MatchIndex<L> {
  private seqs: number[] = [];
  private head = 0;
  private through = -1;
  private query = '';

  constructor(private readonly text: (line: L) => string) {}

  /** Scans up to `budget` lines up to `last`. Returns whether every line through `last` is counted. */
  update(buf: LineSource<L>, query: string, last: number, budget = Infinity): boolean {
    const q = query.toLowerCase();
    if (q !== this.query || this.through > buf.lastSeq) {
      this.query = q;
      this.seqs = [];
      this.head = 0;
      this.through = buf.firstSeq - 1;
    }
    if (!q) return true;
    while (this.head < this.seqs.length && this.seqs[this.head]! < buf.firstSeq) this.head++;
    if (this.head > 1024 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.head = 0;
    }
    let seq = Math.max(this.through + 1, buf.firstSeq);
    const stop = Math.min(last, seq + budget - 1);
    for (; seq <= stop; seq++) {
      const l = buf.at(seq);
      if (l && this.text(l).toLowerCase().includes(q)) this.seqs.push(seq);
    }
    this.through = Math.max(this.through, stop);
    return this.through >= last;
  }

  /** Matching lines held, up to `last`. */
  count(last: number): number {
    let n = this.seqs.length;
    while (n > this.head && this.seqs[n - 1]! > last) n--;
    return n - this.head;
  }
}
