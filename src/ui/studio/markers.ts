// Problem paths to places in the YAML text, for editor markers and "reveal in YAML".
import { locateConfigPath, type ConfigProblem } from '../../config/index.js';
import type { EditorMarker } from '../monaco/index.js';

export interface TextRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** Where a problem is: YAML syntax errors carry "line N, column M"; field problems are located by path. */
export function problemRange(text: string, problem: ConfigProblem): TextRange | undefined {
  const m = /line (\d+), column (\d+)/.exec(problem.message);
  if (problem.path === '' && m) {
    const line = Number(m[1]);
    const column = Number(m[2]);
    return { line, column, endLine: line, endColumn: column + 1 };
  }
  const loc = locateConfigPath(text, problem.path);
  if (!loc) return undefined;
  // The node's range runs to the next token; trailing blanks and newlines are not part of the value.
  const end = position(text, loc.start + text.slice(loc.start, loc.end).trimEnd().length);
  // Multi-line values (a whole section) are marked on their first line only.
  return end.line === loc.line ? { line: loc.line, column: loc.column, endLine: end.line, endColumn: end.column } : { line: loc.line, column: loc.column, endLine: loc.line, endColumn: 1e6 };
}

export function problemMarkers(text: string, problems: readonly ConfigProblem[]): EditorMarker[] {
  const out: EditorMarker[] = [];
  for (const p of problems) {
    const r = problemRange(text, p);
    if (!r) continue;
    out.push({ line: r.line, column: r.column, endLine: r.endLine, endColumn: Math.max(r.endColumn, r.column + 1), message: p.path ? `${p.path}: ${p.message}` : p.message, severity: p.severity, source: 'periscope' });
  }
  return out;
}
