// Where a field lives in the editor's text: YAML or JSON (JSON is YAML too, so the `yaml` package's
// node ranges serve both). Turns server field causes into editor markers and managed fields into
// per-line owners.
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import type { ManagedFieldsEntry } from '../../client/index.js';
import { fieldsV1Paths, formatFieldPath, matchesKey, parseFieldPath, type Segment } from './field-paths.js';

export interface TextRange {
  /** 1-based, as Monaco counts. */
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

export interface Located extends TextRange {
  /** Only a prefix of the path exists in the text; the range is that prefix's. */
  partial: boolean;
}

/** A parsed text, reusable for many lookups. */
export interface TextIndex {
  locate(segs: Segment[]): Located | undefined;
}

function plain(n: unknown): unknown {
  if (isScalar(n)) return n.value;
  if (isMap(n)) return Object.fromEntries(n.items.map((p) => [String(isScalar(p.key) ? p.key.value : p.key), plain(p.value)]));
  if (isSeq(n)) return n.items.map(plain);
  return undefined;
}

export function indexText(text: string): TextIndex {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: false, uniqueKeys: false });
  const lineEnd = (line: number): number => {
    const start = lines.lineStarts[line - 1] ?? 0;
    const next = lines.lineStarts[line] ?? text.length + 1;
    return next - start; // column just past the last character (1-based)
  };
  const rangeOf = (from: number, to: number, partial: boolean): Located => {
    const a = lines.linePos(from);
    const b = lines.linePos(Math.max(from, to));
    // mark the first line only: a whole block value would paint half the editor
    const endColumn = b.line === a.line ? Math.max(b.col, a.col + 1) : lineEnd(a.line);
    return { startLine: a.line, startColumn: a.col, endLine: a.line, endColumn, partial };
  };
  return {
    locate(segs) {
      let node: unknown = doc.contents;
      // the range of the last thing matched: a key (with its value when on the same line), or an item
      let range: [number, number] | undefined;
      for (let i = 0; i < segs.length; i++) {
        const s = segs[i]!;
        let next: unknown;
        let r: [number, number] | undefined;
        if ('field' in s && isMap(node)) {
          const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === s.field);
          if (pair) {
            next = pair.value;
            const k = (pair.key as YamlNode).range!;
            const v = (pair.value as YamlNode | null)?.range;
            r = [k[0], isScalar(pair.value) && v ? v[1] : k[1]];
          }
        } else if (isSeq(node)) {
          let idx = -1;
          if ('index' in s) idx = s.index < node.items.length ? s.index : -1;
          else if ('key' in s) idx = node.items.findIndex((it) => matchesKey(plain(it), s.key));
          else if ('value' in s) idx = node.items.findIndex((it) => isScalar(it) && String(it.value) === String(s.value));
          else if ('field' in s && /^\d+$/.test(s.field)) idx = Number(s.field);
          if (idx >= 0) {
            next = node.items[idx];
            const nr = (next as YamlNode).range;
            if (nr) r = [nr[0], nr[1]];
          }
        }
        if (!r) return range ? rangeOf(range[0], range[1], true) : undefined;
        range = r;
        node = next;
      }
      return range ? rangeOf(range[0], range[1], false) : undefined;
    },
  };
}

// ---------------------------------------------------------------- markers from server answers

export type MarkerSeverity = 'error' | 'warning' | 'info';

export interface FieldMarker extends TextRange {
  message: string;
  severity: MarkerSeverity;
  /** The path as the server wrote it. */
  field: string;
}

export interface FieldMessage {
  field: string;
  message: string;
  severity: MarkerSeverity;
}

/** Unknown or duplicate fields named in a strict-decoding error or in Warning headers. */
export function fieldsInDecodingMessage(text: string): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const re = /(unknown field|duplicate field) "((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const field = m[2]!.replace(/\\"/g, '"');
    out.push({ field, message: `${m[1]} "${field}"` });
  }
  return out;
}

/**
 * Markers for field messages, placed on the first line of each field (or of its deepest ancestor in
 * the text). Fields that name no place in the text are returned in `unplaced`.
 */
export function markersFor(text: string, messages: FieldMessage[]): { markers: FieldMarker[]; unplaced: FieldMessage[] } {
  const idx = indexText(text);
  const markers: FieldMarker[] = [];
  const unplaced: FieldMessage[] = [];
  for (const m of messages) {
    const loc = idx.locate(parseFieldPath(m.field));
    if (!loc) unplaced.push(m);
    else markers.push({ ...loc, message: loc.partial ? `${m.field}: ${m.message}` : m.message, severity: m.severity, field: m.field });
  }
  return { markers, unplaced };
}

// ---------------------------------------------------------------- managed fields overlay

export interface LineOwners {
  line: number;
  /** Managers owning the field whose key (or list item) starts on this line. */
  owners: { manager: string; operation: string; subresource?: string; field: string }[];
}

/** Which managers own the field on each line of the text (first line of each owned field). */
export function ownersByLine(text: string, entries: ManagedFieldsEntry[] | undefined): LineOwners[] {
  const idx = indexText(text);
  const byLine = new Map<number, LineOwners>();
  for (const e of entries ?? []) {
    for (const segs of fieldsV1Paths(e.fieldsV1)) {
      const loc = idx.locate(segs);
      if (!loc || loc.partial) continue;
      let lo = byLine.get(loc.startLine);
      if (!lo) byLine.set(loc.startLine, (lo = { line: loc.startLine, owners: [] }));
      const manager = e.manager ?? '(unknown)';
      if (!lo.owners.some((o) => o.manager === manager && o.operation === (e.operation ?? '') && o.subresource === e.subresource))
        lo.owners.push({ manager, operation: e.operation ?? '', subresource: e.subresource, field: formatFieldPath(segs) });
    }
  }
  return [...byLine.values()].sort((a, b) => a.line - b.line);
}
