// Storage key layout: /registry/<group|core>/<plural>/[<namespace>/]<name>
import type { ResourceType } from './types.js';

export function typePrefix(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return `/registry/${t.group || 'core'}/${t.plural}/`;
}

/** Prefix of a collection: the whole type, or one namespace of a namespaced type. */
export function collectionPrefix(t: Pick<ResourceType, 'group' | 'plural' | 'scope'>, namespace?: string): string {
  return t.scope === 'Namespaced' && namespace ? `${typePrefix(t)}${namespace}/` : typePrefix(t);
}

export function objectKey(t: Pick<ResourceType, 'group' | 'plural' | 'scope'>, namespace: string | undefined, name: string): string {
  return t.scope === 'Namespaced' ? `${typePrefix(t)}${namespace}/${name}` : `${typePrefix(t)}${name}`;
}
