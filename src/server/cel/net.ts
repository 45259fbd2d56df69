// The IP and CIDR CEL library (upstream k8s.io/apiserver/pkg/cel/library ip.go and cidr.go), with addresses parsed as
// Go's net/netip does: strict dotted quads (no leading zeros), RFC 4291 IPv6 text, no zones; upstream further
// refuses IPv4-mapped IPv6 addresses. Error texts are Go's, as upstream surfaces them.

export class IP {
  constructor(readonly bytes: Uint8Array) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    return formatAddr(this.bytes);
  }
}

export class CIDR {
  constructor(readonly ip: IP, readonly bits: number) {}
  toString(): string {
    return `${this.ip}/${this.bits}`;
  }
  masked(): CIDR {
    return new CIDR(new IP(mask(this.ip.bytes, this.bits)), this.bits);
  }
  containsIP(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    return equalBytes(mask(ip.bytes, this.bits), mask(this.ip.bytes, this.bits));
  }
  containsCIDR(other: CIDR): boolean {
    return other.bits >= this.bits && this.containsIP(other.ip);
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function mask(bytes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = bytes[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return out;
}

class AddrError extends Error {}

const addrError = (input: string, msg: string, at?: string) =>
  new AddrError(`ParseAddr(${JSON.stringify(input)}): ${msg}${at !== undefined ? ` (at ${JSON.stringify(at)})` : ''}`);

function parseIPv4(s: string, input = s): Uint8Array {
  const out = new Uint8Array(4);
  let field = 0;
  let val = -1;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = (val < 0 ? 0 : val) * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (digits === 0) throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (field === 3) throw addrError(input, 'IPv4 address too long');
      out[field++] = val;
      val = -1;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (field < 3) throw addrError(input, 'IPv4 address too short');
  if (digits === 0) throw addrError(input, 'IPv4 field must have at least one digit', '');
  out[3] = val;
  return out;
}

function parseIPv6(s: string): Uint8Array {
  const input = s;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const out = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return out;
  }
  while (i < 16) {
    let off = 0;
    let acc = 0;
    while (off < s.length) {
      const c = s[off]!.toLowerCase();
      if (c >= '0' && c <= '9') acc = acc * 16 + (c.charCodeAt(0) - 48);
      else if (c >= 'a' && c <= 'f') acc = acc * 16 + (c.charCodeAt(0) - 87);
      else break;
      off++;
      if (off > 4) throw addrError(input, 'each colon-separated field must have at least one digit', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      out.set(parseIPv4(s, input), i);
      i += 4;
      s = '';
      break;
    }
    out[i] = acc >> 8;
    out[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) out[j + n] = out[j]!;
    out.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros');
  return out;
}

/** Go's netip.ParseAddr (zones parse, the caller refuses them). */
function parseAddr(s: string): { bytes: Uint8Array; zone: boolean } {
  for (const c of s) {
    if (c === '.') return { bytes: parseIPv4(s), zone: false };
    if (c === ':') return { bytes: parseIPv6(s), zone: s.includes('%') };
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

const isMapped = (b: Uint8Array) => b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** upstream parseIPAddr: a netip address without zone, not IPv4-mapped. Throws upstream's message. */
export function parseIP(raw: string): IP {
  let parsed: { bytes: Uint8Array; zone: boolean };
  try {
    parsed = parseAddr(raw);
  } catch (e) {
    throw new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (parsed.zone) throw new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (isMapped(parsed.bytes)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return new IP(parsed.bytes);
}

/** upstream parseCIDR over Go's netip.ParsePrefix. */
export function parseCIDR(raw: string): CIDR {
  const fail = (msg: string) => new Error(`network address parse error during conversion from string: ${msg}`);
  const slash = raw.lastIndexOf('/');
  const q = JSON.stringify(raw);
  if (slash < 0) throw fail(`netip.ParsePrefix(${q}): no '/'`);
  const addrText = raw.slice(0, slash);
  let parsed: { bytes: Uint8Array; zone: boolean };
  try {
    parsed = parseAddr(addrText);
  } catch (e) {
    throw fail(`netip.ParsePrefix(${q}): ${(e as Error).message}`);
  }
  if (parsed.zone) throw fail(`netip.ParsePrefix(${q}): IPv6 zones cannot be present in a prefix`);
  const bitsText = raw.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bitsText)) throw fail(`netip.ParsePrefix(${q}): bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > parsed.bytes.length * 8) throw fail(`netip.ParsePrefix(${q}): prefix length out of range`);
  if (isMapped(parsed.bytes)) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(addrText)} is not allowed`);
  return new CIDR(new IP(parsed.bytes), bits);
}

export function isIP(raw: string): boolean {
  try {
    parseIP(raw);
    return true;
  } catch {
    return false;
  }
}

export function isCIDR(raw: string): boolean {
  try {
    parseCIDR(raw);
    return true;
  } catch {
    return false;
  }
}

/** Go's netip.Addr.String (RFC 5952 for IPv6: the longest run of 2+ zero fields as ::). */
function formatAddr(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  const f: number[] = [];
  for (let i = 0; i < 16; i += 2) f.push((b[i]! << 8) | b[i + 1]!);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (f[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && f[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return f.map((x) => x.toString(16)).join(':');
  const head = f.slice(0, best).map((x) => x.toString(16)).join(':');
  const tail = f.slice(best + bestLen).map((x) => x.toString(16)).join(':');
  return `${head}::${tail}`;
}

// ---- address classes (Go's netip.Addr predicates) ----

export function isUnspecified(ip: IP): boolean {
  return ip.bytes.every((x) => x === 0);
}
export function isLoopback(ip: IP): boolean {
  return ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((x) => x === 0) && ip.bytes[15] === 1;
}
function isMulticast(ip: IP): boolean {
  return ip.family === 4 ? (ip.bytes[0]! & 0xf0) === 0xe0 : ip.bytes[0] === 0xff;
}
export function isLinkLocalMulticast(ip: IP): boolean {
  return ip.family === 4 ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0 : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02;
}
export function isLinkLocalUnicast(ip: IP): boolean {
  return ip.family === 4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80;
}
export function isGlobalUnicast(ip: IP): boolean {
  if (ip.family === 4 && ip.bytes.every((x) => x === 255)) return false;
  return !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);
}
