// Macros of upstream's base environment that cel-js lacks: cel-go's two-variable comprehensions
// (ext.TwoVarComprehensions, Kubernetes 1.32+: all/exists/existsOne(i, v, p), transformList, transformMap,
// transformMapEntry) and the optional library's optMap/optFlatMap. They use cel-js' macro hooks (a parse-time
// handler returning typeCheck and evaluate), binding their variables through forked check contexts as cel.bind does.
import { type Environment, Optional } from '@marcbachmann/cel-js';

/* The macro hooks are cel-js internals without published types: the shapes used here. */
interface CelType {
  kind: string;
  name: string;
  keyType?: CelType;
  valueType?: CelType;
}
interface Ctx {
  forkWithVariable(name: string, type: CelType): Ctx;
  reuse(parent: Ctx): Ctx;
  setIterValue(v: unknown, ev: Evaluator): Ctx;
}
interface Checker {
  check(node: unknown, ctx: Ctx): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node?: unknown): Error;
}
interface Evaluator {
  run(node: unknown, ctx: Ctx): unknown;
}
interface MacroInput {
  ast: unknown;
  args: { op: string; args: unknown }[];
  receiver: unknown;
}

function identifier(node: { op: string; args: unknown }, what: string): string {
  if (node.op !== 'id') throw new Error(`${what} invalid iteration variable`);
  return String(node.args);
}

/** Evaluates synchronously (CRD rules and these macros never wait on asynchronous functions). */
function run(ev: Evaluator, node: unknown, ctx: Ctx): unknown {
  const v = ev.run(node, ctx);
  if (v instanceof Promise) throw new Error('asynchronous functions are not supported inside comprehensions');
  return v;
}

/** The (index or key, value) pairs a comprehension ranges over. */
function pairs(coll: unknown): [unknown, unknown][] {
  if (Array.isArray(coll)) return coll.map((v, i) => [BigInt(i), v]);
  if (coll instanceof Map) return [...coll.entries()];
  if (coll && typeof coll === 'object') return Object.entries(coll);
  throw new Error(`Expression of type '${typeof coll}' cannot be range of a comprehension (must be list, map, or dynamic).`);
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface TwoVar {
  kind: Kind;
  receiver: unknown;
  first: string;
  second: string;
  filter?: unknown;
  body: unknown;
  ctx1?: Ctx;
  ctx2?: Ctx;
  typeCheck(checker: Checker, m: TwoVar, ctx: Ctx): CelType;
  evaluate(ev: Evaluator, m: TwoVar, ctx: Ctx): unknown;
}

const RESULT: Record<Kind, string> = { all: 'bool', exists: 'bool', existsOne: 'bool', transformList: 'list', transformMap: 'map', transformMapEntry: 'map' };

function typeCheck(checker: Checker, m: TwoVar, ctx: Ctx): CelType {
  const range = checker.check(m.receiver, ctx);
  const dyn = checker.getType('dyn');
  let first = dyn;
  let second = dyn;
  if (range.kind === 'list') {
    first = checker.getType('int');
    second = range.valueType ?? dyn;
  } else if (range.kind === 'map') {
    first = range.keyType ?? dyn;
    second = range.valueType ?? dyn;
  } else if (range.kind !== 'dyn')
    throw checker.createError('invalid_comprehension_range', `Expression of type '${range.kind}' cannot be range of a comprehension (must be list, map, or dynamic).`, m.receiver);
  m.ctx1 = ctx.forkWithVariable(m.first, first);
  m.ctx2 = m.ctx1.forkWithVariable(m.second, second);
  const isBool = (t: CelType) => t.name === 'bool' || t.kind === 'dyn';
  if (m.filter !== undefined && !isBool(checker.check(m.filter, m.ctx2))) throw checker.createError('invalid_macro_argument', `${m.kind}() filter must return bool`, m.filter);
  const body = checker.check(m.body, m.ctx2);
  if (RESULT[m.kind] === 'bool' && !isBool(body)) throw checker.createError('invalid_macro_argument', `${m.kind}(var1, var2, predicate) predicate must return bool`, m.body);
  if (m.kind === 'transformMapEntry' && body.kind !== 'map' && body.kind !== 'dyn') throw checker.createError('invalid_macro_argument', 'transformMapEntry() must produce a map', m.body);
  return checker.getType(RESULT[m.kind]);
}

function evaluate(ev: Evaluator, m: TwoVar, ctx: Ctx): unknown {
  const items = pairs(run(ev, m.receiver, ctx));
  const bind = (k: unknown, v: unknown) => m.ctx2!.reuse(m.ctx1!.reuse(ctx).setIterValue(k, ev)).setIterValue(v, ev);
  let error: unknown;
  let count = 0;
  const list: unknown[] = [];
  const map = new Map<unknown, unknown>();
  for (const [k, v] of items) {
    const c = bind(k, v);
    if (m.kind === 'all' || m.kind === 'exists') {
      // errors are absorbed by a decisive answer elsewhere, as CEL's logical operators do
      let r: unknown;
      try {
        r = run(ev, m.body, c);
      } catch (e) {
        error ??= e;
        continue;
      }
      if (m.kind === 'all' && r === false) return false;
      if (m.kind === 'exists' && r === true) return true;
      continue;
    }
    if (m.filter !== undefined && run(ev, m.filter, c) !== true) continue;
    const r = run(ev, m.body, c);
    if (m.kind === 'existsOne') count += r === true ? 1 : 0;
    else if (m.kind === 'transformList') list.push(r);
    else if (m.kind === 'transformMap') map.set(k, r);
    else
      for (const [ek, ev2] of pairs(r)) {
        if (map.has(ek)) throw new Error(`insert failed: key ${String(ek)} already exists`);
        map.set(ek, ev2);
      }
  }
  if (error !== undefined) throw error;
  if (m.kind === 'all') return true;
  if (m.kind === 'exists') return false;
  if (m.kind === 'existsOne') return count === 1;
  return m.kind === 'transformList' ? list : map;
}

function twoVar(kind: Kind, filtered: boolean) {
  return ({ args, receiver }: MacroInput): TwoVar => ({
    kind,
    receiver,
    first: identifier(args[0]!, kind),
    second: identifier(args[1]!, kind),
    filter: filtered ? args[2] : undefined,
    body: args[filtered ? 3 : 2],
    typeCheck,
    evaluate,
  });
}

interface OptMap {
  receiver: unknown;
  name: string;
  body: unknown;
  flat: boolean;
  bound?: Ctx;
  typeCheck(checker: Checker, m: OptMap, ctx: Ctx): CelType;
  evaluate(ev: Evaluator, m: OptMap, ctx: Ctx): unknown;
}

function optMap(flat: boolean) {
  return ({ args, receiver }: MacroInput): OptMap => ({
    receiver,
    name: identifier(args[0]!, flat ? 'optFlatMap' : 'optMap'),
    body: args[1],
    flat,
    typeCheck(checker, m, ctx) {
      const t = checker.check(m.receiver, ctx);
      if (t.kind !== 'optional' && t.kind !== 'dyn') throw checker.createError('optional_expected', `${flat ? 'optFlatMap' : 'optMap'} receiver must be optional, got '${t.kind}'`, m.receiver);
      m.bound = ctx.forkWithVariable(m.name, t.valueType ?? checker.getType('dyn'));
      const body = checker.check(m.body, m.bound);
      if (flat && body.kind !== 'optional' && body.kind !== 'dyn') throw checker.createError('optional_expected', `optFlatMap() must produce an optional, got '${body.kind}'`, m.body);
      return checker.getType('optional');
    },
    evaluate(ev, m, ctx) {
      const o = run(ev, m.receiver, ctx);
      if (!(o instanceof Optional)) throw new Error(`${flat ? 'optFlatMap' : 'optMap'} receiver must be optional`);
      if (!o.hasValue()) return Optional.none();
      const r = run(ev, m.body, m.bound!.reuse(ctx).setIterValue(o.value(), ev));
      if (!flat) return Optional.of(r);
      if (!(r instanceof Optional)) throw new Error('optFlatMap() must produce an optional');
      return r;
    },
  });
}

export function installComprehensions(env: Environment): void {
  const macro = (sig: string, handler: (input: MacroInput) => unknown) => env.registerFunction(sig, handler as never);
  for (const kind of ['all', 'exists', 'existsOne'] as const) macro(`list.${kind}(ast, ast, ast): bool`, twoVar(kind, false));
  macro('list.transformList(ast, ast, ast): list<dyn>', twoVar('transformList', false));
  macro('list.transformList(ast, ast, ast, ast): list<dyn>', twoVar('transformList', true));
  macro('map.transformMap(ast, ast, ast): map<dyn, dyn>', twoVar('transformMap', false));
  macro('map.transformMap(ast, ast, ast, ast): map<dyn, dyn>', twoVar('transformMap', true));
  macro('map.transformMapEntry(ast, ast, ast): map<dyn, dyn>', twoVar('transformMapEntry', false));
  macro('map.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', twoVar('transformMapEntry', true));
  macro('optional.optMap(ast, ast): optional<dyn>', optMap(false));
  macro('optional.optFlatMap(ast, ast): optional<dyn>', optMap(true));
}
