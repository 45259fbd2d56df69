// Distinct keys in UTF-8 byte order, kept in sorted chunks of at most CHUNK keys with binary search.
// One flat array cost a memmove of half the keys per insert in the middle (a memory store of 100k
// objects named out of key order, as `p-9` < `p-10` is not); a chunk bounds that to CHUNK keys.
import { compareKeys } from './keys.js';

const CHUNK = 1024;

export class SortedKeys {
  /** Non-empty sorted chunks, in order (no chunk when empty). */
  private chunks: string[][] = [];
  /** offsets[c]: global index of chunks[c][0]; valid when !dirty. */
  private offsets: number[] = [];
  private dirty = false;
  private size = 0;

  /** `chunk`: keys a chunk holds before it splits in two (small in tests, to split often). */
  constructor(private readonly chunk = CHUNK) {}

  get length(): number {
    return this.size;
  }

  /** Index of the first key >= key. */
  lowerBound(key: string): number {
    const c = this.chunkFor(key);
    if (c === this.chunks.length) return this.size;
    return this.offsetOf(c) + lowerIn(this.chunks[c]!, key);
  }

  /** Index of the first key >= end, or length when end is undefined. */
  endIndex(end: string | undefined): number {
    return end === undefined ? this.size : this.lowerBound(end);
  }

  at(index: number): string {
    if (index < 0 || index >= this.size) return undefined as unknown as string;
    this.index();
    const offsets = this.offsets;
    // last chunk whose offset <= index
    let lo = 0;
    let hi = offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[mid]! <= index) lo = mid + 1;
      else hi = mid;
    }
    return this.chunks[lo - 1]![index - offsets[lo - 1]!]!;
  }

  insert(key: string): void {
    const chunks = this.chunks;
    if (chunks.length === 0) {
      chunks.push([key]);
      this.offsets = [0];
      this.size = 1;
      return;
    }
    let c = this.chunkFor(key);
    // past the last key: the last chunk takes it (the common append)
    if (c === chunks.length) c--;
    const chunk = chunks[c]!;
    const i = lowerIn(chunk, key);
    if (chunk[i] === key) return;
    if (i === chunk.length) chunk.push(key);
    else chunk.splice(i, 0, key);
    this.size++;
    if (chunk.length > 2 * this.chunk) chunks.splice(c + 1, 0, chunk.splice(this.chunk));
    this.dirty = true;
  }

  remove(key: string): void {
    const c = this.chunkFor(key);
    if (c === this.chunks.length) return;
    const chunk = this.chunks[c]!;
    const i = lowerIn(chunk, key);
    if (chunk[i] !== key) return;
    chunk.splice(i, 1);
    this.size--;
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.dirty = true;
  }

  /** Removes many keys with one pass over the keys. */
  removeAll(doomed: Set<string>): void {
    if (doomed.size === 0) return;
    if (doomed.size === 1) {
      for (const key of doomed) this.remove(key);
      return;
    }
    const kept: string[][] = [];
    let size = 0;
    for (const chunk of this.chunks) {
      const left = chunk.filter((k) => !doomed.has(k));
      if (left.length > 0) kept.push(left), (size += left.length);
    }
    this.chunks = kept;
    this.size = size;
    this.dirty = true;
  }

  /** Index of the first chunk whose last key is >= key (chunks.length when none). */
  private chunkFor(key: string): number {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const ch = chunks[mid]!;
      if (compareKeys(ch[ch.length - 1]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private offsetOf(c: number): number {
    this.index();
    return this.offsets[c]!;
  }

  private index(): void {
    if (!this.dirty) return;
    const offsets = new Array<number>(this.chunks.length);
    let at = 0;
    for (let c = 0; c < this.chunks.length; c++) {
      offsets[c] = at;
      at += this.chunks[c]!.length;
    }
    this.offsets = offsets;
    this.dirty = false;
  }
}

function lowerIn(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keys[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
