// Key ordering shared by every backend: keys sort by the bytes of their UTF-8
// encoding (what etcd and SQLite's BINARY collation do), not by UTF-16 units.

/** A UTF-16 unit at or above the surrogates: only there does UTF-16 order differ from UTF-8 byte order. */
const HIGH_UNIT = /[\ud800-\uffff]/;

/** Compare two keys in UTF-8 byte order. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  // the first difference pairs two units >= U+D800 only if both keys hold one: otherwise the engine's
  // UTF-16 comparison is the UTF-8 order (and several times faster than the loop below)
  if (!HIGH_UNIT.test(a) || !HIGH_UNIT.test(b)) return a < b ? -1 : 1;
  return compareUnits(a, b);
}

function compareUnits(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // UTF-16 order differs from code point order only when a surrogate
      // (U+D800-DFFF, i.e. a code point above U+FFFF) meets U+E000-FFFF.
      if (x >= 0xd800 && y >= 0xd800) return utf8Rank(x) - utf8Rank(y);
      return x - y;
    }
  }
  return a.length - b.length;
}

function utf8Rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * The smallest key greater than every key starting with prefix, or undefined
 * when there is none (empty prefix). Incrementing the last code point works
 * because code point order equals UTF-8 byte order.
 */
export function prefixEnd(prefix: string): string | undefined {
  // fast path: a last unit outside the surrogates and below U+D7FF/U+FFFF is a code point of its own
  const last = prefix.length > 0 ? prefix.charCodeAt(prefix.length - 1) : -1;
  if (last >= 0 && last < 0xd7ff) return prefix.slice(0, -1) + String.fromCharCode(last + 1);
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** Lower bound for a range: the later of prefix and startKey. */
export function rangeStart(prefix: string, startKey: string | undefined): string {
  if (startKey === undefined || compareKeys(startKey, prefix) < 0) return prefix;
  return startKey;
}
