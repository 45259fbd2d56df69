// Standard 5-field cron schedules as the CronJob controller reads them (robfig/cron's standard parser): minute,
// hour, day of month, month, day of week with `*`, lists, ranges, steps, month and weekday names, and the
// @yearly/@monthly/@weekly/@daily/@hourly descriptors; evaluated in an IANA time zone (spec.timeZone).

const FIELDS: { min: number; max: number; names?: string[] }[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export interface CronSchedule {
  sets: Set<number>[];
  /** Day of month and day of week both restricted: either matches (cron's rule). */
  domStar: boolean;
  dowStar: boolean;
}

export class CronError extends Error {}

export function parseCron(spec: string): CronSchedule {
  const text = DESCRIPTORS[spec.trim().toLowerCase()] ?? spec.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw new CronError(`expected exactly 5 fields, found ${parts.length}: ${spec}`);
  const sets = parts.map((p, i) => parseField(p, FIELDS[i]!));
  // 7 is Sunday too
  if (sets[4]!.has(7)) sets[4]!.add(0);
  return { sets, domStar: parts[2] === '*' || parts[2] === '?', dowStar: parts[4] === '*' || parts[4] === '?' };
}

function parseField(field: string, f: { min: number; max: number; names?: string[] }): Set<number> {
  const out = new Set<number>();
  const val = (s: string): number => {
    const named = f.names?.indexOf(s.toLowerCase()) ?? -1;
    if (named >= 0) return named + f.min;
    if (!/^\d+$/.test(s)) throw new CronError(`failed to parse int from ${s}`);
    return Number(s);
  };
  for (const part of field.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step <= 0) throw new CronError(`invalid step in ${part}`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [f.min, f.max];
    else if (range!.includes('-')) {
      const [a, b] = range!.split('-');
      [lo, hi] = [val(a!), val(b!)];
    } else {
      lo = val(range!);
      hi = stepText === undefined ? lo : f.max;
    }
    const max = f.names && f.max === 6 ? 7 : f.max;
    if (lo < f.min || hi > max || lo > hi) throw new CronError(`end of range (${hi}) above maximum (${max}): ${part}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** Wall-clock fields of an instant in a time zone ('' or undefined = UTC here, as the controller's local zone). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function fieldsIn(ms: number, timeZone: string | undefined): number[] {
  const tz = timeZone || 'UTC';
  let fmt = formatters.get(tz);
  if (!fmt) formatters.set(tz, (fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' })));
  const parts = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const dow = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts['weekday']!);
  return [Number(parts['minute']), Number(parts['hour']), Number(parts['day']), Number(parts['month']), dow];
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function matches(s: CronSchedule, ms: number, tz: string | undefined): boolean {
  const [mi, h, dom, mon, dow] = fieldsIn(ms, tz);
  if (!s.sets[0]!.has(mi!) || !s.sets[1]!.has(h!) || !s.sets[3]!.has(mon!)) return false;
  const domOk = s.sets[2]!.has(dom!);
  const dowOk = s.sets[4]!.has(dow!);
  if (s.domStar || s.dowStar) return domOk && dowOk;
  return domOk || dowOk;
}

const MINUTE = 60_000;

/**
 * The latest scheduled time in (after, until], and how many were missed; scans minute by minute, at most
 * `limit` minutes back (upstream gives up past 100 missed starts too).
 */
export function mostRecentSchedule(s: CronSchedule, tz: string | undefined, after: number, until: number, limit = 60 * 24 * 8): { time?: number; missed: number } {
  let missed = 0;
  let time: number | undefined;
  const start = Math.max(Math.floor(after / MINUTE) * MINUTE + MINUTE, Math.floor(until / MINUTE) * MINUTE - limit * MINUTE);
  for (let t = start; t <= until; t += MINUTE)
    if (matches(s, t, tz)) {
      time = t;
      missed++;
    }
  return { time, missed };
}

/** The next scheduled time after `after` within `horizonMinutes` (two days by default), or undefined. */
export function nextSchedule(s: CronSchedule, tz: string | undefined, after: number, horizonMinutes = 2 * 24 * 60): number | undefined {
  for (let t = Math.floor(after / MINUTE) * MINUTE + MINUTE, n = 0; n < horizonMinutes; t += MINUTE, n++) if (matches(s, t, tz)) return t;
  return undefined;
}
