// Duplicate object keys, with their field paths (`metadata.name`, `spec.containers[0].image`), for field validation.
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

function join(path: (string | number)[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}

/** Reported duplicates are capped: each carries its full path, and the warnings are truncated anyway. */
export const MAX_REPORTED_DUPLICATES = 1000;

interface JsonFrame {
  /** Keys seen so far (objects only). */
  keys: Set<string> | undefined;
  /** The path of this container, built when a duplicate inside needs it. */
  path: string | undefined;
  parent: JsonFrame | undefined;
  /** How this container is reached from its parent: a key or an index. */
  seg: string | number | undefined;
  key: string;
  index: number;
}

function framePath(f: JsonFrame): string {
  if (f.path !== undefined) return f.path;
  // iterative: collect the unbuilt ancestors, then build downwards
  const chain: JsonFrame[] = [];
  for (let g: JsonFrame | undefined = f; g && g.path === undefined; g = g.parent) chain.push(g);
  for (let i = chain.length - 1; i >= 0; i--) {
    const g = chain[i]!;
    const base = g.parent?.path ?? '';
    g.path = g.seg === undefined ? '' : typeof g.seg === 'number' ? `${base}[${g.seg}]` : base ? `${base}.${g.seg}` : g.seg;
  }
  return f.path!;
}

/**
 * Paths of keys that appear twice in the same JSON object, in document order. Scans the text with an
 * explicit stack (no recursion: bodies may nest 10,000 levels); expects text JSON.parse accepted.
 */
export function jsonDuplicateFields(text: string): string[] {
  const dups: string[] = [];
  let top: JsonFrame | undefined;
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (!top?.keys || !expectKey) continue;
      expectKey = false;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      top.key = key;
      if (!top.keys.has(key)) top.keys.add(key);
      else if (dups.length < MAX_REPORTED_DUPLICATES) {
        const base = framePath(top);
        dups.push(base ? `${base}.${key}` : key);
      }
    } else if (c === 0x7b || c === 0x5b) {
      const seg = top === undefined ? undefined : top.keys ? top.key : top.index;
      top = { keys: c === 0x7b ? new Set() : undefined, path: undefined, parent: top, seg, key: '', index: 0 };
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      top = top?.parent;
      expectKey = false;
    } else if (c === 0x2c && top) {
      if (top.keys) expectKey = true;
      else top.index++;
    }
  }
  return dups;
}

/** Paths of duplicate keys in a parsed YAML document (parse it with uniqueKeys: false). */
export function yamlDuplicateFields(doc: Document): string[] {
  const dups: string[] = [];
  const walk = (node: Node | null | undefined, path: (string | number)[]) => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(key)) dups.push(join([...path, key]));
        seen.add(key);
        walk(pair.value as Node, [...path, key]);
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => walk(item as Node, [...path, i]));
  };
  walk(doc.contents as Node, []);
  return dups;
}

/**
 * Paths of duplicate map keys in one CBOR data item (RFC 8949), found by walking its structure:
 * decoders keep the last value silently, field validation must report them.
 */
export function cborDuplicateFields(bytes: Uint8Array): string[] {
  const dups: string[] = [];
  let pos = 0;
  const text = new TextDecoder();
  const head = (): { major: number; value: number; indefinite: boolean } => {
    const b = bytes[pos++]!;
    const major = b >> 5;
    const info = b & 31;
    if (info < 24) return { major, value: info, indefinite: false };
    if (info === 31) return { major, value: 0, indefinite: true };
    const len = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 8;
    let v = 0;
    for (let i = 0; i < len; i++) v = v * 256 + bytes[pos++]!;
    return { major, value: v, indefinite: false };
  };
  const isBreak = () => bytes[pos] === 0xff;
  // returns the decoded text for text-string keys, undefined for anything else
  const item = (path: (string | number)[]): string | undefined => {
    if (pos >= bytes.length) throw new Error('truncated CBOR');
    const h = head();
    switch (h.major) {
      case 0:
      case 1:
      case 7:
        return undefined;
      case 2:
      case 3: {
        if (h.indefinite) {
          let s = '';
          while (!isBreak()) {
            const c = head();
            s += h.major === 3 ? text.decode(bytes.subarray(pos, pos + c.value)) : '';
            pos += c.value;
          }
          pos++;
          return h.major === 3 ? s : undefined;
        }
        const s = h.major === 3 ? text.decode(bytes.subarray(pos, pos + h.value)) : undefined;
        pos += h.value;
        return s;
      }
      case 4: {
        for (let i = 0; h.indefinite ? !isBreak() : i < h.value; i++) item([...path, i]);
        if (h.indefinite) pos++;
        return undefined;
      }
      case 5: {
        const seen = new Set<string>();
        for (let i = 0; h.indefinite ? !isBreak() : i < h.value; i++) {
          const key = item(path);
          const k = key ?? `#${i}`;
          if (key !== undefined && seen.has(key)) dups.push(join([...path, key]));
          seen.add(k);
          item([...path, k]);
        }
        if (h.indefinite) pos++;
        return undefined;
      }
      case 6:
        return item(path);
      default:
        return undefined;
    }
  };
  item([]);
  return dups;
}
