// Job spec rules of the fields added from 1.28 to 1.33 (upstream pkg/apis/batch/validation, 1.33): managedBy
// (JobManagedBy), successPolicy (JobSuccessPolicy), backoffLimitPerIndex / maxFailedIndexes (JobBackoffLimitPerIndex),
// elastic Indexed Jobs (completions changed with parallelism), and their immutability.
import { arr, obj, str } from './builtin-helpers.js';
import { dns1123SubdomainErrors } from './meta-validation.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject } from './types.js';

const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCESS_POLICY_RULES = 20;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_PARALLELISM_FOR_INDEXED = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FMT}$`);

/** apimachinery IsDomainPrefixedPath. */
export function domainPrefixedPathErrors(path: string, value: string): FieldError[] {
  if (value === '') return [fe.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [fe.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = dns1123SubdomainErrors(host).map((m) => fe.invalid(path, host, m));
  if (!HTTP_PATH.test(rest)) errs.push(fe.invalid(path, rest, `Invalid path (regex used for validation is '${HTTP_PATH_FMT}')`));
  return errs;
}

/** parseIndexInterval + validateIndexesFormat: the number of indexes, or the error text. */
export function indexesCount(indexes: string, completions: number): number | string {
  if (indexes === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const parts = interval.split('-');
    if (parts.length > 2) return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
    const nums: number[] = [];
    for (const p of parts) {
      // strconv.Atoi: an optional sign and decimal digits
      if (!/^[+-]?\d+$/.test(p)) return `cannot convert string to integer for index: ${JSON.stringify(p)}`;
      const n = Number(p);
      if (n >= completions) return `too large index: ${JSON.stringify(p)}`;
      nums.push(n);
    }
    const [x, y = nums[0]!] = nums as [number, number?];
    if (nums.length === 2 && x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
    total += y - x + 1;
    last = y;
  }
  return total;
}

const has = (v: unknown) => v !== undefined && v !== null;

function validateSuccessPolicy(spec: Record<string, unknown>, errs: FieldError[]): void {
  const path = 'spec.successPolicy';
  const rules = arr(obj(spec.successPolicy).rules);
  if (rules.length === 0) errs.push(fe.required(`${path}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(fe.tooMany(`${path}.rules`, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = typeof spec.completions === 'number' ? spec.completions : 0;
  rules.forEach((r, i) => {
    const rule = obj(r);
    const rp = `${path}.rules[${i}]`;
    if (!has(rule.succeededCount) && !has(rule.succeededIndexes)) errs.push(fe.required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    let total = 0;
    if (has(rule.succeededIndexes)) {
      const idx = str(rule.succeededIndexes);
      if (idx.length > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(fe.tooLong(`${rp}.succeededIndexes`, MAX_SUCCEEDED_INDEXES_LENGTH));
      const n = indexesCount(idx, completions);
      if (typeof n === 'string') errs.push(fe.invalid(`${rp}.succeededIndexes`, idx, `error parsing succeededIndexes: ${n}`));
      else total = n;
    }
    if (typeof rule.succeededCount === 'number') {
      const c = rule.succeededCount;
      const cp = `${rp}.succeededCount`;
      if (c < 0) errs.push(fe.invalid(cp, c, 'must be greater than or equal to 0'));
      if (c > completions) errs.push(fe.invalid(cp, c, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (has(rule.succeededIndexes) && c > total) errs.push(fe.invalid(cp, c, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
    }
  });
}

/** validateJobSpec's rules for the 1.28-1.33 fields, after the non-negative counts (upstream's order). */
export function validateJobSpec133(specIn: unknown, errs: FieldError[]): void {
  const spec = obj(specIn);
  if (typeof spec.backoffLimitPerIndex === 'number' && spec.backoffLimitPerIndex < 0)
    errs.push(fe.invalid('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex, 'must be greater than or equal to 0'));
  if (has(spec.maxFailedIndexes)) {
    if (typeof spec.maxFailedIndexes === 'number' && spec.maxFailedIndexes < 0)
      errs.push(fe.invalid('spec.maxFailedIndexes', spec.maxFailedIndexes, 'must be greater than or equal to 0'));
    if (!has(spec.backoffLimitPerIndex)) errs.push(fe.required('spec.backoffLimitPerIndex', 'when maxFailedIndexes is specified'));
  }
  if (has(spec.managedBy)) {
    const v = str(spec.managedBy);
    errs.push(...domainPrefixedPathErrors('spec.managedBy', v));
    if (v.length > MAX_MANAGED_BY_LENGTH) errs.push(fe.tooLong('spec.managedBy', MAX_MANAGED_BY_LENGTH));
  }
  if (has(spec.completionMode) && spec.completionMode !== 'NonIndexed' && spec.completionMode !== 'Indexed')
    errs.push(fe.notSupported('spec.completionMode', spec.completionMode, ['NonIndexed', 'Indexed']));
  const indexed = spec.completionMode === 'Indexed';
  if (indexed) {
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : undefined;
    const maxFailed = typeof spec.maxFailedIndexes === 'number' ? spec.maxFailedIndexes : undefined;
    if (completions === undefined) errs.push(fe.required('spec.completions', 'when completion mode is Indexed'));
    if (parallelism !== undefined && parallelism > MAX_PARALLELISM_FOR_INDEXED)
      errs.push(fe.invalid('spec.parallelism', parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED} when completion mode is Indexed`));
    if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) errs.push(fe.invalid('spec.maxFailedIndexes', maxFailed, 'must be less than or equal to completions'));
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_FOR_INDEXED)
      errs.push(fe.invalid('spec.maxFailedIndexes', maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED}`));
    if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && has(spec.backoffLimitPerIndex)) {
      if (maxFailed === undefined) errs.push(fe.required('spec.maxFailedIndexes', `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
      if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS)
        errs.push(fe.invalid('spec.parallelism', parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`));
      if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS)
        errs.push(fe.invalid('spec.maxFailedIndexes', maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`));
    }
  } else {
    if (has(spec.backoffLimitPerIndex)) errs.push(fe.invalid('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (has(spec.maxFailedIndexes)) errs.push(fe.invalid('spec.maxFailedIndexes', spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (has(spec.successPolicy)) {
    if (!indexed) errs.push(fe.invalid('spec.successPolicy', spec.successPolicy, 'requires indexed completion mode'));
    else validateSuccessPolicy(spec, errs);
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** ValidateJobSpecUpdate's rules beyond the template and selector: completions (elastic Indexed Jobs) and immutables. */
export function validateJobSpecUpdate133(o: KubeObject, old: KubeObject, errs: FieldError[]): void {
  const spec = obj(o.spec);
  const prev = obj(old.spec);
  // validateCompletions (ElasticIndexedJob, GA 1.31): an Indexed Job's completions change only with parallelism
  if (!same(spec.completions, prev.completions)) {
    if (spec.completionMode !== 'Indexed') errs.push(fe.invalid('spec.completions', spec.completions ?? null, 'field is immutable'));
    else if (has(spec.completions) && spec.completions !== spec.parallelism)
      errs.push(fe.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
  }
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'])
    if (!same(spec[f], prev[f])) errs.push(fe.invalid(`spec.${f}`, spec[f] ?? null, 'field is immutable'));
}
