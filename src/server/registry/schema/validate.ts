// Schema walker run on every write: type checks, value constraints, unknown-field detection and
// pruning, in one pass over the object. No clones: pruning deletes keys in place.
//
// Two modes:
//  - 'builtin': Go-typed decoding semantics (null means absent, objects without properties are
//    opaque, type errors also yield a Go-decoder-style message that upstream answers with 400).
//  - 'custom': CRD structural-schema semantics (null needs nullable, objects without properties
//    prune everything unless x-kubernetes-preserve-unknown-fields, list-type uniqueness).
import type { FieldError } from '../types.js';
import type { SchemaNode } from './types.js';
import { type SchemaRegistry, OBJECT_META, QUANTITY, definitionShortName } from './registry.js';
import { QUANTITY_ERROR, isValidQuantity } from './quantity.js';
import * as fe from './field-errors.js';
import { compileRe2, type Re2 } from '../../../api/re2.js';

export interface ValidateOptions {
  /** Remove unknown fields from the object (they are reported either way). */
  pruneUnknown: boolean;
  /**
   * 'builtin' for the derived built-in schemas, 'custom' for CRD schemas. Default: 'builtin' when
   * the root is a $ref or carries x-kubernetes-group-version-kind (derived definitions do, CRD
   * openAPIV3Schemas don't), else 'custom'.
   */
  mode?: 'builtin' | 'custom';
  /** Enforce `required` (default true). */
  checkRequired?: boolean;
}

export interface ValidateResult {
  errors: FieldError[];
  /** Dotted paths with [i] indices, in document order. */
  unknownFields: string[];
  /**
   * Built-in mode only: Go-decoder-style text of the first decode failure (a type error, or a bad
   * quantity / timestamp / base64 string: those are FieldValueTypeInvalid in built-in mode), e.g.
   * `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`.
   * Upstream rejects such bodies with 400 BadRequest (see formatDecodeError), not 422.
   */
  decodeError?: string;
}

interface Ctx {
  reg: SchemaRegistry;
  prune: boolean;
  builtin: boolean;
  required: boolean;
  /** Junctor sub-schemas validate values only: no unknown-field reporting, no pruning. */
  valueOnly: boolean;
  errors: FieldError[];
  unknown: string[];
  decodeError?: string;
  /** Path segments, each already formatted: '.name', '[0]', '[key]'. */
  segs: string[];
}

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64_CHAR = /[A-Za-z0-9+/=\r\n]/;

export function validateObject(obj: unknown, root: SchemaNode, reg: SchemaRegistry, opts: ValidateOptions): ValidateResult {
  const ctx: Ctx = {
    reg,
    prune: opts.pruneUnknown,
    builtin: opts.mode ? opts.mode === 'builtin' : root.$ref !== undefined || root['x-kubernetes-group-version-kind'] !== undefined,
    required: opts.checkRequired !== false,
    valueOnly: false,
    errors: [],
    unknown: [],
    segs: [],
  };
  const rootStruct = root.$ref !== undefined ? definitionShortName(root.$ref) : (root['x-kubernetes-group-version-kind']?.[0]?.kind ?? '');
  walk(obj, root, ctx, rootStruct, true);
  const out: ValidateResult = { errors: ctx.errors, unknownFields: ctx.unknown };
  if (ctx.decodeError !== undefined) out.decodeError = ctx.decodeError;
  return out;
}

/** Upstream's 400 message for a body the typed decoder rejects. */
export function formatDecodeError(kind: string, version: string, decodeError: string): string {
  return `${kind} in version "${version}" cannot be handled as a ${kind}: ${decodeError}`;
}

function pathOf(ctx: Ctx): string {
  const p = ctx.segs.join('');
  return p.startsWith('.') ? p.slice(1) : p;
}

/** Go's decoder names the field by its JSON names from the root, without indices or map keys. */
function goPathOf(ctx: Ctx): string {
  let out = '';
  for (const s of ctx.segs) if (s.startsWith('.')) out += s;
  return out.slice(1);
}

function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v; // string | boolean
}

function goJsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'object';
  return 'string';
}

function goTypeOf(node: SchemaNode, reg: SchemaRegistry): string {
  if (node.$ref !== undefined) {
    if (node.$ref === QUANTITY) return 'resource.Quantity';
    const target = reg.resolve(node);
    if (target.format === 'int-or-string') return 'intstr.IntOrString';
    if (target.type === 'object') {
      const parts = node.$ref.split('.');
      return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1]}`;
    }
    return goTypeOf(target, reg);
  }
  switch (node.type) {
    case 'integer':
      return node.format === 'int32' ? 'int32' : node.format === 'int64' ? 'int64' : 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return node.format === 'byte' ? '[]uint8' : 'string';
    case 'array':
      return `[]${node.items ? goTypeOf(node.items, reg) : 'interface {}'}`;
    case 'object':
      return `map[string]${node.additionalProperties && typeof node.additionalProperties === 'object' ? goTypeOf(node.additionalProperties, reg) : 'interface {}'}`;
    default:
      return 'interface {}';
  }
}

function setDecodeError(ctx: Ctx, msg: string): void {
  if (ctx.decodeError === undefined && !ctx.valueOnly) ctx.decodeError = msg;
}

function typeError(v: unknown, node: SchemaNode, expected: string, ctx: Ctx, struct: string): void {
  const path = pathOf(ctx);
  const actual = jsonTypeName(v);
  ctx.errors.push(fe.typeInvalid(path, actual, `${path || 'body'} in body must be of type ${expected}: ${JSON.stringify(actual)}`));
  if (ctx.builtin) {
    const what = typeof v === 'number' && !Number.isInteger(v) ? `number ${v}` : goJsonTypeName(v);
    const gp = goPathOf(ctx);
    const target = gp && struct ? `Go struct field ${struct}.${gp}` : 'Go value';
    setDecodeError(ctx, `json: cannot unmarshal ${what} into ${target} of type ${goTypeOf(node, ctx.reg)}`);
  }
}

function walk(v: unknown, node: SchemaNode, ctx: Ctx, struct: string, isRoot = false): void {
  const ref = node.$ref;
  if (ref === QUANTITY) return checkQuantity(v, ctx);
  const n = ref !== undefined ? ctx.reg.resolve(node) : node;

  if (v === null) {
    if (ctx.builtin || n.nullable || (n.type === undefined && !n['x-kubernetes-int-or-string'])) return;
    typeError(v, node, n.type ?? 'object', ctx, struct);
    return;
  }

  if (n['x-kubernetes-int-or-string'] || n.format === 'int-or-string') {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      typeError(v, node, 'integer,string', ctx, struct);
      return;
    }
    checkScalar(v, n, ctx);
    if (!ctx.builtin) checkJunctors(v, n, ctx, struct);
    return;
  }

  switch (n.type) {
    case 'object':
      if (typeof v !== 'object' || Array.isArray(v)) return typeError(v, node, 'object', ctx, struct);
      checkObject(v as Record<string, unknown>, n, ctx, ref !== undefined ? definitionShortName(ref) : struct, isRoot);
      break;
    case 'array':
      if (!Array.isArray(v)) return typeError(v, node, 'array', ctx, struct);
      checkArray(v, n, ctx, struct);
      break;
    case 'string':
      if (typeof v !== 'string') return typeError(v, node, 'string', ctx, struct);
      checkString(v, n, ctx);
      break;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) return typeError(v, node, 'integer', ctx, struct);
      if (ctx.builtin && n.format === 'int32' && (v > 2147483647 || v < -2147483648)) {
        const gp = goPathOf(ctx);
        const msg = `json: cannot unmarshal number ${v} into ${gp ? `Go struct field ${struct}.${gp}` : 'Go value'} of type int32`;
        setDecodeError(ctx, msg);
        ctx.errors.push(fe.typeInvalid(pathOf(ctx), v, msg));
        return;
      }
      checkNumber(v, n, ctx);
      break;
    case 'number':
      if (typeof v !== 'number') return typeError(v, node, 'number', ctx, struct);
      checkNumber(v, n, ctx);
      break;
    case 'boolean':
      if (typeof v !== 'boolean') return typeError(v, node, 'boolean', ctx, struct);
      checkScalar(v, n, ctx);
      break;
    default:
      // Typeless: anything goes; objects still follow properties when given.
      if (n.properties && typeof v === 'object' && !Array.isArray(v)) {
        checkObject(v as Record<string, unknown>, n, ctx, struct, isRoot);
      } else if (n.required && typeof v === 'object' && !Array.isArray(v)) {
        // `required` applies to any object, typed or not (kube-openapi's validator): the typeless
        // `not: {required: [a, b]}` and `anyOf: [{required: [a]}, …]` of real CRDs rely on it
        checkRequired(v as Record<string, unknown>, n, ctx, isRoot);
      } else if (n.items && Array.isArray(v)) {
        checkArray(v, n, ctx, struct);
      }
  }
  if (!ctx.builtin) checkJunctors(v, n, ctx, struct);
}

function checkQuantity(v: unknown, ctx: Ctx): void {
  if (v === null || typeof v === 'number') return;
  if (typeof v === 'string' && isValidQuantity(v.trim())) return;
  ctx.errors.push(fe.typeInvalid(pathOf(ctx), v, QUANTITY_ERROR));
  setDecodeError(ctx, QUANTITY_ERROR);
}

function checkRequired(v: Record<string, unknown>, n: SchemaNode, ctx: Ctx, isRoot: boolean): void {
  if (!ctx.required || !n.required) return;
  for (const r of n.required) {
    const val = v[r];
    if (val === undefined || (val === null && ctx.builtin)) {
      if (isRoot && ROOT_FIELDS.has(r)) continue;
      const p = pathOf(ctx);
      ctx.errors.push(fe.required(p ? `${p}.${r}` : r));
    }
  }
}

function checkObject(v: Record<string, unknown>, n: SchemaNode, ctx: Ctx, struct: string, isRoot: boolean): void {
  const props = n.properties;
  const ap = n.additionalProperties;
  const embedded = n['x-kubernetes-embedded-resource'] === true;
  const keepUnknown =
    ctx.valueOnly ||
    n['x-kubernetes-preserve-unknown-fields'] === true ||
    ap === true ||
    (ctx.builtin && !props && ap === undefined);

  checkRequired(v, n, ctx, isRoot);

  let count = 0;
  for (const key in v) {
    count++;
    const val = v[key];
    const prop = props?.[key];
    if (isRoot && key === 'status' && ctx.builtin && ctx.required && prop) {
      // Go zero-fills non-omitempty status fields, so upstream never reports them missing
      ctx.required = false;
      ctx.segs.push('.status');
      walk(val, prop, ctx, struct);
      ctx.segs.pop();
      ctx.required = true;
      continue;
    }
    if ((isRoot || embedded) && ROOT_FIELDS.has(key)) {
      ctx.segs.push('.' + key);
      if (key === 'metadata') walkMetadata(val, prop, ctx, isRoot);
      else if (prop) walk(val, prop, ctx, struct);
      else if (val !== null && val !== undefined && typeof val !== 'string') typeError(val, { type: 'string' }, 'string', ctx, struct);
      ctx.segs.pop();
      continue;
    }
    if (prop) {
      ctx.segs.push('.' + key);
      walk(val, prop, ctx, struct);
      ctx.segs.pop();
    } else if (ap && typeof ap === 'object') {
      ctx.segs.push(`[${key}]`);
      walk(val, ap, ctx, struct);
      ctx.segs.pop();
    } else if (!keepUnknown) {
      ctx.segs.push('.' + key);
      ctx.unknown.push(pathOf(ctx));
      ctx.segs.pop();
      if (ctx.prune) delete v[key];
    }
  }

  if (embedded && !ctx.valueOnly && n['x-kubernetes-preserve-unknown-fields'] !== true) {
    for (const f of ['apiVersion', 'kind']) {
      if (typeof v[f] !== 'string' || v[f] === '') {
        const p = pathOf(ctx);
        ctx.errors.push(fe.required(p ? `${p}.${f}` : f, 'must not be empty'));
      }
    }
  }
  if (n.maxProperties !== undefined && count > n.maxProperties) {
    ctx.errors.push(fe.tooMany(pathOf(ctx), count, n.maxProperties));
  }
  if (n.minProperties !== undefined && count < n.minProperties) {
    const p = pathOf(ctx);
    ctx.errors.push(fe.invalid(p, count, `${p || 'body'} in body should have at least ${n.minProperties} properties`));
  }
}

/** metadata is always a Go ObjectMeta; a CRD may add name/generateName value constraints. */
function walkMetadata(val: unknown, crdMeta: SchemaNode | undefined, ctx: Ctx, isRoot: boolean): void {
  const meta = ctx.reg.get(OBJECT_META);
  if (meta) {
    const builtin = ctx.builtin;
    ctx.builtin = true;
    walk(val, { $ref: OBJECT_META }, ctx, 'ObjectMeta');
    ctx.builtin = builtin;
  }
  if (!ctx.builtin && isRoot && crdMeta && val && typeof val === 'object') {
    const m = ctx.reg.resolve(crdMeta);
    for (const f of ['name', 'generateName']) {
      const s = m.properties?.[f];
      const fv = (val as Record<string, unknown>)[f];
      if (s && typeof fv === 'string') {
        ctx.segs.push('.' + f);
        checkString(fv, s, ctx);
        ctx.segs.pop();
      }
    }
  }
}

function checkArray(v: unknown[], n: SchemaNode, ctx: Ctx, struct: string): void {
  if (n.items) {
    for (let i = 0; i < v.length; i++) {
      ctx.segs.push(`[${i}]`);
      walk(v[i], n.items, ctx, struct);
      ctx.segs.pop();
    }
  }
  if (n.maxItems !== undefined && v.length > n.maxItems) ctx.errors.push(fe.tooMany(pathOf(ctx), v.length, n.maxItems));
  if (n.minItems !== undefined && v.length < n.minItems) {
    const p = pathOf(ctx);
    ctx.errors.push(fe.invalid(p, v.length, `${p || 'body'} in body should have at least ${n.minItems} items`));
  }
  if (ctx.builtin || v.length < 2) return;
  const listType = n['x-kubernetes-list-type'];
  if (listType === 'set' || n.uniqueItems) {
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const k = stableKey(v[i]);
      if (seen.has(k)) ctx.errors.push(fe.duplicate(`${pathOf(ctx)}[${i}]`, v[i]));
      seen.add(k);
    }
  } else if (listType === 'map' && n['x-kubernetes-list-map-keys']?.length) {
    const keys = n['x-kubernetes-list-map-keys'];
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (!item || typeof item !== 'object') continue;
      const keyObj: Record<string, unknown> = {};
      for (const k of keys) keyObj[k] = (item as Record<string, unknown>)[k];
      const k = JSON.stringify(keyObj);
      if (seen.has(k)) ctx.errors.push(fe.duplicate(`${pathOf(ctx)}[${i}]`, keyObj));
      seen.add(k);
    }
  }
}

function stableKey(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableKey).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${stableKey(o[k])}`).join(',')}}`;
}

function checkScalar(v: unknown, n: SchemaNode, ctx: Ctx): void {
  if (n.enum && !(ctx.builtin && v === '')) {
    let ok = false;
    for (const e of n.enum) if (e === v) ok = true;
    if (!ok) ctx.errors.push(fe.notSupported(pathOf(ctx), v, n.enum));
  }
  if (typeof v === 'string') checkStringConstraints(v, n, ctx);
}

function checkString(v: string, n: SchemaNode, ctx: Ctx): void {
  checkScalar(v, n, ctx);
  const fmt = n.format;
  if (fmt === 'date-time') {
    if (!RFC3339.test(v) || Number.isNaN(Date.parse(v))) {
      const p = pathOf(ctx);
      if (ctx.builtin) {
        const msg = `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`;
        setDecodeError(ctx, msg);
        ctx.errors.push(fe.typeInvalid(p, v, msg));
      } else {
        ctx.errors.push(fe.invalid(p, v, `${p || 'body'} in body must be of type date-time: ${JSON.stringify(v)}`));
      }
    }
  } else if (fmt === 'date' && !ctx.builtin) {
    if (!DATE.test(v)) {
      const p = pathOf(ctx);
      ctx.errors.push(fe.invalid(p, v, `${p || 'body'} in body must be of type date: ${JSON.stringify(v)}`));
    }
  } else if (fmt === 'byte') {
    const bad = base64ErrorOffset(v);
    if (bad >= 0) {
      const p = pathOf(ctx);
      const msg = `illegal base64 data at input byte ${bad}`;
      if (ctx.builtin) {
        setDecodeError(ctx, msg);
        ctx.errors.push(fe.typeInvalid(p, v, msg));
      } else {
        ctx.errors.push(fe.invalid(p, v, `${p || 'body'} in body must be of type byte: ${JSON.stringify(v)}`));
      }
    }
  }
}

function checkStringConstraints(v: string, n: SchemaNode, ctx: Ctx): void {
  if (n.maxLength !== undefined || n.minLength !== undefined) {
    const len = [...v].length;
    if (n.maxLength !== undefined && len > n.maxLength) ctx.errors.push(fe.tooLong(pathOf(ctx), n.maxLength));
    if (n.minLength !== undefined && len < n.minLength) {
      const p = pathOf(ctx);
      ctx.errors.push(fe.invalid(p, v, `${p || 'body'} in body should be at least ${n.minLength} chars long`));
    }
  }
  if (n.pattern !== undefined) {
    const re = compilePattern(n.pattern);
    if (re && !re.test(v)) {
      const p = pathOf(ctx);
      ctx.errors.push(fe.invalid(p, v, `${p || 'body'} in body should match '${n.pattern}'`));
    }
  }
}

/** The schema's pattern with RE2 semantics (kube-openapi uses Go's regexp); null if it does not compile. */
function compilePattern(p: string): Re2 | null {
  try {
    return compileRe2(p);
  } catch {
    return null;
  }
}

function checkNumber(v: number, n: SchemaNode, ctx: Ctx): void {
  checkScalar(v, n, ctx);
  const p = () => pathOf(ctx);
  if (n.maximum !== undefined) {
    if (n.exclusiveMaximum ? v >= n.maximum : v > n.maximum) {
      const path = p();
      ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body should be less than ${n.exclusiveMaximum ? '' : 'or equal to '}${n.maximum}`));
    }
  }
  if (n.minimum !== undefined) {
    if (n.exclusiveMinimum ? v <= n.minimum : v < n.minimum) {
      const path = p();
      ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body should be greater than ${n.exclusiveMinimum ? '' : 'or equal to '}${n.minimum}`));
    }
  }
  if (n.multipleOf !== undefined && n.multipleOf > 0) {
    const q = v / n.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      const path = p();
      ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body should be a multiple of ${n.multipleOf}`));
    }
  }
}

function base64ErrorOffset(s: string): number {
  let len = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (!BASE64_CHAR.test(c)) return i;
    if (c === '=' && s.slice(i).replace(/[\r\n]/g, '').replace(/=/g, '') !== '') return i;
    len++;
  }
  return len % 4 === 0 ? -1 : len - (len % 4);
}

/** Value-only junctors: sub-schemas are checked against a quiet context. */
function checkJunctors(v: unknown, n: SchemaNode, ctx: Ctx, struct: string): void {
  if (!n.allOf && !n.anyOf && !n.oneOf && !n.not) return;
  const path = pathOf(ctx);
  const errorsFor = (s: SchemaNode): FieldError[] => {
    const sub: Ctx = { ...ctx, valueOnly: true, prune: false, errors: [], unknown: [], segs: [...ctx.segs] };
    walk(v, s, sub, struct);
    return sub.errors;
  };
  if (n.allOf) for (const s of n.allOf) ctx.errors.push(...errorsFor(s));
  if (n.anyOf) {
    let anyOk = false;
    let first: FieldError[] = [];
    for (const s of n.anyOf) {
      const errs = errorsFor(s);
      if (errs.length === 0) {
        anyOk = true;
        break;
      }
      if (!first.length) first = errs;
    }
    if (!anyOk) {
      ctx.errors.push(...first);
      ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body must validate at least one schema (anyOf)`));
    }
  }
  if (n.oneOf) {
    let ok = 0;
    for (const s of n.oneOf) if (errorsFor(s).length === 0) ok++;
    if (ok !== 1) ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body must validate one and only one schema (oneOf)`));
  }
  if (n.not && errorsFor(n.not).length === 0) {
    ctx.errors.push(fe.invalid(path, v, `${path || 'body'} in body must not validate the schema (not)`));
  }
}
