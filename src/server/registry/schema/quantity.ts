// resource.Quantity syntax: <signedNumber><suffix>, suffix binary (Ki..Ei), decimal (n u m k M G T P E)
// or a decimal exponent (e3, E-2).

const QUANTITY_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/** The pattern upstream quotes in its parse error message. */
export const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export function isValidQuantity(s: string): boolean {
  return QUANTITY_RE.test(s);
}

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** Numeric value of a quantity (approximate for huge values); NaN when invalid. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const s = q.trim();
  if (!isValidQuantity(s)) return NaN;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(s)!;
  const num = Number(m[1]);
  const suffix = m[2]!;
  if (/^[eE]/.test(suffix)) return num * 10 ** Number(suffix.slice(1));
  return num * (SUFFIX[suffix] ?? NaN);
}

// ---- exact amounts (admission and quota arithmetic) ----

const BINARY_EXP: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const NANO = 10n ** 9n;

/** Whether a quantity is written with a binary suffix (upstream keeps BinarySI format for its results). */
export function isBinaryQuantity(q: unknown): boolean {
  return typeof q === 'string' && /(?:Ki|Mi|Gi|Ti|Pi|Ei)$/.test(q.trim());
}

/**
 * A quantity in nano-units, exact (upstream's resource.Quantity is exact down to 1n; finer values round up).
 * undefined when q is not a quantity.
 */
export function quantityNanos(q: unknown): bigint | undefined {
  if (typeof q === 'number') q = String(q);
  if (typeof q !== 'string') return undefined;
  const s = q.trim();
  if (!isValidQuantity(s)) return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(s)!;
  const sign = m[1] === '-' ? -1n : 1n;
  const frac = m[3] ?? '';
  let num = BigInt((m[2] || '0') + frac);
  let exp10 = -frac.length;
  const suffix = m[4]!;
  if (BINARY_EXP[suffix]) num *= 1024n ** BigInt(BINARY_EXP[suffix]!);
  else if (/^[eE]/.test(suffix)) exp10 += Number(suffix.slice(1));
  else exp10 += DECIMAL_EXP[suffix]!;
  exp10 += 9;
  if (exp10 >= 0) return sign * num * 10n ** BigInt(exp10);
  const div = 10n ** BigInt(-exp10);
  return sign * ((num + div - 1n) / div);
}

/** Upstream's canonical form of an amount: BinarySI (Ki..Ei) when asked and exact, else DecimalSI (n..E). */
export function formatNanos(n: bigint, binary = false): string {
  if (n === 0n) return '0';
  const neg = n < 0n;
  let v = neg ? -n : n;
  const sign = neg ? '-' : '';
  if (binary && v % NANO === 0n && v / NANO >= 1024n) {
    let whole = v / NANO;
    let j = 0;
    while (j < 6 && whole % 1024n === 0n) {
      whole /= 1024n;
      j++;
    }
    return `${sign}${whole}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][j]}`;
  }
  let exp = -9;
  while (v % 10n === 0n && exp < 18) {
    v /= 10n;
    exp++;
  }
  const exp3 = Math.floor(exp / 3) * 3;
  v *= 10n ** BigInt(exp - exp3);
  const suffix = Object.keys(DECIMAL_EXP).find((k) => DECIMAL_EXP[k] === exp3)!;
  return `${sign}${v}${suffix}`;
}

/** A quantity as upstream prints it back (1.5Gi → 1536Mi, 0.5 → 500m); the input itself when invalid. */
export function canonicalQuantity(q: unknown): string {
  const n = quantityNanos(q);
  return n === undefined ? String(q) : formatNanos(n, isBinaryQuantity(q));
}
