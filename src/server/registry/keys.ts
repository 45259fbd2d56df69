// Storage key layout: /registry/<group|core>/<plural>/[<namespace>/]<name>
import type { ResourceType } from './types.js';

export function typePrefix(t: Pick<ResourceType, 'group' | 'plural'> & { storageGroup?: string }): string {
  const group = t.storageGroup ?? t.group;
  return `/registry/${group || 'core'}/${t.plural}/`;
}

/** Prefix of a collection: the whole type, or one namespace of a namespaced type. */
export function collectionPrefix(t: Pick<ResourceType, 'group' | 'plural' | 'scope' | 'storageGroup'>, namespace?: string): string {
  return t.scope === 'Namespaced' && namespace ? `${typePrefix(t)}${namespace}/` : typePrefix(t);
}

export function objectKey(t: Pick<ResourceType, 'group' | 'plural' | 'scope' | 'storageGroup'>, namespace: string | undefined, name: string): string {
  return t.scope === 'Namespaced' ? `${typePrefix(t)}${namespace}/${name}` : `${typePrefix(t)}${name}`;
}
