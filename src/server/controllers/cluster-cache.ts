// The informers of the simulated cluster components: one in-memory index of the kinds they watch, fed by the
// shared object feed (one watch over the store), with per-kind handlers and an index by controller owner uid.
import type { KubeObject } from '../registry/types.js';
import { parseKey, type FeedEvent, type FeedItem, type FeedListener } from './object-feed.js';

/** `group/plural` with 'core' for the core group, e.g. 'apps/deployments', 'core/pods'. */
export type KindId = string;

export interface CacheEvent {
  type: 'put' | 'delete';
  obj: KubeObject;
  /** The state before a put (undefined for creates and re-lists). */
  prev?: KubeObject;
}

export type CacheHandler = (ev: CacheEvent) => void;

export function kindOfKey(key: string): { kind: KindId; namespace: string; name: string } | undefined {
  const p = parseKey(key);
  if (!p) return undefined;
  return { kind: `${p.group || 'core'}/${p.plural}`, namespace: p.namespace, name: p.name };
}

const nsName = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;

export function controllerRef(o: KubeObject) {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

export class ClusterCache implements FeedListener {
  private objects = new Map<KindId, Map<string, KubeObject>>();
  private handlers = new Map<KindId, CacheHandler[]>();
  /** controller owner uid → kind → ns/name of the objects it controls. */
  private owned = new Map<string, Map<KindId, Set<string>>>();
  /** kind → namespace → ns/name of the objects without a controller (candidates for adoption). */
  private orphaned = new Map<KindId, Map<string, Set<string>>>();
  /** Kinds whose changes are handed on but whose objects are not held (see follow). */
  private followed = new Map<KindId, { h: CacheHandler; reset: () => void }[]>();

  /** Starts holding a kind (before the feed starts) and calls h on its changes. */
  on(kind: KindId, h?: CacheHandler): void {
    if (!this.objects.has(kind)) this.objects.set(kind, new Map());
    if (!h) return;
    const list = this.handlers.get(kind) ?? [];
    list.push(h);
    this.handlers.set(kind, list);
  }

  /**
   * Calls h on a kind's changes without holding its objects (reset, then a put per object, at every re-list): for a
   * listener that keeps a small index of its own, such as the Event TTL over an hour of Events.
   */
  follow(kind: KindId, h: CacheHandler, reset: () => void): void {
    const list = this.followed.get(kind) ?? [];
    list.push({ h, reset });
    this.followed.set(kind, list);
  }

  /** The kinds held or followed (what a remote feed lists and watches). */
  kinds(): KindId[] {
    return [...new Set([...this.objects.keys(), ...this.followed.keys()])];
  }

  get(kind: KindId, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(kind)?.get(nsName(namespace, name));
  }

  list(kind: KindId, namespace?: string): KubeObject[] {
    const m = this.objects.get(kind);
    if (!m) return [];
    const out: KubeObject[] = [];
    for (const o of m.values()) if (namespace === undefined || (o.metadata?.namespace ?? '') === namespace) out.push(o);
    return out;
  }

  /** The objects of a kind whose controller owner reference names uid. */
  ownedBy(uid: string | undefined, kind: KindId): KubeObject[] {
    const keys = uid ? this.owned.get(uid)?.get(kind) : undefined;
    if (!keys) return [];
    const m = this.objects.get(kind)!;
    const out: KubeObject[] = [];
    for (const k of keys) {
      const o = m.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** The objects of a kind in a namespace that no controller owns. */
  orphans(kind: KindId, namespace: string | undefined): KubeObject[] {
    const keys = this.orphaned.get(kind)?.get(namespace ?? '');
    if (!keys) return [];
    const m = this.objects.get(kind)!;
    const out: KubeObject[] = [];
    for (const k of keys) {
      const o = m.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  private index(kind: KindId, k: string, obj: KubeObject | undefined, add: boolean): void {
    const uid = obj ? controllerRef(obj)?.uid : undefined;
    if (obj && !uid) {
      const ns = obj.metadata?.namespace ?? '';
      let byNs = this.orphaned.get(kind);
      if (!byNs) this.orphaned.set(kind, (byNs = new Map()));
      let set = byNs.get(ns);
      if (add) {
        if (!set) byNs.set(ns, (set = new Set()));
        set.add(k);
      } else if (set) {
        set.delete(k);
        if (set.size === 0) byNs.delete(ns);
      }
    }
    if (!uid) return;
    let byKind = this.owned.get(uid);
    if (add) {
      if (!byKind) this.owned.set(uid, (byKind = new Map()));
      let set = byKind.get(kind);
      if (!set) byKind.set(kind, (set = new Set()));
      set.add(k);
    } else if (byKind) {
      byKind.get(kind)?.delete(k);
      if (byKind.get(kind)?.size === 0) byKind.delete(kind);
      if (byKind.size === 0) this.owned.delete(uid);
    }
  }

  onSync(items: FeedItem[]): void {
    for (const m of this.objects.values()) m.clear();
    this.owned.clear();
    this.orphaned.clear();
    for (const fs of this.followed.values()) for (const f of fs) f.reset();
    const seen: [KindId, KubeObject][] = [];
    for (const it of items) {
      const k = kindOfKey(it.key);
      if (k && it.obj) for (const f of this.followed.get(k.kind) ?? []) f.h({ type: 'put', obj: it.obj });
      const m = k && this.objects.get(k.kind);
      if (!k || !m || !it.obj) continue;
      const id = nsName(k.namespace || undefined, k.name);
      m.set(id, it.obj);
      this.index(k.kind, id, it.obj, true);
      seen.push([k.kind, it.obj]);
    }
    for (const [kind, obj] of seen) for (const h of this.handlers.get(kind) ?? []) h({ type: 'put', obj });
  }

  onEvent(ev: FeedEvent): void {
    const k = kindOfKey(ev.key);
    if (k && ev.obj) for (const f of this.followed.get(k.kind) ?? []) f.h(ev.type === 'delete' ? { type: 'delete', obj: ev.obj } : { type: 'put', obj: ev.obj });
    const m = k && this.objects.get(k.kind);
    if (!k || !m) return;
    const id = nsName(k.namespace || undefined, k.name);
    const old = m.get(id);
    this.index(k.kind, id, old, false);
    if (ev.type === 'delete' || !ev.obj) {
      m.delete(id);
      const last = ev.obj ?? old;
      if (last) for (const h of this.handlers.get(k.kind) ?? []) h({ type: 'delete', obj: last });
      return;
    }
    m.set(id, ev.obj);
    this.index(k.kind, id, ev.obj, true);
    for (const h of this.handlers.get(k.kind) ?? []) h({ type: 'put', obj: ev.obj, prev: old });
  }
}
