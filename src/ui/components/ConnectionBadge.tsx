// The live / reconnecting / stale indicator over every open watch.
import { useConnectionSummary } from '../data/informers.js';
import { formatAge, useNow } from '../lib/age.js';

const LABEL: Record<string, string> = {
  idle: 'idle',
  live: 'live',
  connecting: 'connecting',
  reconnecting: 'reconnecting',
  stale: 'stale',
  error: 'error',
  stopped: 'stopped',
};

export function ConnectionBadge() {
  const s = useConnectionSummary();
  const now = useNow();
  const detail =
    s.state === 'live' || s.state === 'idle'
      ? `${s.total} watch${s.total === 1 ? '' : 'es'} open`
      : `${s.worst?.label}: ${s.worst?.state}${s.worst?.error ? ` — ${s.worst.error}` : ''}${s.liveAt ? ` (last live ${formatAge(now - s.liveAt)} ago)` : ''}`;
  return (
    <span className={`conn conn-${s.state}`} data-testid="connection" data-state={s.state} title={detail} role="status" aria-live="polite">
      <span className="conn-dot" aria-hidden />
      {LABEL[s.state]}
    </span>
  );
}

export function ConnectionBanner() {
  const s = useConnectionSummary();
  if (s.state !== 'stale' && s.state !== 'reconnecting') return null;
  return (
    <div className={`banner banner-${s.state}`} role="status" data-testid="connection-banner">
      {s.state === 'stale'
        ? 'Connection to the API server lost: the data shown may be out of date. Reconnecting…'
        : 'Connection interrupted: reconnecting and resuming from the last seen version…'}
    </div>
  );
}
