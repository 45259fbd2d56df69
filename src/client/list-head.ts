// Reads a list's `metadata` (continue token, resourceVersion) from the first bytes of its JSON body, before
// the rows or items have arrived. Servers write it first (upstream's list and Table types start with
// kind, apiVersion, metadata), so the next chunk can be asked for while this one still downloads.

export interface ListHeadMetadata {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** found: the metadata object; more: the prefix ends before it is known; none: it does not come first. */
export type ListHead = { state: 'found'; metadata: ListHeadMetadata } | { state: 'more' } | { state: 'none' };

const MORE: ListHead = { state: 'more' };
const NONE: ListHead = { state: 'none' };

function skipSpace(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index after the string starting at s[i] (a quote), or -1 when it runs past the prefix. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** Index after the value starting at s[i], or -1 when it runs past the prefix; iterative, so any depth is fine. */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') {
        const e = stringEnd(s, j);
        if (e < 0) return -1;
        j = e - 1;
      } else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // number or literal: up to the next delimiter, which must be in the prefix for the value to be whole
  for (let j = i; j < s.length; j++) {
    const d = s[j];
    if (d === ',' || d === '}' || d === ']' || d === ' ' || d === '\n' || d === '\r' || d === '\t') return j;
  }
  return -1;
}

/** The top-level `metadata` of a JSON list body, from a prefix of it. Never throws. */
export function listHead(prefix: string): ListHead {
  let i = skipSpace(prefix, 0);
  if (i >= prefix.length) return MORE;
  if (prefix[i] !== '{') return NONE;
  i++;
  for (;;) {
    i = skipSpace(prefix, i);
    if (i >= prefix.length) return MORE;
    if (prefix[i] !== '"') return NONE;
    const keyEnd = stringEnd(prefix, i);
    if (keyEnd < 0) return MORE;
    let key: string;
    try {
      key = JSON.parse(prefix.slice(i, keyEnd)) as string;
    } catch {
      return NONE;
    }
    i = skipSpace(prefix, keyEnd);
    if (i >= prefix.length) return MORE;
    if (prefix[i] !== ':') return NONE;
    i = skipSpace(prefix, i + 1);
    if (i >= prefix.length) return MORE;
    // the bulk of the body: metadata after it would arrive only with everything else
    if (key === 'rows' || key === 'items') return NONE;
    const end = valueEnd(prefix, i);
    if (end < 0) return MORE;
    if (key === 'metadata') {
      if (prefix[i] !== '{') return NONE;
      try {
        const m = JSON.parse(prefix.slice(i, end)) as Record<string, unknown>;
        const out: ListHeadMetadata = {};
        if (typeof m.resourceVersion === 'string') out.resourceVersion = m.resourceVersion;
        if (typeof m.continue === 'string' && m.continue) out.continue = m.continue;
        if (typeof m.remainingItemCount === 'number') out.remainingItemCount = m.remainingItemCount;
        return { state: 'found', metadata: out };
      } catch {
        return NONE;
      }
    }
    i = skipSpace(prefix, end);
    if (i >= prefix.length) return MORE;
    if (prefix[i] !== ',') return NONE;
    i++;
  }
}
