// A sorted array of distinct keys in UTF-8 byte order with binary search.
// Inserts cost a memmove, which stays cheap well past 100k keys and is
// nearly free for the common append-at-end case.
import { compareKeys } from './keys.js';

export class SortedKeys {
  private keys: string[] = [];

  get length(): number {
    return this.keys.length;
  }

  /** Index of the first key >= key. */
  lowerBound(key: string): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(keys[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first key >= end, or length when end is undefined. */
  endIndex(end: string | undefined): number {
    return end === undefined ? this.keys.length : this.lowerBound(end);
  }

  at(index: number): string {
    return this.keys[index];
  }

  insert(key: string): void {
    const keys = this.keys;
    const n = keys.length;
    if (n === 0 || compareKeys(keys[n - 1], key) < 0) {
      keys.push(key);
      return;
    }
    const i = this.lowerBound(key);
    if (keys[i] !== key) keys.splice(i, 0, key);
  }

  remove(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** Removes many keys with one pass over the array. */
  removeAll(doomed: Set<string>): void {
    if (doomed.size === 0) return;
    if (doomed.size === 1) {
      for (const key of doomed) this.remove(key);
      return;
    }
    this.keys = this.keys.filter((k) => !doomed.has(k));
  }
}
