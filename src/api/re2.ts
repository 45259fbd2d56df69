// Regular expressions with RE2 semantics, as upstream uses for OpenAPI `pattern`
// (kube-openapi validates with Go's regexp) and the Kubernetes CEL regex library
// (find/findAll). RE2 matches in time linear in the input, so a pattern written by a
// CRD author cannot be turned into a denial of service by whoever creates objects;
// JS RegExp backtracks (`^(a+)+$` on 30 characters takes seconds).
import { RE2JS } from 're2js';

export type Re2 = RE2JS;

// Patterns come from stored schemas and rules; a bounded cache keeps compiled forms
// without letting distinct patterns grow memory without limit.
const MAX_CACHED = 2048;
const cache = new Map<string, Re2 | Error>();

/** Compiles (or returns the cached) RE2 pattern; throws with Go's `error parsing regexp: ...` text. */
export function compileRe2(pattern: string): Re2 {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = new Error((e as Error).message);
    }
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, re);
  }
  if (re instanceof Error) throw re;
  return re;
}

/** The compile error text for an invalid pattern, or null when it compiles. */
export function re2Error(pattern: string): string | null {
  try {
    compileRe2(pattern);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
