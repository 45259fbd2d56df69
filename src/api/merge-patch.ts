// JSON Merge Patch (RFC 7386): apply, and create the patch that turns one document into another.

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns a new value; `target` is not modified. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** The smallest merge patch p with applyMergePatch(from, p) deep-equal to `to` (arrays are replaced whole). */
export function createMergePatch(from: Json, to: Json): Json {
  if (!isObject(from) || !isObject(to)) return deepEqual(from, to) ? {} : to;
  const patch: Record<string, Json> = {};
  for (const k of Object.keys(from)) if (!(k in to)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (!(k in from)) patch[k] = v;
    else if (!deepEqual(from[k], v)) patch[k] = isObject(from[k]) && isObject(v) ? createMergePatch(from[k], v) : v;
  }
  return patch;
}

export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ak = Object.keys(a as object);
  const bo = b as Record<string, Json>;
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => k in bo && deepEqual((a as Record<string, Json>)[k], bo[k]));
}
