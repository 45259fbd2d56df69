// Reading a configuration document from YAML or JSON text (JSON is read as YAML 1.2, of which it is
// a subset). Syntax errors, several documents and duplicate keys are reported as problems; a
// locator maps a problem's path back to the text for editors.

import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
import { child, index, type ConfigProblem } from './problems.js';

export interface ParsedConfigText {
  /** The document as plain data; absent when the text could not be read or holds no document. */
  doc?: unknown;
  problems: ConfigProblem[];
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

function duplicateKeys(node: unknown, path: string, out: ConfigProblem[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = keyText(pair.key);
      const p = child(path, key);
      if (seen.has(key)) out.push({ path: p, message: `duplicate field "${key}"`, severity: 'error' });
      seen.add(key);
      duplicateKeys(pair.value, p, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => duplicateKeys(item, index(path, i), out));
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** Parses YAML or JSON holding exactly one configuration document. */
export function parseConfigText(text: string): ParsedConfigText {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { uniqueKeys: false, lineCounter, prettyErrors: false });
  const docs: Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  const problems: ConfigProblem[] = [];
  const withContent = docs.filter((d) => d.contents !== null || d.errors.length > 0);
  if (withContent.length === 0) {
    problems.push({ path: '', message: 'Required value: the text holds no document', severity: 'error' });
    return { problems };
  }
  if (withContent.length > 1) {
    problems.push({ path: '', message: `expected one document, found ${withContent.length}; put each configuration in its own file`, severity: 'error' });
  }
  const doc = withContent[0]!;
  for (const e of doc.errors) {
    const pos = lineCounter.linePos(e.pos[0]);
    const where = `line ${pos.line}, column ${pos.col}: `;
    problems.push({ path: '', message: `yaml: ${where}${firstLine(e.message)}`, severity: 'error' });
  }
  if (doc.errors.length > 0) return { problems };
  duplicateKeys(doc.contents, '', problems);
  return { doc: doc.toJS({ maxAliasCount: 100 }), problems };
}

/** Splits `jwt[1].claimMappings.username` into `['jwt', 1, 'claimMappings', 'username']`. */
export function splitConfigPath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  }
  return out;
}

export interface TextLocation {
  /** Character offsets into the text. */
  start: number;
  end: number;
  /** 1-based line and column of `start`. */
  line: number;
  column: number;
}

/**
 * Where a problem path sits in the text: the value at the path, or for a missing field the
 * closest enclosing node that exists. Undefined when the text does not parse.
 */
export function locateConfigPath(text: string, path: string): TextLocation | undefined {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { uniqueKeys: false, lineCounter });
  const doc = Array.isArray(parsed) ? parsed.find((d) => d.contents !== null) : undefined;
  if (!doc || !doc.contents) return undefined;
  let node: YamlNode = doc.contents;
  for (const seg of splitConfigPath(path)) {
    if (typeof seg === 'number' && isSeq(node)) {
      const item = node.items[seg];
      if (!item || isPair(item)) break;
      node = item as YamlNode;
    } else if (typeof seg === 'string' && isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === seg);
      if (!pair) break;
      // A key without a value (`groups:`) points at the key itself.
      node = ((pair.value as YamlNode | null) ?? (pair.key as YamlNode)) as YamlNode;
      if (!pair.value) break;
    } else break;
  }
  const [start, , end] = node.range ?? [0, 0, 0];
  const pos = lineCounter.linePos(start);
  return { start, end, line: pos.line, column: pos.col };
}
