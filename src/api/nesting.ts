// Nesting depth of request bodies, measured on the raw text without recursion, before any
// (recursive) parser or walker sees them: deep input must be a 400, never a stack overflow.
import { Lexer } from 'yaml';

/** Upstream's JSON limit (sigs.k8s.io/json, kjson: maxDepth 10000). */
export const MAX_JSON_DEPTH = 10_000;

/**
 * YAML bodies are composed by the `yaml` library, which recurses per level (compose-node →
 * resolve-flow/block-collection → compose-node) and then again in toJS: it overflows Node's default
 * stack at ~1,100 levels of block sequences and ~1,250 of flow sequences in a fresh process, less
 * inside a request. Upstream allows 10,000 (sigs.k8s.io/yaml); we stop at 500, well inside what
 * the library survives, so a hostile body never gets near a stack overflow (a RangeError thrown
 * while V8 compiles a regexp is fatal: "RegExpCompiler Allocation failed").
 */
export const MAX_YAML_DEPTH = 500;

/**
 * Objects entering the write path (create, update, every patch type) are walked recursively many
 * times (schema pruning and validation, managed fields, merge algorithms, JSON.stringify): in a
 * request, nested maps overflow Node's default stack at ~1,000 levels. Upstream Go grows its stacks
 * and only has the decoders' 10,000; we refuse deeper objects at 500 so no step gets near an overflow.
 */
export const MAX_OBJECT_DEPTH = 500;

/** Throws NestingError when a decoded value nests more than `limit` arrays/objects (walked without recursion). */
export function checkObjectDepth(value: unknown, limit = MAX_OBJECT_DEPTH): void {
  if (value === null || typeof value !== 'object') return;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop() as object;
    const d = depths.pop()!;
    if (d > limit) throw new NestingError(limit);
    for (const c of Array.isArray(v) ? v : Object.values(v)) {
      if (c !== null && typeof c === 'object') {
        stack.push(c);
        depths.push(d + 1);
      }
    }
  }
}

export class NestingError extends Error {
  constructor(readonly limit: number) {
    super(`the request body is nested deeper than ${limit} levels`);
  }
}

/** Throws NestingError when JSON text opens more than `limit` arrays/objects at once (strings skipped). */
export function checkJsonDepth(text: string, limit = MAX_JSON_DEPTH): void {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip a string, honouring backslash escapes
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) throw new NestingError(limit);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

const SCALAR = '\x1f';
const DOCUMENT = '\x02';
const FLOW_END = '\x18';
const BOM = '\ufeff';
const NODE_START = `"'&!*`;

/**
 * Throws NestingError when YAML text may nest more than `limit` collections. Every level needs an
 * indicator (`[`, `{`, `-`, `?` or a key's `:`), so text with fewer of them is accepted at once;
 * otherwise the library's lexer (a state machine, not recursive) is walked, counting open flow
 * collections plus the block collections open at increasing indentation.
 */
export function checkYamlDepth(text: string, limit = MAX_YAML_DEPTH): void {
  let indicators = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b || c === 0x2d || c === 0x3f || c === 0x3a) indicators++;
  }
  if (indicators <= limit) return;

  let col = 0;
  let flow = 0;
  let block: number[] = []; // columns of the open block collections, increasing
  let nodeCol = -1; // column where the current node (a key, maybe) started on this line
  let scalarNext = false;
  const open = (c: number) => {
    while (block.length > 0 && block[block.length - 1]! > c) block.pop();
    if (block.length === 0 || block[block.length - 1]! < c) block.push(c);
    if (block.length + flow > limit) throw new NestingError(limit);
  };
  for (const tok of new Lexer().lex(text)) {
    if (tok === SCALAR) {
      scalarNext = true;
      continue;
    }
    if (tok === DOCUMENT || tok === FLOW_END || tok === BOM) continue;
    const startCol = col;
    const nl = tok.lastIndexOf('\n');
    col = nl >= 0 ? tok.length - nl - 1 : col + tok.length;
    if (scalarNext) {
      scalarNext = false;
      if (flow === 0 && nodeCol < 0) nodeCol = startCol;
      continue;
    }
    if (nl >= 0 && tok.trim() === '') {
      nodeCol = -1;
      continue;
    }
    if (tok === '---' || tok === '...') {
      block = [];
      flow = 0;
      nodeCol = -1;
      continue;
    }
    switch (tok) {
      case '[':
      case '{':
        if (flow === 0 && nodeCol < 0) nodeCol = startCol;
        if (++flow + block.length > limit) throw new NestingError(limit);
        break;
      case ']':
      case '}':
        if (flow > 0) flow--;
        break;
      case '-':
      case '?':
        if (flow === 0) {
          open(startCol);
          nodeCol = -1;
        }
        break;
      case ':':
        if (flow === 0) {
          open(nodeCol >= 0 ? nodeCol : startCol);
          nodeCol = -1;
        }
        break;
      default:
        // quoted scalars, anchors, tags and aliases start a node too; spaces and comments do not
        if (flow === 0 && nodeCol < 0 && NODE_START.includes(tok[0]!)) nodeCol = startCol;
    }
  }
}

/** V8's RangeError for an exhausted call stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && e.message.includes('Maximum call stack size exceeded');
}
