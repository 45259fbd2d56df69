// Encode each object version once per output form and reuse the bytes (GET, lists and watch fan-out).
import type { KubeObject } from '../registry/types.js';
import { inApiVersionSpelling } from '../registry/names.js';

const cache = new WeakMap<KubeObject, Map<string, Buffer>>();

/**
 * `JSON.stringify` of `obj` served with `apiVersion`, followed by "\n": the exact bytes of a JSON
 * response body (encodeObject); a list item is these bytes without the last one. Cached on the
 * (immutable) object, one buffer per apiVersion spelling.
 */
export function cachedJsonLine(obj: KubeObject, apiVersion: string): Buffer {
  let m = cache.get(obj);
  if (!m) cache.set(obj, (m = new Map()));
  let b = m.get(apiVersion);
  if (!b) {
    b = Buffer.from(JSON.stringify(!obj.apiVersion ? obj : inApiVersionSpelling(obj, apiVersion)) + '\n');
    m.set(apiVersion, b);
  }
  return b;
}

/** Generic cached encoding for other forms (key names the form; never a bare apiVersion). */
export function cachedEncoding(obj: KubeObject, key: string, encode: () => Buffer): Buffer {
  let m = cache.get(obj);
  if (!m) cache.set(obj, (m = new Map()));
  let b = m.get(key);
  if (!b) m.set(key, (b = encode()));
  return b;
}
