// "What changed in the last N minutes" in one namespace. Creations and changes come from every kind's
// objects (metadata-only, paged): those whose managedFields were written within the window, with who wrote
// them. Deletions leave no object to list: they come from each kind's watch replayed from the earliest
// resourceVersion the server retains (DELETED events), read until the replay goes quiet. A deletion
// carries no time of its own, so it is placed by its resourceVersion: in the window when it is newer than
// every version the replay saw written before the window began. Newest first, by resourceVersion.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { ApiError, isAbort, openWatch, type ApiResource, type KubeObject, type ManagedFieldsEntry } from '../../client/index.js';
import { api } from '../api.js';
import { keys } from './keys.js';
import { eachLimited, listPages } from './scan.js';

export interface Change {
  resource: ApiResource;
  name: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The write (created, changed); for a deletion, the last write before it, if any. */
  entry?: ManagedFieldsEntry;
  createdAt?: string;
  resourceVersion?: string;
}

export interface NamespaceChanges {
  changes: Change[];
  /** Kinds whose history the server no longer retains (410): deletions among them cannot be told. */
  expired: string[];
}

/** A replay that has sent nothing for this long has caught up (it goes out as one backlog). */
const REPLAY_IDLE_MS = 400;
/** Longest a kind's replay may take; the server ends the watch then with a bookmark. */
const REPLAY_TIMEOUT_SECONDS = 5;

function latest(o: KubeObject): ManagedFieldsEntry | undefined {
  let best: ManagedFieldsEntry | undefined;
  for (const e of o.metadata?.managedFields ?? []) if (e.time && (!best || e.time >= best.time!)) best = e;
  return best;
}

const rvOf = (o: unknown): bigint | undefined => {
  const rv = (o as KubeObject | undefined)?.metadata?.resourceVersion;
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
};

interface Replay {
  deleted: { name: string; rv: bigint; last?: ManagedFieldsEntry }[];
  /** The newest resourceVersion the replay saw written before the window began. */
  before: bigint;
  expired: boolean;
}

/** One kind's watch events in the namespace from the earliest retained version until the replay goes quiet. */
async function replay(k: ApiResource, namespace: string, since: string, signal: AbortSignal): Promise<Replay> {
  const out: Replay = { deleted: [], before: 0n, expired: false };
  const ac = new AbortController();
  const stop = () => ac.abort();
  signal.addEventListener('abort', stop);
  try {
    const conn = await openWatch(api, { group: k.group, version: k.version, resource: k.resource, namespace }, { resourceVersion: '1', representation: 'metadata', allowWatchBookmarks: true, timeoutSeconds: REPLAY_TIMEOUT_SECONDS, signal: ac.signal });
    const it = conn.events[Symbol.asyncIterator]();
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const next = await Promise.race([it.next(), new Promise<'idle'>((r) => (timer = setTimeout(() => r('idle'), REPLAY_IDLE_MS)))]);
      clearTimeout(timer);
      if (next === 'idle' || next.done) break;
      const ev = next.value;
      if (ev.type === 'ERROR') {
        out.expired = (ev.object as { code?: number })?.code === 410;
        break;
      }
      const rv = rvOf(ev.object);
      const o = ev.object as KubeObject;
      if (ev.type === 'DELETED' && rv !== undefined) out.deleted.push({ name: o.metadata?.name ?? '', rv, last: latest(o) });
      else if (ev.type !== 'BOOKMARK' && rv !== undefined) {
        const t = latest(o)?.time;
        if (t && t < since && rv > out.before) out.before = rv;
      }
    }
  } catch (e) {
    if (e instanceof ApiError && e.code === 410) out.expired = true;
    else if (!isAbort(e)) throw e;
  } finally {
    signal.removeEventListener('abort', stop);
    ac.abort();
  }
  return out;
}

const sinceOf = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** Creations and changes: every kind's objects whose latest write falls in the window. */
async function readChanges(kinds: ApiResource[], namespace: string, minutes: number, signal: AbortSignal): Promise<Change[]> {
  const since = sinceOf(minutes);
  const changes: Change[] = [];
  await eachLimited(
    kinds,
    4,
    async (k) => {
      try {
        for await (const page of listPages(k, { namespace, signal }))
          for (const o of page) {
            const e = latest(o);
            // "created" only when the latest write is the creation itself (same second); a later write is a change
            if (e?.time && e.time >= since)
              changes.push({ resource: k, name: o.metadata!.name!, type: o.metadata?.creationTimestamp && e.time <= o.metadata.creationTimestamp ? 'ADDED' : 'MODIFIED', entry: e, createdAt: o.metadata?.creationTimestamp, resourceVersion: o.metadata?.resourceVersion });
          }
      } catch {
        // a kind we may not list
      }
    },
    signal,
  );
  return changes;
}

/** Deletions: every watchable kind's replay, DELETED events newer than what was written before the window. */
async function readDeletions(kinds: ApiResource[], namespace: string, minutes: number, signal: AbortSignal): Promise<NamespaceChanges> {
  const since = sinceOf(minutes);
  const deleted: { k: ApiResource; d: Replay['deleted'][number] }[] = [];
  const expired: string[] = [];
  let before = 0n;
  await eachLimited(
    kinds.filter((k) => k.verbs.includes('watch')),
    4,
    async (k) => {
      try {
        const r = await replay(k, namespace, since, signal);
        if (r.expired) expired.push(k.kind);
        if (r.before > before) before = r.before;
        for (const d of r.deleted) deleted.push({ k, d });
      } catch {
        // a kind we may not watch: its deletions are not shown
      }
    },
    signal,
  );
  const changes = deleted.filter(({ d }) => d.rv > before || (d.last?.time ?? '') >= since).map(({ k, d }): Change => ({ resource: k, name: d.name, type: 'DELETED', entry: d.last, resourceVersion: String(d.rv) }));
  return { changes, expired: expired.sort() };
}

const rvNum = (c: Change) => (c.resourceVersion && /^\d+$/.test(c.resourceVersion) ? BigInt(c.resourceVersion) : 0n);

/** Newest first: by resourceVersion (a deletion has no time), then by the write's time. */
export function newestFirst(changes: Change[]): Change[] {
  return [...changes].sort((a, b) => (rvNum(b) > rvNum(a) ? 1 : rvNum(b) < rvNum(a) ? -1 : (b.entry?.time ?? '').localeCompare(a.entry?.time ?? '')));
}

/**
 * The namespace's creations, changes and deletions in the last `minutes`: the listed changes show as soon
 * as the lists are read, the deletions join when the replays are (`deletionsLoading` until then).
 */
export function useNamespaceChanges(namespace: string, minutes: number, kinds: ApiResource[]) {
  const listed = useQuery({
    queryKey: keys.namespaceChanges(namespace, minutes, kinds.length),
    queryFn: ({ signal }) => readChanges(kinds, namespace, minutes, signal),
  });
  const deletions = useQuery({
    queryKey: keys.namespaceDeletions(namespace, minutes, kinds.length),
    queryFn: ({ signal }) => readDeletions(kinds, namespace, minutes, signal),
  });
  const changes = useMemo(() => (listed.data ? newestFirst([...listed.data, ...(deletions.data?.changes ?? [])]) : undefined), [listed.data, deletions.data]);
  return { changes, isLoading: listed.isLoading, deletionsLoading: deletions.isLoading, expired: deletions.data?.expired ?? [] };
}
