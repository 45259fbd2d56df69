// Pod (anti-)affinity terms' matchLabelKeys / mismatchLabelKeys (MatchLabelKeysInPodAffinity, beta and on by
// default since 1.31): merged into each term's labelSelector when a pod is created (upstream pod strategy's
// PrepareForCreate, mutatePodAffinity), and validated as upstream's validateMatchLabelKeysAndMismatchLabelKeys.
import { type Obj, arr, obj, str } from './builtin-helpers.js';
import { qualifiedNameErrors } from './meta-validation.js';
import * as fe from './schema/field-errors.js';
import type { FieldError } from './types.js';

const KINDS = ['podAffinity', 'podAntiAffinity'] as const;
const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

/** Every PodAffinityTerm of a pod spec with its field path, in upstream's validation order (required, then preferred). */
function affinityTerms(spec: Obj, path: string): [Obj, string][] {
  const out: [Obj, string][] = [];
  const affinity = obj(spec.affinity);
  for (const kind of KINDS) {
    const a = obj(affinity[kind]);
    const base = `${path}.affinity.${kind}`;
    arr(a[REQUIRED]).forEach((t, i) => {
      if (t && typeof t === 'object') out.push([t as Obj, `${base}.${REQUIRED}[${i}]`]);
    });
    arr(a[PREFERRED]).forEach((w, i) => {
      const t = obj(w).podAffinityTerm;
      if (t && typeof t === 'object') out.push([t as Obj, `${base}.${PREFERRED}[${i}].podAffinityTerm`]);
    });
  }
  return out;
}

const isSelector = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * On create only: for each key the pod has as a label, matchLabelKeys add `key In (value)` and mismatchLabelKeys add
 * `key NotIn (value)` to the term's labelSelector (a nil selector matches nothing and is left alone).
 */
export function mergeMatchLabelKeys(pod: Obj): void {
  const spec = obj(pod.spec);
  const labels = obj(obj(pod.metadata).labels);
  for (const [term] of affinityTerms(spec, 'spec')) {
    const match = arr(term.matchLabelKeys);
    const mismatch = arr(term.mismatchLabelKeys);
    if ((match.length === 0 && mismatch.length === 0) || !isSelector(term.labelSelector)) continue;
    const selector = term.labelSelector;
    const add = (keys: unknown[], operator: 'In' | 'NotIn') => {
      for (const k of keys) {
        if (typeof k !== 'string' || !Object.hasOwn(labels, k)) continue;
        if (!Array.isArray(selector.matchExpressions)) selector.matchExpressions = [];
        (selector.matchExpressions as unknown[]).push({ key: k, operator, values: [str(labels[k])] });
      }
    };
    add(match, 'In');
    add(mismatch, 'NotIn');
  }
}

/** Label-name checks of one key list; forbidden without a labelSelector (upstream validateLabelKeys). */
function labelKeysErrors(keys: unknown[], selector: unknown, path: string): FieldError[] {
  if (keys.length === 0) return [];
  if (!isSelector(selector)) return [fe.forbidden(path, 'must not be specified when labelSelector is not set')];
  const errs: FieldError[] = [];
  keys.forEach((k, i) => {
    for (const e of qualifiedNameErrors(str(k))) errs.push(fe.invalid(`${path}[${i}]`, str(k), e));
  });
  return errs;
}

/** validateMatchLabelKeysAndMismatchLabelKeys for every pod (anti-)affinity term of a pod spec. */
export function matchLabelKeysErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [term, tp] of affinityTerms(spec, path)) {
    const match = arr(term.matchLabelKeys).map((k) => str(k));
    const mismatch = arr(term.mismatchLabelKeys).map((k) => str(k));
    const selector = term.labelSelector;
    errs.push(...labelKeysErrors(match, selector, `${tp}.matchLabelKeys`));
    errs.push(...labelKeysErrors(mismatch, selector, `${tp}.mismatchLabelKeys`));
    if (isSelector(selector)) {
      // Validation runs after the create-time merge, so a matchLabelKeys key the user's selector already named shows
      // up twice: the second occurrence in matchExpressions is refused. Upstream names the path term[i] (no
      // ".matchLabelKeys"), i the key's last index in matchLabelKeys; mismatchLabelKeys may repeat selector keys.
      const index = new Map<string, number>();
      match.forEach((k, i) => index.set(k, i));
      const seen = new Set(Object.keys(obj(selector.matchLabels)));
      for (const e of arr(selector.matchExpressions)) {
        const key = str(obj(e).key);
        const i = index.get(key);
        if (i !== undefined && seen.has(key)) errs.push(fe.invalid(`${tp}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
        seen.add(key);
      }
    }
    const mismatchSet = new Set(mismatch);
    match.forEach((k, i) => {
      if (mismatchSet.has(k)) errs.push(fe.invalid(`${tp}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
    });
  }
  return errs;
}
