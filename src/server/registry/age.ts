// Human-readable ages as upstream printers show them ("45s", "5m30s", "3h", "3d4h", "2y10d").

/**
 * Reads of the clock by printer cells: a Table row whose cells read it (ages, running durations) is
 * recomputed per request; the others are cached per object version (http/table-cache.ts).
 */
export const clock = { reads: 0 };

/** Date.now(), counted in `clock.reads`: printer cells read the time through this. */
export function nowMs(): number {
  clock.reads++;
  return Date.now();
}

/** Human-readable duration; up to 2s in the future counts as now, earlier than that is "<invalid>". */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Age of an RFC 3339 timestamp: "<unknown>" when absent or unparsable. */
export function ageSince(timestamp: unknown, now?: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration((now ?? nowMs()) - t);
}
