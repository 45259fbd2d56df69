// A small kubectl-style JSONPath evaluator for printer columns and selectable fields:
//   .spec.replicas   .metadata.labels.app   .metadata.labels['app.kubernetes.io/name']
//   .items[0]   .items[*].name   .status.conditions[?(@.type=="Ready")].status   ..name
// Optional {} wrapper and leading $ are accepted.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'recursive'; name?: string }
  | { kind: 'filter'; left: Step[]; op?: string; right?: Step[] | { literal: unknown } };

export interface CompiledJSONPath {
  source: string;
  steps: Step[];
}

export class JSONPathError extends Error {}

const cache = new Map<string, CompiledJSONPath>();

export function compileJSONPath(expr: string): CompiledJSONPath {
  const hit = cache.get(expr);
  if (hit) return hit;
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  const p = new Parser(s);
  const steps = p.steps(false);
  if (!p.done()) throw new JSONPathError(`unexpected ${JSON.stringify(s.slice(p.pos))} in ${expr}`);
  const out = { source: expr, steps };
  if (cache.size > 5000) cache.clear();
  cache.set(expr, out);
  return out;
}

/** Parses without throwing; returns the error text when invalid. */
export function checkJSONPath(expr: string): string | undefined {
  try {
    compileJSONPath(expr);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** All values the path selects, in document order. */
export function evaluateJSONPath(expr: string | CompiledJSONPath, obj: unknown): unknown[] {
  const c = typeof expr === 'string' ? compileJSONPath(expr) : expr;
  return run(c.steps, [obj]);
}

/** The first selected value, or undefined. */
export function firstJSONPath(expr: string | CompiledJSONPath, obj: unknown): unknown {
  return evaluateJSONPath(expr, obj)[0];
}

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.pos >= this.s.length;
  }

  private peek(): string {
    return this.s[this.pos] ?? '';
  }

  /** Parses steps until end (or, in a filter, until an operator or ')'). */
  steps(inFilter: boolean): Step[] {
    const out: Step[] = [];
    while (!this.done()) {
      const c = this.peek();
      if (inFilter && (c === ')' || c === ' ' || c === '=' || c === '!' || c === '<' || c === '>' || c === '&' || c === '|')) break;
      if (c === '.') {
        this.pos++;
        if (this.peek() === '.') {
          this.pos++;
          const name = this.name();
          if (name === '' && this.peek() !== '[') throw new JSONPathError(`missing field name after .. at ${this.pos}`);
          out.push(name === '*' || name === '' ? { kind: 'recursive' } : { kind: 'recursive', name });
          continue;
        }
        if (this.peek() === '[' || this.done()) continue; // ".[0]" and a lone "." (the object itself)
        const name = this.name();
        if (name === '') throw new JSONPathError(`empty field name at ${this.pos}`);
        out.push(name === '*' ? { kind: 'wildcard' } : { kind: 'field', name });
      } else if (c === '[') {
        out.push(this.bracket());
      } else if (out.length === 0 && /[A-Za-z_]/.test(c)) {
        out.push({ kind: 'field', name: this.name() });
      } else {
        throw new JSONPathError(`unexpected character ${JSON.stringify(c)} at ${this.pos}`);
      }
    }
    return out;
  }

  private name(): string {
    let out = '';
    while (!this.done()) {
      const c = this.peek();
      if (c === '\\' && this.s[this.pos + 1] === '.') {
        out += '.';
        this.pos += 2;
        continue;
      }
      if (c === '.' || c === '[' || c === ')' || c === ' ' || c === '=' || c === '!' || c === '<' || c === '>') break;
      out += c;
      this.pos++;
    }
    return out;
  }

  private bracket(): Step {
    this.pos++; // [
    const close = () => {
      if (this.peek() !== ']') throw new JSONPathError(`expected ] at ${this.pos}`);
      this.pos++;
    };
    const c = this.peek();
    if (c === '?') {
      this.pos++;
      if (this.peek() !== '(') throw new JSONPathError(`expected ( at ${this.pos}`);
      this.pos++;
      const step = this.filter();
      if (this.peek() !== ')') throw new JSONPathError(`expected ) at ${this.pos}`);
      this.pos++;
      close();
      return step;
    }
    if (c === "'" || c === '"') {
      const name = this.quoted();
      close();
      return { kind: 'field', name };
    }
    if (c === '*') {
      this.pos++;
      close();
      return { kind: 'wildcard' };
    }
    const m = /^(-?\d*)(?::(-?\d*))?/.exec(this.s.slice(this.pos))!;
    if (m[0] === '') throw new JSONPathError(`invalid subscript at ${this.pos}`);
    this.pos += m[0].length;
    close();
    if (m[2] === undefined) return { kind: 'index', index: Number(m[1]) };
    const slice: Step = { kind: 'slice' };
    if (m[1] !== '') slice.start = Number(m[1]);
    if (m[2] !== '') slice.end = Number(m[2]);
    return slice;
  }

  private quoted(): string {
    const q = this.peek();
    this.pos++;
    let out = '';
    while (!this.done() && this.peek() !== q) {
      if (this.peek() === '\\') this.pos++;
      out += this.peek();
      this.pos++;
    }
    if (this.done()) throw new JSONPathError('unterminated string');
    this.pos++;
    return out;
  }

  private skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  private filter(): Step {
    this.skipSpaces();
    if (this.peek() !== '@') throw new JSONPathError(`filter must start with @ at ${this.pos}`);
    this.pos++;
    const left = this.steps(true);
    this.skipSpaces();
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.pos));
    if (!m) return { kind: 'filter', left };
    this.pos += m[0].length;
    this.skipSpaces();
    let right: Step[] | { literal: unknown };
    const c = this.peek();
    if (c === '"' || c === "'") right = { literal: this.quoted() };
    else if (c === '@') {
      this.pos++;
      right = this.steps(true);
    } else {
      const lit = /^(-?\d+(?:\.\d+)?|true|false|null)/.exec(this.s.slice(this.pos));
      if (!lit) throw new JSONPathError(`invalid filter value at ${this.pos}`);
      this.pos += lit[0].length;
      right = { literal: JSON.parse(lit[0]) };
    }
    this.skipSpaces();
    return { kind: 'filter', left, op: m[0], right };
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function run(steps: Step[], input: unknown[]): unknown[] {
  let cur = input;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of cur) apply(step, v, next);
    cur = next;
    if (cur.length === 0) break;
  }
  return cur;
}

function apply(step: Step, v: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isObject(v) && v[step.name] !== undefined) out.push(v[step.name]);
      return;
    case 'wildcard':
      if (Array.isArray(v)) out.push(...v);
      else if (isObject(v)) out.push(...Object.values(v));
      return;
    case 'index':
      if (Array.isArray(v)) {
        const i = step.index < 0 ? v.length + step.index : step.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case 'slice':
      if (Array.isArray(v)) out.push(...v.slice(step.start, step.end));
      return;
    case 'recursive':
      descend(v, step.name, out);
      return;
    case 'filter': {
      const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
      for (const item of items) if (matches(step, item)) out.push(item);
      return;
    }
  }
}

function descend(v: unknown, name: string | undefined, out: unknown[]): void {
  if (isObject(v)) {
    if (name === undefined) out.push(v);
    else if (v[name] !== undefined) out.push(v[name]);
    for (const k in v) descend(v[k], name, out);
  } else if (Array.isArray(v)) {
    if (name === undefined) out.push(v);
    for (const item of v) descend(item, name, out);
  }
}

function matches(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const left = run(step.left, [item]);
  if (!step.op) return left.length > 0 && left[0] !== false && left[0] !== null;
  if (left.length === 0) return false;
  const r = step.right!;
  const rv = 'literal' in r ? r.literal : run(r, [item])[0];
  const lv = left[0];
  switch (step.op) {
    case '==':
      return lv === rv;
    case '!=':
      return lv !== rv;
    case '<':
      return (lv as number) < (rv as number);
    case '>':
      return (lv as number) > (rv as number);
    case '<=':
      return (lv as number) <= (rv as number);
    case '>=':
      return (lv as number) >= (rv as number);
  }
  return false;
}
