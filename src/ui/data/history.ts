// One object's history within what the server retains, read through the public API: a watch from the
// earliest resourceVersion with a field selector on the name replays every change (ADDED, MODIFIED,
// DELETED as the watch says). Where history is no longer retained the server answers 410 (Expired).
import { useEffect, useState } from 'react';
import { ApiError, isAbort, openWatch, type KubeObject, type ResourceRef } from '../../client/index.js';
import { api } from '../api.js';

export interface Version {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

/** How long the replay may take before the view shows what it has. */
const REPLAY_TIMEOUT_SECONDS = 10;
/** Without a current version (the object is gone) the replay ends at its deletion or after this. */
const DELETED_REPLAY_SECONDS = 4;

export function useObjectHistory(ref: ResourceRef, currentRv: string | undefined) {
  const [versions, setVersions] = useState<Version[]>([]);
  const [state, setState] = useState<{ loading: boolean; expired?: boolean; error?: unknown }>({ loading: true });
  useEffect(() => {
    const ac = new AbortController();
    const found: Version[] = [];
    setVersions([]);
    setState({ loading: true });
    void (async () => {
      try {
        const conn = await openWatch(api, { ...ref, name: undefined }, {
          // the earliest version there is: the server replays what it retains, or answers 410
          resourceVersion: '1',
          fieldSelector: `metadata.name=${ref.name}`,
          allowWatchBookmarks: true,
          timeoutSeconds: currentRv ? REPLAY_TIMEOUT_SECONDS : DELETED_REPLAY_SECONDS,
          signal: ac.signal,
        });
        for await (const ev of conn.events) {
          if (ev.type === 'ERROR') {
            const code = (ev.object as { code?: number })?.code;
            setState({ loading: false, expired: code === 410, error: code === 410 ? undefined : new ApiError(code ?? 500, (ev.object as { message?: string })?.message ?? 'watch error') });
            break;
          }
          const rv = (ev.object as KubeObject)?.metadata?.resourceVersion;
          if (ev.type !== 'BOOKMARK') {
            found.push({ type: ev.type as Version['type'], object: ev.object as KubeObject });
            setVersions([...found]);
          }
          // caught up with the version on screen: the history is complete
          if (currentRv && rv && BigInt(rv) >= BigInt(currentRv)) break;
          // a deleted object has no version to catch up with: its deletion ends the story
          if (!currentRv && ev.type === 'DELETED') break;
        }
        setState((s) => (s.expired || s.error ? s : { loading: false }));
      } catch (e) {
        if (isAbort(e)) return;
        setState({ loading: false, expired: e instanceof ApiError && e.code === 410, error: e instanceof ApiError && e.code === 410 ? undefined : e });
      } finally {
        ac.abort();
      }
    })();
    return () => ac.abort();
    // the replay starts over when the object changes (a new version to catch up with)
  }, [ref.group, ref.version, ref.resource, ref.namespace, ref.name, currentRv]); // eslint-disable-line react-hooks/exhaustive-deps
  return { versions, ...state };
}
