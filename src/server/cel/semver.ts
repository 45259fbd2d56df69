// The Semver CEL library (upstream k8s.io/apiserver/pkg/cel/library semverlib.go, Kubernetes 1.33): versions parsed
// as blang/semver's Parse does (strict major.minor.patch, optional -prerelease and +build), or normalized first
// (leading "v" dropped, missing minor/patch filled with 0, leading zeros removed). Errors carry blang's texts.

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string[],
  ) {}

  /** blang Version.Compare: numbers, then a release above its prereleases, then prerelease identifiers. */
  compare(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const)
      if (a !== b) return a < b ? -1 : 1;
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const c = comparePre(this.pre[i]!, o.pre[i]!);
      if (c !== 0) return c;
    }
    return Math.sign(this.pre.length - o.pre.length);
  }
}

const NUMERIC = /^[0-9]+$/;
const ALNUM = /^[0-9A-Za-z-]+$/;

function comparePre(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) return BigInt(a) === BigInt(b) ? 0 : BigInt(a) < BigInt(b) ? -1 : 1;
  if (an) return -1;
  if (bn) return 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

const leadingZero = (s: string) => s.length > 1 && s[0] === '0';

function number(s: string, what: string): bigint {
  if (!/^[0-9]*$/.test(s)) throw new Error(`Invalid character(s) found in ${what.toLowerCase()} number ${JSON.stringify(s)}`);
  if (leadingZero(s)) throw new Error(`${what} number must not contain leading zeroes ${JSON.stringify(s)}`);
  if (s === '') throw new Error('strconv.ParseUint: parsing "": invalid syntax');
  const v = BigInt(s);
  if (v >= 2n ** 64n) throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

/** blang/semver v4 Parse. */
export function parseSemver(s: string): Semver {
  if (s === '') throw new Error('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const rest = parts.slice(2).join('.');
  const major = number(parts[0]!, 'Major');
  const minor = number(parts[1]!, 'Minor');
  const preAt = rest.indexOf('-');
  const buildAt = rest.indexOf('+');
  const end = preAt < 0 && buildAt < 0 ? rest.length : preAt < 0 ? buildAt : buildAt < 0 ? preAt : Math.min(preAt, buildAt);
  const patch = number(rest.slice(0, end), 'Patch');
  let tail = rest.slice(end);
  let build = '';
  const plus = tail.indexOf('+');
  if (plus >= 0) {
    build = tail.slice(plus + 1);
    tail = tail.slice(0, plus);
  }
  const pre: string[] = [];
  if (tail.startsWith('-')) {
    for (const p of tail.slice(1).split('.')) {
      if (p === '') throw new Error('Prerelease is empty');
      if (!ALNUM.test(p)) throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
      if (NUMERIC.test(p) && leadingZero(p)) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      pre.push(p);
    }
  }
  if (plus >= 0)
    for (const b of build.split('.')) {
      if (b === '') throw new Error('Buildversion is empty');
      if (!ALNUM.test(b)) throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
    }
  return new Semver(major, minor, patch, pre);
}

/** upstream normalizeAndParse: drop a leading "v", strip leading zeros, fill a short version with zeros. */
export function normalizeAndParseSemver(s: string): Semver {
  if (s.startsWith('v')) s = s.slice(1);
  const parts: string[] = [];
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (first < 0) parts.push(s);
  else if (second < 0) parts.push(s.slice(0, first), s.slice(first + 1));
  else parts.push(s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1));
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i]!;
    if (p.length > 1) {
      p = p.replace(/^0+/, '');
      if (p === '' || !/^[0-9]/.test(p)) p = `0${p}`;
      parts[i] = p;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) throw new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}
