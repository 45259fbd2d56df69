// Edits of the YAML text by field path, so form changes keep the user's comments, key order and
// formatting everywhere else in the document.
import { isCollection, isMap, isPair, isScalar, isSeq, parseDocument, stringify, type Document } from 'yaml';
import type { Path } from './paths.js';

export type EditOp =
  /** Sets a value; `undefined` removes the field (or list item). */
  | { op: 'set'; path: Path; value: unknown }
  | { op: 'insert'; path: Path; index: number; value: unknown }
  | { op: 'remove'; path: Path; index: number }
  | { op: 'move'; path: Path; from: number; to: number };

export const TO_STRING = { lineWidth: 0, indentSeq: true } as const;

function seqAt(doc: Document, path: Path) {
  const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
  return isSeq(node) ? node : undefined;
}

/** An empty flow collection (`[]`, `{}`) that gets content turns into block style. */
function unflowEmptyParent(doc: Document, path: readonly unknown[]): void {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (!isCollection(node)) continue;
    if (node.flow && node.items.length === 0) node.flow = false;
    return;
  }
}

/** Flow collections holding non-empty collections read badly on one line: make them block style. */
function unflowNested(node: unknown): void {
  if (!isCollection(node)) return;
  const children = node.items.map((item) => (isPair(item) ? item.value : item));
  if (node.flow && children.some((c) => isCollection(c) && c.items.length > 0)) node.flow = false;
  for (const c of children) unflowNested(c);
}

function apply(doc: Document, e: EditOp): void {
  const p = e.path as unknown[];
  if (e.op === 'insert') unflowEmptyParent(doc, p);
  else if (e.op === 'set' && e.value !== undefined) unflowEmptyParent(doc, p.slice(0, -1));
  switch (e.op) {
    case 'set':
      if (e.value === undefined) {
        if (p.length > 0 && doc.hasIn(p)) doc.deleteIn(p);
      } else if (p.length === 0) doc.contents = doc.createNode(e.value);
      else {
        // Changing a scalar in place keeps its comment; the stringifier still quotes strings that
        // would otherwise read back as another type.
        const node = doc.getIn(p, true);
        if (isScalar(node) && (e.value === null || typeof e.value !== 'object')) {
          // `""` is quoted only because it is empty: the new value picks its own style.
          if (typeof e.value !== typeof node.value || node.value === '') node.type = undefined;
          node.value = e.value;
        } else doc.setIn(p, doc.createNode(e.value));
      }
      return;
    case 'insert': {
      const seq = seqAt(doc, e.path);
      if (!seq) {
        doc.setIn(p, doc.createNode([e.value]));
        return;
      }
      seq.items.splice(Math.max(0, Math.min(e.index, seq.items.length)), 0, doc.createNode(e.value));
      return;
    }
    case 'remove': {
      const seq = seqAt(doc, e.path);
      if (seq && e.index >= 0 && e.index < seq.items.length) seq.items.splice(e.index, 1);
      return;
    }
    case 'move': {
      const seq = seqAt(doc, e.path);
      if (!seq || e.from < 0 || e.from >= seq.items.length || e.to < 0 || e.to >= seq.items.length) return;
      const [item] = seq.items.splice(e.from, 1);
      seq.items.splice(e.to, 0, item!);
      return;
    }
  }
}

export class YamlEditError extends Error {}

/** Applies edits to YAML text; throws YamlEditError when the text does not parse. */
export function editYamlText(text: string, edits: readonly EditOp[]): string {
  const doc: Document = parseDocument(text.trim() === '' ? '{}\n' : text);
  if (doc.errors.length > 0) throw new YamlEditError('the YAML has syntax errors; fix them before editing in the form');
  if (!isMap(doc.contents) && edits.some((e) => e.path.length > 0)) doc.contents = doc.createNode({});
  for (const e of edits) apply(doc, e);
  unflowNested(doc.contents);
  // An emptied top-level flow map (`{}`) reads better as block style once it has content.
  if (isMap(doc.contents) && doc.contents.items.length > 0) doc.contents.flow = false;
  return doc.toString(TO_STRING);
}

/** YAML for a value, in the studio's style. */
export function toYaml(value: unknown): string {
  return stringify(value, TO_STRING);
}

/** Documents pasted or opened as JSON become YAML; YAML is kept as written. */
export function normalizeImportedText(text: string): string {
  const t = text.trim();
  if (!t.startsWith('{')) return text.endsWith('\n') || text === '' ? text : `${text}\n`;
  try {
    return toYaml(JSON.parse(t));
  } catch {
    return text;
  }
}
