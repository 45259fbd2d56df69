// CRD validation rules (x-kubernetes-validations): compiled when a CRD is created or updated, evaluated on every
// create/update of its custom resources with `self` (and `oldSelf` for transition rules), as upstream's
// apiextensions-apiserver does (pkg/apiserver/schema/cel). The engine is @marcbachmann/cel-js.
import { Environment, Optional, type ParseResult } from '@marcbachmann/cel-js';
import { installKubernetesLibraries } from '../cel/library.js';
import { PER_CRD_COST_LIMIT, PER_RULE_COST_LIMIT, costErrorMessage, maxSize, ruleCost } from './crd-cel-cost.js';
import { COST_LIMIT_EXCEEDED, CelCostError, CostBudget, OUT_OF_BUDGET, RUNTIME_CEL_COST_BUDGET, evaluateMetered, yieldIfBusy } from '../cel/cost.js';
import type { SchemaNode } from './schema/types.js';
import type { FieldError } from './types.js';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

const REASONS = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'] as const;
/** Upstream's per-CRD limits: expressions are bounded in size (the cost estimator's inputs) and nesting. */
const MAX_RULE_LENGTH = 10_000;
const LIMITS = { maxAstNodes: 10_000, maxDepth: 250, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 };

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The CEL type of a schema node (upstream maps object schemas to object types; maps serve the same selections). */
export function celType(s: SchemaNode | undefined): string {
  if (!s || s['x-kubernetes-int-or-string'] || s['x-kubernetes-preserve-unknown-fields'] && !s.properties) return 'dyn';
  switch (s.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'array':
      return `list<${celType(s.items)}>`;
    case 'object':
      if (!s.properties && isObj(s.additionalProperties)) return `map<string, ${celType(s.additionalProperties as SchemaNode)}>`;
      return 'map<string, dyn>';
    default:
      return 'dyn';
  }
}

const environments = new Map<string, Environment>();

/** An environment with `self` and `oldSelf` of one CEL type; built once per type. */
function environmentFor(type: string, optionalOldSelf: boolean): Environment {
  const key = `${type}|${optionalOldSelf}`;
  let env = environments.get(key);
  if (env) return env;
  env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, limits: LIMITS });
  installKubernetesLibraries(env);
  env.registerVariable('self', type);
  env.registerVariable('oldSelf', optionalOldSelf ? `optional<${type}>` : type);
  environments.set(key, env);
  return env;
}

export interface CompiledRule {
  rule: ValidationRule;
  program: ParseResult;
  message?: ParseResult;
  /** Reads oldSelf: a transition rule (only evaluated on updates with an old value, unless optionalOldSelf). */
  transition: boolean;
}

function readsOldSelf(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}

function compileOne(env: Environment, expr: string, want: 'bool' | 'string'): { program?: ParseResult; error?: string } {
  let program: ParseResult;
  try {
    program = env.parse(expr);
  } catch (e) {
    const err = e as { summary?: string; message?: string };
    return { error: `compilation failed: ERROR: <input>: ${err.summary ?? String(err.message).split('\n')[0]}` };
  }
  let checked: ReturnType<ParseResult['check']>;
  try {
    checked = program.check();
  } catch (e) {
    return { error: `compilation failed: ERROR: <input>: ${String((e as Error).message).split('\n')[0]}` };
  }
  if (!checked.valid) {
    const err = checked.error as { summary?: string; message?: string } | undefined;
    return { error: `compilation failed: ERROR: <input>: ${err?.summary ?? String(err?.message ?? 'type check failed').split('\n')[0]}` };
  }
  if (checked.type && checked.type !== want && checked.type !== 'dyn') return { error: `cel expression must evaluate to a ${want}` };
  return { program };
}

/** Go's %#v of an apiextensions.ValidationRule, as upstream prints it in Invalid value errors. */
function goRule(r: ValidationRule): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? '');
  const reason = r.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : `(*apiextensions.FieldValueErrorReason)(${q(r.reason)})`;
  const opt = r.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${r.optionalOldSelf})`;
  return `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, Reason:${reason}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${opt}}`;
}

const compiledCache = new WeakMap<object, CompiledRule[]>();

/** Compiles the rules of one schema node (cached per rules array). Throws nothing: errors come from validateRules. */
function compiledRules(node: SchemaNode): CompiledRule[] {
  const rules = node['x-kubernetes-validations'] as ValidationRule[] | undefined;
  if (!rules?.length) return [];
  const hit = compiledCache.get(rules);
  if (hit) return hit;
  const type = celType(node);
  const out: CompiledRule[] = [];
  for (const r of rules) {
    const env = environmentFor(type, r.optionalOldSelf === true);
    const c = compileOne(env, r.rule, 'bool');
    if (!c.program) continue;
    const compiled: CompiledRule = { rule: r, program: c.program, transition: readsOldSelf(r.rule) };
    if (r.messageExpression) {
      const m = compileOne(env, r.messageExpression, 'string');
      if (m.program) compiled.message = m.program;
    }
    out.push(compiled);
  }
  compiledCache.set(rules, out);
  return out;
}

/** CRD-time checks of every x-kubernetes-validations rule under a schema (422 causes naming the rule). */
export function validateRules(schema: SchemaNode, path: string, errs: FieldError[]): void {
  // estimated costs: each rule's (times how often it can run) and the schema's total (upstream validation.go)
  let total = 0;
  const costs: { field: string; cost: number }[] = [];
  const visit = (node: SchemaNode | undefined, p: string, cardinality: number) => {
    if (!node || typeof node !== 'object') return;
    const rules = node['x-kubernetes-validations'] as unknown;
    if (rules !== undefined) {
      if (!Array.isArray(rules)) errs.push({ type: 'FieldValueInvalid', field: `${p}.x-kubernetes-validations`, detail: 'Invalid value: must be a list of rules' });
      else
        rules.forEach((raw, i) => {
          const rp = `${p}.x-kubernetes-validations[${i}]`;
          const r = (isObj(raw) ? raw : {}) as unknown as ValidationRule;
          if (typeof r.rule !== 'string' || r.rule.trim() === '') {
            errs.push({ type: 'FieldValueRequired', field: `${rp}.rule`, detail: 'Required value' });
            return;
          }
          if (r.rule.length > MAX_RULE_LENGTH) {
            errs.push({ type: 'FieldValueTooLong', field: `${rp}.rule`, detail: `Too long: may not be more than ${MAX_RULE_LENGTH} bytes` });
            return;
          }
          if (r.reason !== undefined && !(REASONS as readonly string[]).includes(r.reason))
            errs.push({ type: 'FieldValueNotSupported', field: `${rp}.reason`, detail: `Unsupported value: ${JSON.stringify(r.reason)}: supported values: ${REASONS.map((x) => JSON.stringify(x)).join(', ')}` });
          if (r.fieldPath !== undefined && !/^(\.[A-Za-z_][A-Za-z0-9_]*|\[('[^']*'|\d+)\])+$/.test(r.fieldPath))
            errs.push({ type: 'FieldValueInvalid', field: `${rp}.fieldPath`, detail: `Invalid value: ${JSON.stringify(r.fieldPath)}: fieldPath must be a valid path` });
          if (r.optionalOldSelf === true && !readsOldSelf(r.rule))
            errs.push({ type: 'FieldValueForbidden', field: `${rp}.optionalOldSelf`, detail: 'Forbidden: may not be set if rule does not use oldSelf' });
          const env = environmentFor(celType(node), r.optionalOldSelf === true);
          const c = compileOne(env, r.rule, 'bool');
          if (c.error) errs.push({ type: 'FieldValueInvalid', field: `${rp}.rule`, detail: `Invalid value: ${goRule(r)}: ${c.error}` });
          if (c.program) {
            const cost = ruleCost(c.program.ast, node) * cardinality;
            if (cost > PER_RULE_COST_LIMIT)
              errs.push({ type: 'FieldValueForbidden', field: `${rp}.rule`, detail: `Forbidden: ${costErrorMessage('estimated rule cost', cost, PER_RULE_COST_LIMIT)}` });
            total += cost;
            costs.push({ field: `${rp}.rule`, cost });
          }
          if (r.messageExpression !== undefined) {
            const m = compileOne(env, r.messageExpression, 'string');
            if (m.error) errs.push({ type: 'FieldValueInvalid', field: `${rp}.messageExpression`, detail: `Invalid value: ${goRule(r)}: messageExpression ${m.error}` });
          }
        });
    }
    for (const [k, child] of Object.entries(node.properties ?? {})) visit(child, `${p}.properties[${k}]`, cardinality);
    // an element's rules run once per element: the list's (or map's) size multiplies them
    if (node.items && typeof node.items === 'object') visit(node.items, `${p}.items`, cardinality * maxSize(node));
    if (isObj(node.additionalProperties)) visit(node.additionalProperties as SchemaNode, `${p}.additionalProperties`, cardinality * maxSize(node));
  };
  visit(schema, path, 1);
  if (total > PER_CRD_COST_LIMIT) {
    // upstream names the (up to 4) most expensive rules, then the total
    for (const c of [...costs].sort((x, y) => y.cost - x.cost).slice(0, 4))
      errs.push({ type: 'FieldValueForbidden', field: c.field, detail: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema' });
    errs.push({ type: 'FieldValueForbidden', field: path, detail: `Forbidden: ${costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, PER_CRD_COST_LIMIT)}` });
  }
}

/** A JSON value as CEL sees it under its schema: integers as int (BigInt), numbers as double. */
function toCel(v: unknown, s: SchemaNode | undefined): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items));
  if (isObj(v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCel(x, s?.properties?.[k] ?? (isObj(s?.additionalProperties) ? (s!.additionalProperties as SchemaNode) : undefined));
    return out;
  }
  return v;
}

/** upstream ruleErrorString: a rule is named by its message when it has one. */
const ruleErrorString = (r: ValidationRule): string => (r.message ? r.message.trim() : r.rule.trim());

/** What upstream's field errors show as the invalid value: the schema's type (sts.Type; "" for int-or-string). */
const typeName = (node: SchemaNode): string => (typeof node.type === 'string' ? node.type : '');

function evalBool(p: ParseResult, ctx: Json, budget: CostBudget): { value?: boolean; error?: string; cost?: CelCostError } {
  try {
    const v = evaluateMetered(p, ctx, { budget }).value;
    return { value: v === true };
  } catch (e) {
    if (e instanceof CelCostError) return { cost: e };
    const err = e as { summary?: string; message?: string };
    return { error: err.summary ?? String(err.message).split('\n')[0] };
  }
}

/**
 * Evaluates every rule under `schema` against `obj` (and `old` on update), as upstream's validator:
 * a node's rules run when it is present; transition rules only where the old object has the node (unless
 * optionalOldSelf). Errors name the node (plus the rule's fieldPath) with the rule's reason.
 */
export async function evaluateRules(schema: SchemaNode, obj: unknown, old: unknown, path = ''): Promise<FieldError[]> {
  const errs: FieldError[] = [];
  // upstream: every rule evaluation runs under the per-call limit, all of one object's from one budget
  const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
  const visit = async (node: SchemaNode | undefined, v: unknown, o: unknown, p: string): Promise<void> => {
    if (!node || v === undefined) return;
    if (budget.remaining <= 0) {
      errs.push({ type: 'FieldValueInvalid', field: p.replace(/^\./, ''), detail: `Invalid value: ${JSON.stringify(typeName(node))}: ${OUT_OF_BUDGET}` });
      throw STOP;
    }
    for (const c of compiledRules(node)) {
      const optional = c.rule.optionalOldSelf === true;
      if (c.transition && o === undefined && !optional) continue;
      const ctx: Json = { self: toCel(v, node) };
      if (c.transition) ctx.oldSelf = optional ? (o === undefined ? Optional.none() : Optional.of(toCel(o, node))) : toCel(o, node);
      else if (o !== undefined) ctx.oldSelf = toCel(o, node);
      else ctx.oldSelf = optional ? Optional.none() : null;
      // a custom resource's rules may spend up to the whole budget: other requests get turns meanwhile
      await yieldIfBusy();
      const r = evalBool(c.program, ctx, budget);
      const field = (p + (c.rule.fieldPath ?? '')).replace(/^\./, '');
      const type = (c.rule.reason ?? 'FieldValueInvalid') as FieldError['type'];
      if (r.cost) {
        // upstream stops validating the object once a call or the budget is exhausted
        const detail = r.cost.outOfBudget || r.cost.message !== COST_LIMIT_EXCEEDED ? r.cost.message : `'${r.cost.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(c.rule)}`;
        errs.push({ type: 'FieldValueInvalid', field: p.replace(/^\./, ''), detail: `Invalid value: ${JSON.stringify(typeName(node))}: ${detail}` });
        throw STOP;
      }
      if (r.error !== undefined) {
        // a call no overload matches at run time (dyn values: int-or-string, preserved fields) reads as cel-go's error
        const detail = /^found no matching overload|^no such overload/.test(r.error)
          ? `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(c.rule)}`
          : `${r.error} evaluating rule: ${ruleErrorString(c.rule)}`;
        errs.push({ type: 'FieldValueInvalid', field, detail: `Invalid value: ${JSON.stringify(typeName(node))}: ${detail}` });
        continue;
      }
      if (r.value) continue;
      let message = c.rule.message ? c.rule.message.trim() : `failed rule: ${ruleErrorString(c.rule)}`;
      if (c.message) {
        try {
          const m = evaluateMetered(c.message, ctx, { budget }).value;
          if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m;
        } catch {
          // upstream falls back to the static message when messageExpression fails
        }
      }
      const prefix = type === 'FieldValueForbidden' ? 'Forbidden' : type === 'FieldValueRequired' ? 'Required value' : type === 'FieldValueDuplicate' ? `Duplicate value: ${JSON.stringify(typeName(node))}` : `Invalid value: ${JSON.stringify(typeName(node))}`;
      errs.push({ type, field, detail: `${prefix}: ${message}` });
    }
    if (Array.isArray(v) && node.items) {
      const mapKeys = node['x-kubernetes-list-map-keys'] as string[] | undefined;
      for (const [i, item] of v.entries()) {
        // old items pair by list-map key where the list is a map, by index otherwise is not upstream: only keyed lists correlate
        let prev: unknown;
        if (node['x-kubernetes-list-type'] === 'map' && mapKeys?.length && Array.isArray(o))
          prev = o.find((x) => isObj(x) && isObj(item) && mapKeys.every((k) => JSON.stringify(x[k]) === JSON.stringify(item[k])));
        else if (node['x-kubernetes-list-type'] === 'set' && Array.isArray(o)) prev = o.find((x) => JSON.stringify(x) === JSON.stringify(item));
        await visit(node.items, item, prev, `${p}[${i}]`);
      }
    } else if (isObj(v)) {
      const ov = isObj(o) ? o : undefined;
      if (node.properties) for (const [k, child] of Object.entries(node.properties)) await visit(child, v[k], ov?.[k], `${p}.${k}`);
      else if (isObj(node.additionalProperties)) for (const [k, x] of Object.entries(v)) await visit(node.additionalProperties as SchemaNode, x, ov?.[k], `${p}[${k}]`);
    }
  };
  try {
    await visit(schema, obj, old, path);
  } catch (e) {
    if (e !== STOP) throw e;
  }
  return errs;
}

/** Unwinds the walk once the cost budget is spent. */
const STOP = Symbol('stop');

/** Whether any node of the schema carries rules (skip the walk for CRDs without any). */
export function hasRules(schema: SchemaNode | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if ((schema['x-kubernetes-validations'] as unknown[] | undefined)?.length) return true;
  return Object.values(schema.properties ?? {}).some(hasRules) || hasRules(schema.items) || (isObj(schema.additionalProperties) && hasRules(schema.additionalProperties as SchemaNode));
}
