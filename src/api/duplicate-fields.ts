// Duplicate object keys, with their field paths (`metadata.name`, `spec.containers[0].image`), for field validation.
import { visit } from 'jsonc-parser';
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

function join(path: (string | number)[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}

/** Paths of keys that appear twice in the same JSON object, in document order. */
export function jsonDuplicateFields(text: string): string[] {
  const dups: string[] = [];
  const stack: { keys: Set<string> | undefined; index: number }[] = [];
  const path: (string | number)[] = [];
  // jsonc-parser reports the path of each property; track keys per open object
  visit(
    text,
    {
      onObjectBegin: () => {
        stack.push({ keys: new Set(), index: -1 });
      },
      onObjectEnd: () => {
        stack.pop();
      },
      onArrayBegin: () => {
        stack.push({ keys: undefined, index: -1 });
      },
      onArrayEnd: () => {
        stack.pop();
      },
      onObjectProperty: (property, _o, _l, _sl, _sc, pathSupplier) => {
        const top = stack[stack.length - 1];
        if (!top?.keys) return;
        if (top.keys.has(property)) {
          path.length = 0;
          path.push(...pathSupplier(), property);
          dups.push(join(path));
        } else top.keys.add(property);
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
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
