// Media types: parsing of Accept / Content-Type values with parameters and quality values.

export interface MediaRange {
  type: string; // e.g. application
  subtype: string; // e.g. json
  params: Record<string, string>;
  q: number;
}

export const MEDIA = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: 'application/vnd.service.protobuf',
  protobufUpstream: 'application/vnd.kubernetes.protobuf',
  cbor: 'application/cbor',
  cborSeq: 'application/cbor-seq',
  jsonPatch: 'application/json-patch+json',
  mergePatch: 'application/merge-patch+json',
  strategicMergePatch: 'application/strategic-merge-patch+json',
  applyPatchYaml: 'application/apply-patch+yaml',
  applyPatchCbor: 'application/apply-patch+cbor',
} as const;

/** Parses one media type (`application/json;as=Table;g=meta.service.io;v=v1`). Lower-cases type and parameter names. */
export function parseMediaType(value: string): MediaRange | undefined {
  const parts = splitParams(value);
  const essence = parts[0]!.trim().toLowerCase();
  const slash = essence.indexOf('/');
  if (slash <= 0 || slash === essence.length - 1) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    if (k === 'q') {
      const n = Number(v);
      q = Number.isFinite(n) ? Math.max(0, Math.min(1, n)) : 1;
    } else params[k] = v;
  }
  return { type: essence.slice(0, slash), subtype: essence.slice(slash + 1), params, q };
}

/** Parses an Accept header into ranges, highest quality first (stable for equal q). Empty header = any. */
export function parseAccept(header: string | undefined | null): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const ranges: { r: MediaRange; i: number }[] = [];
  splitList(header).forEach((item, i) => {
    const r = parseMediaType(item);
    if (r && r.q > 0) ranges.push({ r, i });
  });
  ranges.sort((a, b) => b.r.q - a.r.q || a.i - b.i);
  return ranges.map((x) => x.r);
}

export function essence(r: MediaRange): string {
  return `${r.type}/${r.subtype}`;
}

export function formatMediaType(essenceValue: string, params: Record<string, string | undefined>): string {
  let s = essenceValue;
  for (const [k, v] of Object.entries(params)) if (v !== undefined) s += `;${k}=${v}`;
  return s;
}

function splitList(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function splitParams(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}
