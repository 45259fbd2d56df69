// Go's fmt "%v" rendering of decoded JSON values, used where upstream error messages embed values
// (e.g. "map: map[image:nginx] does not contain declared merge key: name").

export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return '[' + v.map(goValue).join(' ') + ']';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return 'map[' + Object.keys(o).sort().map((k) => `${k}:${goValue(o[k])}`).join(' ') + ']';
  }
  return String(v);
}

/** %v of a float64: shortest repr, exponent form from 1e21 (Go's %g switch point is the same for JSON numbers we see). */
export function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  // Go writes exponents with at least two digits (1e+21, 1e-07).
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go's %q for strings (JSON escaping is identical for the printable range). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
