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
