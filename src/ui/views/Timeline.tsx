// One object's history within what the server retains, read through the public API: a watch from the
// earliest resourceVersion with a field selector on the name replays every change, each shown as a
// diff from the version before with who made it (the managedFields entry written last). Where history
// is no longer retained the server answers 410 (Expired) and the view says so.
import { useEffect, useMemo, useState } from 'react';
import { ApiError, isAbort, openWatch, type KubeObject, type ManagedFieldsEntry, type ResourceRef } from '../../client/index.js';
import { api } from '../api.js';
import { printObject, withoutNoise } from '../editor/documents.js';
import { changedHunks, diffLines } from '../lib/line-diff.js';

export interface Version {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

const entryKey = (e: ManagedFieldsEntry) => `${e.manager}\u0000${e.operation}\u0000${e.subresource ?? ''}`;

/**
 * Who made a version: the managedFields entry this write added or changed (its fields or time) against
 * the version before; timestamps have one-second resolution, so "written last" alone cannot tell.
 */
export function authorOf(obj: KubeObject, prev?: KubeObject): ManagedFieldsEntry | undefined {
  const before = new Map((prev?.metadata?.managedFields ?? []).map((e) => [entryKey(e), e]));
  const entries = obj.metadata?.managedFields ?? [];
  // a writer's entry is new or re-stamped; an entry that only lost fields (taken over by the writer) is not the writer's
  const stamped = entries.filter((e) => {
    const b = before.get(entryKey(e));
    return !b || b.time !== e.time;
  });
  const changed = entries.filter((e) => JSON.stringify(before.get(entryKey(e))?.fieldsV1) !== JSON.stringify(e.fieldsV1));
  let best: ManagedFieldsEntry | undefined;
  for (const e of stamped.length ? stamped : changed.length ? changed : entries) if (!best || (e.time ?? '') >= (best.time ?? '')) best = e;
  return best;
}

/** How long the replay may take before the view shows what it has. */
const REPLAY_TIMEOUT_SECONDS = 10;

function useHistory(ref: ResourceRef, currentRv: string | undefined) {
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
          timeoutSeconds: REPLAY_TIMEOUT_SECONDS,
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

export function Timeline({ objectRef, object }: { objectRef: ResourceRef; object: KubeObject }) {
  const { versions, loading, expired, error } = useHistory(objectRef, object.metadata?.resourceVersion);
  const entries = useMemo(() => {
    const texts = versions.map((v) => printObject(withoutNoise(v.object), 'yaml'));
    return versions
      .map((v, i) => {
        const diff = diffLines(i === 0 ? '' : texts[i - 1]!, texts[i]!);
        return { v, hunks: diff ? changedHunks(diff) : undefined, author: authorOf(v.object, versions[i - 1]?.object) };
      })
      .reverse();
  }, [versions]);
  return (
    <div className="timeline" data-testid="timeline">
      <p className="muted small">
        Changes of this object the server still retains, newest first; each with the manager that wrote it (from managedFields).
        {loading && ' Reading history…'}
      </p>
      {expired && (
        <div className="banner banner-warn" data-testid="timeline-expired">
          The server no longer retains the older history of this object (410 Expired): only the changes since then are shown.
        </div>
      )}
      {!!error && (
        <div className="banner banner-error" role="alert">
          {(error as Error).message}
        </div>
      )}
      <ol className="timeline-list" data-testid="timeline-entries">
        {entries.map(({ v, hunks, author }) => (
          <li key={v.object.metadata?.resourceVersion} className="timeline-entry" data-testid="timeline-entry" data-type={v.type}>
            <div className="timeline-head">
              <strong>{v.type === 'ADDED' ? 'Created' : v.type === 'DELETED' ? 'Deleted' : 'Changed'}</strong> <span className="mono small">resourceVersion {v.object.metadata?.resourceVersion}</span>
              {author && (
                <span className="muted small" data-testid="timeline-author">
                  {' '}
                  by <span className="mono">{author.manager}</span> ({author.operation}
                  {author.subresource ? `, ${author.subresource}` : ''}){author.time ? ` at ${author.time}` : ''}
                </span>
              )}
            </div>
            {hunks ? (
              <pre className="diff mono small" data-testid="timeline-diff">
                {hunks.map((h, i) =>
                  h === 'gap' ? (
                    <span key={i} className="diff-gap">
                      {'⋯\n'}
                    </span>
                  ) : (
                    <span key={i} className={h.op === '+' ? 'diff-add' : h.op === '-' ? 'diff-del' : 'diff-ctx'}>
                      {`${h.op} ${h.text}\n`}
                    </span>
                  ),
                )}
              </pre>
            ) : (
              <p className="muted small">Too large to diff line by line.</p>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
