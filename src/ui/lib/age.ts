// Relative ages as kubectl prints them (5s, 3m2s, 4h, 12d), and one shared ticking clock.
import { useSyncExternalStore } from 'react';

export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** Human duration like kubectl's: two units under a day-ish, one unit beyond. */
export function formatAge(ms: number): string {
  if (ms < 0) ms = 0;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

export function ageOf(timestamp: unknown, now: number): string {
  const t = parseTime(timestamp);
  return t === undefined ? '' : formatAge(now - t);
}

// one interval for every subscriber, running only while someone watches the clock
let now = Date.now();
const subs = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(fn: () => void): () => void {
  subs.add(fn);
  if (!timer)
    timer = setInterval(() => {
      now = Date.now();
      for (const s of subs) s();
    }, 1000);
  return () => {
    subs.delete(fn);
    if (!subs.size && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time, re-rendering once a second. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}
