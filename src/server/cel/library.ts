// The Kubernetes CEL libraries every apiserver CEL environment carries (upstream k8s.io/apiserver/pkg/cel/environment
// base.go): cel-go's strings (version 2) and sets extensions, and Kubernetes' lists, regex, URLs, quantity, IP, CIDR,
// format and semver libraries (k8s.io/apiserver/pkg/cel/library). cel-js provides the core and part of the strings
// extension (indexOf, lastIndexOf, substring, trim, split, join, lowerAscii, upperAscii); this adds the rest.
// Namespaced functions (format.*, sets.*, strings.quote, ip.isCanonical) are receiver calls on a constant, the
// way cel-js itself declares optional.of/none.
import { type Environment, Optional } from '@marcbachmann/cel-js';
import { installComprehensions } from './comprehensions.js';
// every evaluation in these environments is metered (runtime cost limits)
import './cost.js';
import { FORMATS, NamedFormat } from './format.js';
import { formatString } from './string-format.js';
import { CIDR, IP, isCIDR, isGlobalUnicast, isIP, isLinkLocalMulticast, isLinkLocalUnicast, isLoopback, isUnspecified, parseCIDR, parseIP } from './net.js';
import { Quantity, compareQuantities, isQuantity, parseQuantityValue } from './quantity.js';
import { Semver, normalizeAndParseSemver, parseSemver } from './semver.js';
import { URLValue, isURL, parseURL } from './url.js';
import { compileRe2, type Re2 } from '../../api/re2.js';

class FormatNamespace {}
class SetsNamespace {}
class StringsNamespace {}
class IPNamespace {}

type Handler = (...args: any[]) => unknown;

/** Values CEL orders (int, uint, double, bool, string, bytes, timestamp, duration): -1, 0 or 1. */
function compare(a: unknown, b: unknown): number {
  const key = (v: unknown): unknown => (v instanceof Date ? v.getTime() : v && typeof v === 'object' && 'valueOf' in v ? (v as { valueOf(): unknown }).valueOf() : v);
  const x = key(a) as number | Uint8Array;
  const y = key(b) as number | Uint8Array;
  if (x instanceof Uint8Array && y instanceof Uint8Array) {
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return Math.sign(x.length - y.length);
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

/** CEL equality of list elements (ints and doubles compare numerically; lists and maps deeply). */
function celEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint' || typeof a === 'number' || typeof b === 'number')
    return (typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number') && Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Quantity && b instanceof Quantity) return a.nanos === b.nanos;
  if ((a instanceof IP && b instanceof IP) || (a instanceof CIDR && b instanceof CIDR)) return a.toString() === b.toString();
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ea = a instanceof Map ? [...a.entries()] : Object.entries(a);
    const mb = b instanceof Map ? b : new Map(Object.entries(b));
    return ea.length === mb.size && ea.every(([k, v]) => mb.has(k) && celEquals(v, mb.get(k)));
  }
  return a === b;
}

function isZero(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return true;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (typeof v === 'object' && v.constructor === Object) return Object.keys(v).length === 0;
  if (typeof v === 'object' && typeof (v as { valueOf(): unknown }).valueOf() !== 'object') return isZero((v as { valueOf(): unknown }).valueOf());
  return false;
}

/** Go's strconv.Quote of a string (cel-go strings.quote). */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (ch === '\x07') out += '\\a';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The Kubernetes regex library compiles with RE2 (linear time, Go's syntax and error text). */
function regex(pattern: string): Re2 {
  try {
    return compileRe2(pattern);
  } catch (e) {
    throw new Error(`given regex is invalid: ${(e as Error).message}`);
  }
}

function strings(fn: (sig: string, h: Handler) => void): void {
  // cel-go ext strings, version 2 (charAt, replace and quote are what cel-js lacks)
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  const replace = (s: string, from: string, to: string, n: bigint) => {
    if (n === 0n) return s;
    if (n < 0n) return s.split(from).join(to);
    let out = '';
    let rest = s;
    for (let k = 0n; k < n; k++) {
      const at = from === '' ? (k === 0n ? 0 : 1) : rest.indexOf(from);
      if (at < 0 || (from === '' && at > rest.length)) break;
      out += rest.slice(0, at) + to;
      rest = rest.slice(at + from.length);
      if (from === '' && rest === '' && k > 0n) break;
    }
    return out + rest;
  };
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  fn('string.replace(string, string, int): string', replace);
  fn('StringsNamespace.quote(string): string', (_: unknown, s: string) => goQuote(s));
  fn('string.format(list<dyn>): string', formatString);
  // Kubernetes regex library
  fn('string.find(string): string', (s: string, re: string) => regex(re).exec(s)?.[0] ?? '');
  fn('string.findAll(string): list<string>', (s: string, re: string) => [...regex(re).matchAll(s)].map((m) => m[0]));
  fn('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
    const all = [...regex(re).matchAll(s)].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  });
}

function lists(fn: (sig: string, h: Handler) => void): void {
  // Kubernetes lists library: over comparable (isSorted, min, max) and summable (sum) element types
  for (const t of ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'google.protobuf.Timestamp', 'google.protobuf.Duration']) {
    fn(`list<${t}>.isSorted(): bool`, (l: unknown[]) => l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0));
    const pick = (name: string, want: number) => (l: unknown[]) => {
      if (l.length === 0) throw new Error(`${name} called on empty list`);
      return l.reduce((acc, v) => (compare(acc, v) === want ? v : acc));
    };
    fn(`list<${t}>.min(): ${t}`, pick('min', 1));
    fn(`list<${t}>.max(): ${t}`, pick('max', -1));
  }
  fn('list<int>.sum(): int', (l: bigint[]) => l.reduce((a, b) => a + b, 0n));
  fn('list<double>.sum(): double', (l: number[]) => l.reduce((a, b) => a + b, 0));
  fn('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((v) => celEquals(v, x))));
  fn('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
  // cel-go ext sets
  const has = (l: unknown[], x: unknown) => l.some((v) => celEquals(v, x));
  fn('SetsNamespace.contains(list<A>, list<A>): bool', (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)));
  fn('SetsNamespace.equivalent(list<A>, list<A>): bool', (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)) && a.every((x) => has(b, x)));
  fn('SetsNamespace.intersects(list<A>, list<A>): bool', (_: unknown, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)));
}

function quantities(fn: (sig: string, h: Handler) => void): void {
  const Q = 'kubernetes.Quantity';
  fn(`quantity(string): ${Q}`, parseQuantityValue);
  fn('isQuantity(string): bool', isQuantity);
  fn(`${Q}.sign(): int`, (q: Quantity) => (q.nanos > 0n ? 1n : q.nanos < 0n ? -1n : 0n));
  fn(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
  fn(`${Q}.asInteger(): int`, (q: Quantity) => {
    const v = q.asInt64();
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  });
  fn(`${Q}.asApproximateFloat(): double`, (q: Quantity) => Number(q.nanos) / 1e9);
  fn(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => new Quantity(a.nanos + b.nanos, a.binary));
  fn(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => new Quantity(a.nanos + b * 1_000_000_000n, a.binary));
  fn(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => new Quantity(a.nanos - b.nanos, a.binary));
  fn(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => new Quantity(a.nanos - b * 1_000_000_000n, a.binary));
  fn(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.nanos > b.nanos);
  fn(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.nanos < b.nanos);
  fn(`${Q}.compareTo(${Q}): int`, compareQuantities);
}

function urls(fn: (sig: string, h: Handler) => void): void {
  const U = 'kubernetes.URL';
  fn(`url(string): ${U}`, parseURL);
  fn('isURL(string): bool', isURL);
  fn(`${U}.getScheme(): string`, (u: URLValue) => u.scheme);
  fn(`${U}.getHost(): string`, (u: URLValue) => u.host);
  fn(`${U}.getHostname(): string`, (u: URLValue) => u.hostname());
  fn(`${U}.getPort(): string`, (u: URLValue) => u.port());
  fn(`${U}.getEscapedPath(): string`, (u: URLValue) => u.escapedPath());
  fn(`${U}.getQuery(): map<string, list<string>>`, (u: URLValue) => new Map(Object.entries(u.query())));
}

function network(fn: (sig: string, h: Handler) => void): void {
  fn('ip(string): net.IP', parseIP);
  fn('isIP(string): bool', isIP);
  fn('IPNamespace.isCanonical(string): bool', (_: unknown, s: string) => parseIP(s).toString() === s);
  fn('string(net.IP): string', (ip: IP) => ip.toString());
  fn('net.IP.family(): int', (ip: IP) => BigInt(ip.family));
  fn('net.IP.isUnspecified(): bool', isUnspecified);
  fn('net.IP.isLoopback(): bool', isLoopback);
  fn('net.IP.isLinkLocalMulticast(): bool', isLinkLocalMulticast);
  fn('net.IP.isLinkLocalUnicast(): bool', isLinkLocalUnicast);
  fn('net.IP.isGlobalUnicast(): bool', isGlobalUnicast);
  fn('cidr(string): net.CIDR', parseCIDR);
  fn('isCIDR(string): bool', isCIDR);
  fn('string(net.CIDR): string', (c: CIDR) => c.toString());
  fn('net.CIDR.containsIP(net.IP): bool', (c: CIDR, ip: IP) => c.containsIP(ip));
  fn('net.CIDR.containsIP(string): bool', (c: CIDR, s: string) => c.containsIP(parseIP(s)));
  fn('net.CIDR.containsCIDR(net.CIDR): bool', (c: CIDR, o: CIDR) => c.containsCIDR(o));
  fn('net.CIDR.containsCIDR(string): bool', (c: CIDR, s: string) => c.containsCIDR(parseCIDR(s)));
  fn('net.CIDR.ip(): net.IP', (c: CIDR) => c.ip);
  fn('net.CIDR.masked(): net.CIDR', (c: CIDR) => c.masked());
  fn('net.CIDR.prefixLength(): int', (c: CIDR) => BigInt(c.bits));
}

function semvers(fn: (sig: string, h: Handler) => void): void {
  const S = 'kubernetes.Semver';
  const valid = (parse: (s: string) => Semver) => (s: string) => {
    try {
      parse(s);
      return true;
    } catch {
      return false;
    }
  };
  fn(`semver(string): ${S}`, parseSemver);
  fn(`semver(string, bool): ${S}`, (s: string, normalize: boolean) => (normalize ? normalizeAndParseSemver(s) : parseSemver(s)));
  fn('isSemver(string): bool', valid(parseSemver));
  fn('isSemver(string, bool): bool', (s: string, normalize: boolean) => valid(normalize ? normalizeAndParseSemver : parseSemver)(s));
  fn(`${S}.major(): int`, (v: Semver) => v.major);
  fn(`${S}.minor(): int`, (v: Semver) => v.minor);
  fn(`${S}.patch(): int`, (v: Semver) => v.patch);
  fn(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === 1);
  fn(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) === -1);
  fn(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)));
}

function formats(fn: (sig: string, h: Handler) => void): void {
  const F = 'kubernetes.NamedFormat';
  for (const [name, f] of FORMATS) fn(`FormatNamespace.${name}(): ${F}`, () => f);
  fn(`FormatNamespace.named(string): optional<${F}>`, (_: unknown, name: string) => {
    const f = FORMATS.get(name);
    return f ? Optional.of(f) : Optional.none();
  });
  fn(`${F}.validate(string): optional<list<string>>`, (f: NamedFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length ? Optional.of(errs) : Optional.none();
  });
}

/** Installs the libraries into an environment (once, before its variables). */
export function installKubernetesLibraries(env: Environment): void {
  env.registerType('kubernetes.Quantity', Quantity);
  env.registerType('kubernetes.URL', URLValue);
  env.registerType('net.IP', IP);
  env.registerType('net.CIDR', CIDR);
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  env.registerType('kubernetes.Semver', Semver);
  for (const [name, ctor] of [
    ['FormatNamespace', FormatNamespace],
    ['SetsNamespace', SetsNamespace],
    ['StringsNamespace', StringsNamespace],
    ['IPNamespace', IPNamespace],
  ] as const) {
    env.registerType(name, ctor);
  }
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  const fn = (sig: string, h: Handler) => env.registerFunction(sig, h);
  strings(fn);
  lists(fn);
  quantities(fn);
  urls(fn);
  network(fn);
  formats(fn);
  semvers(fn);
  installComprehensions(env);
  // cel-go's optional library: optional.ofNonZeroValue (none for the type's zero value)
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_: unknown, v: unknown) => (isZero(v) ? Optional.none() : Optional.of(v)));
  // equality of the library's value types, as upstream's types implement Equal
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: Quantity, b: Quantity) => a.nanos === b.nanos);
  env.registerOperator('net.IP == net.IP', (a: IP, b: IP) => a.toString() === b.toString());
  env.registerOperator('kubernetes.Semver == kubernetes.Semver', (a: Semver, b: Semver) => a.compare(b) === 0);
  env.registerOperator('net.CIDR == net.CIDR', (a: CIDR, b: CIDR) => a.toString() === b.toString());
}
