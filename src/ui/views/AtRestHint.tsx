// "Stored at rest" row of the object summary: whether and how the server stores this object
// encrypted, from our read-only endpoint GET /debug/encryption-at-rest?path=<object path>
// (it reads only the stored prefix). Nothing is shown where the endpoint is missing (proxy mode).
import type { ResourceRef } from '../../client/index.js';
import { useAtRest } from '../data/queries.js';

export function AtRestHint({ objectRef, resourceVersion }: { objectRef: ResourceRef; resourceVersion?: string }) {
  const q = useAtRest(objectRef, resourceVersion);
  const info = q.data;
  if (!info) return null;
  const s = info.stored;
  const pending = s.encrypted ? info.writeProvider !== 'identity' && info.writeProvider !== s.prefix : info.writeProvider !== 'identity';
  return (
    <>
      <dt>Stored at rest</dt>
      <dd data-testid="at-rest" data-encrypted={String(s.encrypted)}>
        {s.encrypted ? (
          <>
            encrypted with <strong>{s.provider}</strong> <code className="mono small">{s.prefix}</code>
          </>
        ) : (
          <span className="muted">unencrypted (identity)</span>
        )}
        {pending && (
          <span className="muted small" data-testid="at-rest-pending">
            {' '}
            — the next write re-encrypts it with <code className="mono">{info.writeProvider}</code> (run a storage migration)
          </span>
        )}
      </dd>
    </>
  );
}
