// Conversions between the JSON text forms of metav1.Time / MicroTime / Duration and their
// protobuf numbers (Unix seconds + nanos; Duration in nanoseconds). Integer calendar math, so
// years outside the JS Date comfort zone (e.g. 0001) work.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [m <= 2 ? y + 1 : y, m, d];
}

export interface Timestamp {
  seconds: number;
  nanos: number;
}

/** Parses an RFC 3339 timestamp (any offset, optional fraction) into Unix seconds + nanos. */
export function parseRfc3339(s: string): Timestamp {
  const m = RFC3339.exec(s);
  if (!m) throw new Error(`invalid RFC 3339 time ${JSON.stringify(s)}`);
  const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
  let seconds = days * 86400 + Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  if (m[8] === undefined) {
    const off = Number(m[10]) * 3600 + Number(m[11]) * 60;
    seconds -= m[9] === '+' ? off : -off;
  }
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/** Formats as Go's metav1.Time JSON: RFC 3339 in UTC, whole seconds. */
export function formatTime(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  let rem = seconds - days * 86400;
  const [y, mo, d] = civilFromDays(days);
  const h = Math.floor(rem / 3600);
  rem -= h * 3600;
  const mi = Math.floor(rem / 60);
  const s = rem - mi * 60;
  return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}Z`;
}

/** Formats as Go's metav1.MicroTime JSON: RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(seconds: number, nanos: number): string {
  const base = formatTime(seconds);
  return `${base.slice(0, -1)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

const UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Parses a Go duration string ("1h2m3.5s", "300ms", "-1.5h") into nanoseconds. */
export function parseDuration(s: string): number {
  let rest = s;
  let sign = 1;
  if (rest[0] === '-' || rest[0] === '+') {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`invalid duration ${JSON.stringify(s)}`);
  let total = 0;
  const re = /^(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length) {
    const m = re.exec(rest);
    if (!m || m[1] === '' || m[1] === '.') throw new Error(`invalid duration ${JSON.stringify(s)}`);
    total += Number(m[1]) * UNITS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return sign * Math.round(total);
}

function fracString(v: number, digits: number): string {
  // v is an integer count of the smallest unit; prints v / 10^digits without trailing zeros
  const int = Math.floor(v / 10 ** digits);
  let frac = String(v - int * 10 ** digits).padStart(digits, '0').replace(/0+$/, '');
  if (frac) frac = '.' + frac;
  return `${int}${frac}`;
}

/** Formats nanoseconds like Go's time.Duration.String(). */
export function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    if (u < 1e3) out = `${u}ns`;
    else if (u < 1e6) out = `${fracString(u, 3)}µs`;
    else out = `${fracString(u, 6)}ms`;
  } else {
    const h = Math.floor(u / 3600e9);
    u -= h * 3600e9;
    const m = Math.floor(u / 60e9);
    u -= m * 60e9;
    out = `${fracString(u, 9)}s`;
    if (h > 0) out = `${h}h${m}m${out}`;
    else if (m > 0) out = `${m}m${out}`;
  }
  return neg ? `-${out}` : out;
}
