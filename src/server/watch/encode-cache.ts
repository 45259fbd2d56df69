// Encode each object version once per output form and reuse the bytes (lists and watch fan-out).
import type { KubeObject } from '../registry/types.js';

const cache = new WeakMap<KubeObject, Map<string, Buffer>>();

/** JSON of `obj` served with `apiVersion`; cached on the (immutable) object. */
export function cachedJson(obj: KubeObject, apiVersion: string): Buffer {
  let m = cache.get(obj);
  if (!m) cache.set(obj, (m = new Map()));
  const k = 'json:' + apiVersion;
  let b = m.get(k);
  if (!b) {
    b = Buffer.from(JSON.stringify(obj.apiVersion === apiVersion || !obj.apiVersion ? obj : { ...obj, apiVersion }));
    m.set(k, b);
  }
  return b;
}

/** Generic cached encoding for other forms (key names the form). */
export function cachedEncoding(obj: KubeObject, key: string, encode: () => Buffer): Buffer {
  let m = cache.get(obj);
  if (!m) cache.set(obj, (m = new Map()));
  let b = m.get(key);
  if (!b) m.set(key, (b = encode()));
  return b;
}
