// Static cost estimation of CRD validation rules, as upstream's apiextensions validation does with cel-go's
// estimator: the worst-case cost of an expression follows the declared sizes (maxItems, maxProperties, maxLength)
// and, where a size is not declared, the most a 3 MiB request could hold. A rule whose cost (times how often it
// can run: the product of its ancestors' list/map sizes) exceeds 10^7 is Forbidden, and so is a schema whose rules
// together exceed 10^8. The model follows cel-go's checker/cost.go for the common operations (comprehension
// macros multiply by the range size; string traversal costs 0.1 per byte, regex matching 0.25 per pattern byte).
import { FORMATS } from '../cel/format.js';
import type { SchemaNode } from './schema/types.js';

/** apiextensions-apiserver StaticEstimatedCostLimit (per expression) and StaticEstimatedCRDCostLimit (per schema). */
export const PER_RULE_COST_LIMIT = 10_000_000;
export const PER_CRD_COST_LIMIT = 100_000_000;
/** apiserver's maxRequestSizeBytes, the bound of any undeclared size. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const STRING_TRAVERSAL = 0.1;
const REGEX_FACTOR = 0.25;

interface Node {
  op: string;
  args: unknown;
}

/** What the estimator knows of a value: its schema (when it comes from self) and its maximum size. */
interface Val {
  schema?: SchemaNode;
  /** elements, entries or bytes */
  size: number;
}

const UNKNOWN: Val = { size: 1 };
/**
 * A map key: upstream's size estimator answers a key's size from the map type's key DeclType (apiserver
 * StringType), which declares no MaxElements, so key traversals (`self.all(k, k.matches(...))`) are costed at 0.
 */
const MAP_KEY: Val = { schema: { type: 'string' } as SchemaNode, size: 0 };

// apiserver/pkg/cel limits: the least and most bytes a formatted string takes in JSON
const MIN_STRING_SIZE = 2; // ""
const MIN_BOOL_SIZE = 4; // true
const MIN_NUMBER_SIZE = 1; // 0
const MIN_DURATION_SIZE = 3; // "0"
const JSON_DATE_SIZE = 12; // "YYYY-MM-DD"
const MIN_DATETIME_SIZE = 21;
const MAX_DURATION_SIZE = 32;
const MAX_DATETIME_SIZE = 64;

const isIntOrString = (s: SchemaNode) => s['x-kubernetes-int-or-string'] === true;

/**
 * Least serialized size of a value of this schema, as upstream's SchemaDeclType records it (MinSerializedSize): an
 * object is `{}` plus each required property without a default (`"name":` and its own least size, and a comma).
 */
export function minSize(s: SchemaNode | undefined): number {
  if (!s) return 1;
  if (isIntOrString(s)) return 1;
  switch (s.type) {
    case 'string':
      return s.format === 'duration' ? MIN_DURATION_SIZE : s.format === 'date' ? JSON_DATE_SIZE : s.format === 'date-time' ? MIN_DATETIME_SIZE : MIN_STRING_SIZE;
    case 'boolean':
      return MIN_BOOL_SIZE;
    case 'integer':
    case 'number':
      return MIN_NUMBER_SIZE;
    case 'object': {
      let size = 2;
      if (s.properties && !(s.additionalProperties && typeof s.additionalProperties === 'object')) {
        for (const name of s.required ?? []) {
          const prop = s.properties[name];
          if (prop && prop.default === undefined) size += name.length + minSize(prop) + 4;
        }
      }
      return size;
    }
    default:
      return 2; // [] (and a typeless value)
  }
}

/** The most elements (arrays), entries (maps) or bytes (strings) a value of this schema can have (upstream SchemaDeclType). */
export function maxSize(s: SchemaNode | undefined): number {
  if (!s) return 1;
  const room = MAX_REQUEST_BYTES - 2;
  if (isIntOrString(s)) return s.maxLength !== undefined ? s.maxLength * 4 : room;
  if (s.type === 'array') return s.maxItems ?? Math.floor(room / (minSize(s.items) + 1));
  if (s.type === 'string') {
    // maxLength counts code points, of up to 4 bytes each (estimateMaxElementsFromMaxLength)
    if (s.format === 'byte') return s.maxLength ?? room;
    if (s.format === 'duration') return MAX_DURATION_SIZE;
    if (s.format === 'date') return JSON_DATE_SIZE;
    if (s.format === 'date-time') return MAX_DATETIME_SIZE;
    if (s.maxLength !== undefined) return s.maxLength * 4;
    if (s.enum?.length) return Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? e.length : 0)));
    return room;
  }
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object')
    return s.maxProperties ?? Math.floor(room / (minSize(s.additionalProperties as SchemaNode) + 6)); // "":v,
  return 1;
}

/**
 * How often a rule may run when a list or map above it declares no bound: as many values of its scope's least
 * size (and a comma) as a request can hold (upstream maxCardinality(MinSerializedSize)).
 */
export function unboundedCardinality(s: SchemaNode): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSize(s) + 1));
}

function valOf(s: SchemaNode | undefined): Val {
  return s ? { schema: s, size: maxSize(s) } : UNKNOWN;
}

function elementSchema(s: SchemaNode | undefined): SchemaNode | undefined {
  if (!s) return undefined;
  if (s.type === 'array') return s.items;
  if (s.additionalProperties && typeof s.additionalProperties === 'object') return s.additionalProperties as SchemaNode;
  return undefined;
}

type Scope = Map<string, Val>;

/** format.<name>() as the receiver of validate (format.named(...).value() is charged at the largest pattern). */
function isFormat(n: unknown): boolean {
  return isNode(n) && n.op === 'rcall' && isNode((n.args as unknown[])[1]) && ((n.args as unknown[])[1] as Node).op === 'id' && ((n.args as unknown[])[1] as Node).args === 'format';
}
const MAX_REGEX_SIZE = Math.max(...[...FORMATS.values()].map((f) => f.maxRegexSize));

const LIST_TRAVERSE = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf']);
const TWO_VAR = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const TRAVERSING_GLOBALS = new Set(['url', 'isURL', 'ip', 'isIP', 'cidr', 'isCIDR', 'quantity', 'isQuantity', 'semver', 'isSemver', 'bytes']);
const TRAVERSE = new Set(['contains', 'startsWith', 'endsWith', 'lowerAscii', 'upperAscii', 'trim', 'indexOf', 'lastIndexOf', 'join', 'substring']);

function isNode(v: unknown): v is Node {
  return !!v && typeof v === 'object' && typeof (v as Node).op === 'string';
}

/** Worst-case cost of a node and what it yields. */
function est(n: unknown, scope: Scope): { cost: number; val: Val } {
  if (!isNode(n)) return { cost: 0, val: UNKNOWN };
  const a = n.args as unknown[];
  switch (n.op) {
    case 'value':
      return { cost: 0, val: typeof n.args === 'string' ? { size: n.args.length } : UNKNOWN };
    case 'id':
      return { cost: 1, val: scope.get(String(n.args)) ?? UNKNOWN };
    case '.':
    case '.?': {
      const t = est(a[0], scope);
      const s = t.val.schema;
      const child = s?.properties?.[String(a[1])] ?? elementSchema(s);
      return { cost: t.cost + 1, val: valOf(child) };
    }
    case '[]':
    case '[?]': {
      const t = est(a[0], scope);
      const i = est(a[1], scope);
      return { cost: t.cost + i.cost + 1, val: valOf(elementSchema(t.val.schema)) };
    }
    case 'list': {
      let cost = 10; // cel-go: list creation
      for (const x of a) cost += est(x, scope).cost;
      return { cost, val: { size: a.length } };
    }
    case 'map': {
      let cost = 30; // cel-go: map creation
      for (const pair of a as unknown[][]) for (const x of pair) cost += est(x, scope).cost;
      return { cost, val: { size: a.length } };
    }
    case '?:': {
      const c = est(a[0], scope);
      const t = est(a[1], scope);
      const f = est(a[2], scope);
      return { cost: c.cost + Math.max(t.cost, f.cost), val: t.cost >= f.cost ? t.val : f.val };
    }
    case '!_':
    case '-_':
      return { cost: est(n.args, scope).cost + 1, val: UNKNOWN };
    case '&&':
    case '||':
      return { cost: est(a[0], scope).cost + est(a[1], scope).cost, val: UNKNOWN };
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const l = est(a[0], scope);
      const r = est(a[1], scope);
      // string and list comparisons traverse the shorter operand
      const traverse = l.val.schema?.type === 'string' || r.val.schema?.type === 'string' ? Math.ceil(Math.min(l.val.size, r.val.size) * STRING_TRAVERSAL) : 0;
      return { cost: l.cost + r.cost + 1 + traverse, val: UNKNOWN };
    }
    case '+': {
      const l = est(a[0], scope);
      const r = est(a[1], scope);
      const size = l.val.size + r.val.size;
      const strings = l.val.schema?.type === 'string' || r.val.schema?.type === 'string';
      return { cost: l.cost + r.cost + 1 + (strings ? Math.ceil(size * STRING_TRAVERSAL) : 0), val: { size, ...(strings ? { schema: { type: 'string' } as SchemaNode } : {}) } };
    }
    case 'in': {
      const l = est(a[0], scope);
      const r = est(a[1], scope);
      const isList = r.val.schema?.type === 'array';
      return { cost: l.cost + r.cost + 1 + (isList ? r.val.size : 0), val: UNKNOWN };
    }
    case 'call': {
      const [fn, args] = a as [string, unknown[]];
      let cost = 1;
      let first: Val | undefined;
      for (const x of args) {
        const e = est(x, scope);
        cost += e.cost;
        first ??= e.val;
      }
      if (fn === 'matches' && args.length === 2) {
        // the global matches(string, string) is charged as the receiver form
        const pattern = est(args[1], scope).val.size;
        return { cost: cost + Math.ceil((1 + (first?.size ?? 1)) * STRING_TRAVERSAL) * Math.ceil(pattern * REGEX_FACTOR), val: UNKNOWN };
      }
      // cel-go's functionCost: conversions (int, duration, timestamp, ...) cost 1; the parsing functions of the
      // Kubernetes libraries (url, ip, cidr, quantity, semver and their is* checks) and bytes(string) traverse
      // their string (library cost.go)
      if (!TRAVERSING_GLOBALS.has(fn)) return { cost, val: UNKNOWN };
      return { cost: cost + (first?.schema?.type === 'string' ? Math.ceil(first.size * STRING_TRAVERSAL) : 0), val: UNKNOWN };
    }
    case 'rcall': {
      const [fn, target, args] = a as [string, unknown, unknown[]];
      const t = est(target, scope);
      if (MACROS.has(fn) && args.length === 2 && isNode(args[0]) && args[0].op === 'id') {
        // comprehension: range cost, then per element the predicate and the accumulator step
        const inner = new Map(scope);
        const isMap = t.val.schema?.type === 'object';
        inner.set(String(args[0].args), isMap ? MAP_KEY : valOf(elementSchema(t.val.schema)));
        const body = est(args[1], inner);
        const step = fn === 'map' || fn === 'filter' ? 2 + 10 : 3; // the accumulated list grows (map, filter)
        return { cost: t.cost + 1 + t.val.size * (body.cost + step), val: fn === 'map' || fn === 'filter' ? { schema: t.val.schema, size: t.val.size } : UNKNOWN };
      }
      if (TWO_VAR.has(fn) && args.length >= 3 && isNode(args[0]) && args[0].op === 'id' && isNode(args[1]) && args[1].op === 'id') {
        // two-variable comprehension: index (or key) and value bound, the filter and body run per element
        const inner = new Map(scope);
        const isMap = t.val.schema?.type === 'object';
        inner.set(String(args[0].args), isMap ? MAP_KEY : UNKNOWN);
        inner.set(String(args[1].args), valOf(elementSchema(t.val.schema)));
        let body = 0;
        for (const x of args.slice(2)) body += est(x, inner).cost;
        const step = fn.startsWith('transform') ? 2 + 10 : 3;
        return { cost: t.cost + 1 + t.val.size * (body + step), val: fn === 'transformList' ? { schema: t.val.schema, size: t.val.size } : UNKNOWN };
      }
      if ((fn === 'optMap' || fn === 'optFlatMap') && args.length === 2 && isNode(args[0]) && args[0].op === 'id') {
        const inner = new Map(scope);
        inner.set(String(args[0].args), t.val);
        return { cost: t.cost + 1 + est(args[1], inner).cost, val: UNKNOWN };
      }
      let cost = t.cost + 1;
      const argVals: Val[] = [];
      for (const x of args) {
        const e = est(x, scope);
        cost += e.cost;
        argVals.push(e.val);
      }
      if (fn === 'matches' || fn === 'find' || fn === 'findAll') {
        // the regex library is charged as matches: (string + 1) traversal times a quarter of the pattern
        const pattern = argVals[0]?.size ?? 1;
        cost += Math.ceil((1 + t.val.size) * STRING_TRAVERSAL) * Math.ceil(pattern * REGEX_FACTOR);
      } else if (fn === 'validate') {
        // format.<name>().validate(s): a regex match of the format's pattern over s (upstream MaxRegexSize);
        // a format chosen at run time (format.named) is charged at the largest pattern
        const f = isFormat(target) ? FORMATS.get(String((target as { args: unknown[] }).args[0])) : undefined;
        const str = argVals[0]?.size ?? 1;
        cost += Math.ceil((1 + str) * STRING_TRAVERSAL) * Math.ceil((f?.maxRegexSize ?? MAX_REGEX_SIZE) * REGEX_FACTOR);
      } else if ((fn === 'contains' || fn === 'equivalent' || fn === 'intersects') && isNode(target) && target.op === 'id' && target.args === 'sets')
        cost += (argVals[0]?.size ?? 1) * (argVals[1]?.size ?? 1); // cel-go sets: each element of one list against the other
      else if (LIST_TRAVERSE.has(fn) && t.val.schema?.type === 'array') {
        // lists library: one comparison per element, plus traversing string elements (upstream cost.go)
        const el = t.val.schema.items;
        cost += t.val.size * (1 + (el?.type === 'string' ? Math.ceil(maxSize(el) * STRING_TRAVERSAL) : 0));
      } else if (fn === 'replace' || fn === 'split') cost += Math.ceil(t.val.size * 2 * STRING_TRAVERSAL); // traversal plus the result
      else if (TRAVERSE.has(fn)) cost += Math.ceil(t.val.size * STRING_TRAVERSAL);
      return { cost, val: UNKNOWN };
    }
    default: {
      // arithmetic and anything else: the operands plus one
      let cost = 1;
      for (const x of Array.isArray(a) ? a : [n.args]) cost += est(x, scope).cost;
      return { cost, val: UNKNOWN };
    }
  }
}

/** Worst-case cost of one compiled rule evaluated against a value of `schema` (self, and oldSelf alike). */
export function ruleCost(ast: unknown, schema: SchemaNode): number {
  const self = valOf(schema);
  return est(ast, new Map([['self', self], ['oldSelf', self]])).cost;
}

/** upstream getCostErrorMessage */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const f = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${f} (try simplifying the rule(s), or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
