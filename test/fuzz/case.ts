// One fuzz case: a raw HTTP request plus what the properties need to know about it.

export interface FuzzCase {
  /** Short description for reports (family and the interesting part of the input). */
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Storage prefix whose keys and revisions must be unchanged when the request is rejected. */
  guard?: string;
  /** Upstream rejects this input (a limit it enforces): a 2xx/3xx answer is a failure too. */
  expectReject?: boolean;
}

const enc = new TextEncoder();
export const utf8 = (s: string): Uint8Array => enc.encode(s);

/** A compact, printable description of a case (bodies abbreviated). */
export function describeCase(c: FuzzCase): string {
  const hdrs = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${abbrev(v, 80)}`)
    .join('; ');
  let body = '';
  if (c.body) {
    const text = Buffer.from(c.body.subarray(0, 120)).toString('latin1').replace(/[^\x20-\x7e]/g, '.');
    body = ` body(${c.body.byteLength} B)=${JSON.stringify(text)}`;
  }
  return `[${c.label}] ${c.method} ${abbrev(c.path, 200)} {${hdrs}}${body}`;
}

export function abbrev(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…(${s.length})`;
}

/** Minimal CBOR writer for hand-built hostile documents (tags the codec would never emit). */
export const cbor = {
  head(major: number, n: number): number[] {
    const m = major << 5;
    if (n < 24) return [m | n];
    if (n < 0x100) return [m | 24, n];
    if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
    return [m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  },
  text(s: string): number[] {
    const b = [...enc.encode(s)];
    return [...cbor.head(3, b.length), ...b];
  },
  selfDescribed: [0xd9, 0xd9, 0xf7],
};
