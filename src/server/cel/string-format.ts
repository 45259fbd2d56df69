// cel-go's strings extension `<string>.format(list)` (ext/formatting.go): printf-style clauses %s %d %f %e %x %X
// %o %b and %%, each with an optional precision (%.3f), over CEL values.

class FormatError extends Error {}

const isInt = (v: unknown): v is bigint => typeof v === 'bigint';
const isUint = (v: unknown): boolean => !!v && typeof v === 'object' && v.constructor?.name === 'UnsignedInteger';
const uintValue = (v: unknown): bigint => BigInt((v as { valueOf(): number | bigint }).valueOf());
const typeName = (v: unknown): string =>
  v === null ? 'null_type' : isInt(v) ? 'int' : isUint(v) ? 'uint' : typeof v === 'number' ? 'double' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : v instanceof Uint8Array ? 'bytes' : Array.isArray(v) ? 'list' : v instanceof Date ? 'google.protobuf.Timestamp' : 'map';

/** Go's strconv.FormatFloat(v, 'f', -1, 64) (shortest round-trip, never exponent), as %s prints doubles. */
function plainDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  const s = String(v);
  if (!/e/i.test(s)) return s;
  return v.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** %s of a value: strings as they are; inside lists and maps, strings quoted (cel-go formatting). */
function asString(v: unknown, nested = false): string {
  if (typeof v === 'string') return nested ? JSON.stringify(v) : v;
  if (isInt(v)) return v.toString();
  if (isUint(v)) return uintValue(v).toString();
  if (typeof v === 'number') return plainDouble(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(v)) return `[${v.map((x) => asString(x, true)).join(', ')}]`;
  if (v instanceof Map) return `{${[...v.entries()].map(([k, x]) => `${asString(k, true)}: ${asString(x, true)}`).join(', ')}}`;
  if (typeof v === 'object' && v.constructor === Object) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${asString(x, true)}`).join(', ')}}`;
  return String(v);
}

function asNumber(v: unknown, clause: string): number {
  if (isInt(v)) return Number(v);
  if (isUint(v)) return Number(uintValue(v));
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new FormatError(`error during formatting: ${clause} clause can only be used on integers and doubles, was given ${typeName(v)}`);
}

function nonFinite(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  return undefined;
}

function integral(v: unknown, clause: string, radix: number): string {
  if (isInt(v)) return v.toString(radix);
  if (isUint(v)) return uintValue(v).toString(radix);
  if (radix !== 10 && typeof v === 'string') return [...new TextEncoder().encode(v)].map((b) => b.toString(16).padStart(2, '0')).join('');
  if (radix !== 10 && v instanceof Uint8Array) return [...v].map((b) => b.toString(16).padStart(2, '0')).join('');
  if (radix === 2 && typeof v === 'boolean') return v ? '1' : '0';
  throw new FormatError(`error during formatting: ${clause} clause can only be used on integers, was given ${typeName(v)}`);
}

export function formatString(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^%(?:\.(\d+))?([a-zA-Z%])/.exec(template.slice(i));
    if (!m) throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${template.slice(i, i + 2)}"`);
    i += m[0].length - 1;
    const verb = m[2]!;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) throw new FormatError(`index ${next} out of range`);
    const arg = args[next++];
    const precision = m[1] === undefined ? 6 : Number(m[1]);
    switch (verb) {
      case 's':
        out += asString(arg);
        break;
      case 'd':
        out += integral(arg, 'decimal', 10);
        break;
      case 'f': {
        const n = asNumber(arg, 'fixed-point');
        out += nonFinite(n) ?? n.toFixed(precision);
        break;
      }
      case 'e': {
        const n = asNumber(arg, 'scientific');
        out += nonFinite(n) ?? n.toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      }
      case 'x':
        out += integral(arg, 'hex', 16);
        break;
      case 'X':
        out += integral(arg, 'hex', 16).toUpperCase();
        break;
      case 'o':
        out += integral(arg, 'octal', 8);
        break;
      case 'b':
        out += integral(arg, 'binary', 2);
        break;
      default:
        throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
  }
  if (next < args.length) throw new FormatError(`too many arguments supplied to string.format (expected ${next}, got ${args.length})`);
  return out;
}
