// Structural defaulting for CRD schemas: fills `default` values for absent fields (and for nulls
// in non-nullable fields) at every level whose parent exists, then recurses into what it filled.
import type { SchemaNode } from './types.js';
import type { SchemaRegistry } from './registry.js';

const hasDefaultsCache = new WeakMap<SchemaNode, boolean>();

function hasDefaults(node: SchemaNode, reg: SchemaRegistry): boolean {
  const cached = hasDefaultsCache.get(node);
  if (cached !== undefined) return cached;
  hasDefaultsCache.set(node, false); // cycle guard (recursive definitions)
  const n = reg.resolve(node);
  let found = false;
  if (n.properties) {
    for (const k in n.properties) {
      const p = n.properties[k]!;
      if (reg.resolve(p).default !== undefined || hasDefaults(p, reg)) {
        found = true;
        break;
      }
    }
  }
  if (!found && n.items) found = hasDefaults(n.items, reg);
  if (!found && n.additionalProperties && typeof n.additionalProperties === 'object') {
    found = hasDefaults(n.additionalProperties, reg);
  }
  hasDefaultsCache.set(node, found);
  return found;
}

/** Mutates value in place. Returns it for convenience. */
export function applySchemaDefaults<T>(value: T, node: SchemaNode, reg: SchemaRegistry): T {
  walk(value, node, reg);
  return value;
}

function walk(v: unknown, node: SchemaNode, reg: SchemaRegistry): void {
  if (v === null || typeof v !== 'object' || !hasDefaults(node, reg)) return;
  const n = reg.resolve(node);
  if (Array.isArray(v)) {
    if (n.items) for (const item of v) walk(item, n.items, reg);
    return;
  }
  const o = v as Record<string, unknown>;
  if (n.properties) {
    for (const k in n.properties) {
      const p = n.properties[k]!;
      const pr = reg.resolve(p);
      if (pr.default !== undefined && (o[k] === undefined || (o[k] === null && !pr.nullable))) {
        o[k] = structuredClone(pr.default);
      }
      if (o[k] !== undefined) walk(o[k], p, reg);
    }
  }
  const ap = n.additionalProperties;
  if (ap && typeof ap === 'object') {
    for (const k in o) if (!n.properties?.[k]) walk(o[k], ap, reg);
  }
}
