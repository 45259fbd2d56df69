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
