// IP addresses and CIDRs as upstream's apimachinery validation reads them (k8s.io/apimachinery/pkg/util/validation
// ip.go, 1.33): strict parsing (no leading zeros, no IPv4-mapped IPv6), canonical forms, containment. IPv4 and IPv6.
import { isIPv4, isIPv6 } from 'node:net';

export interface ParsedIP {
  family: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

export interface ParsedCIDR {
  family: 4 | 6;
  /** The address as written (may have host bits set). */
  addr: bigint;
  bits: number;
}

const V4_STRICT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** Go's sloppy parser accepts leading zeros in IPv4 octets (netutils.ParseIPSloppy). */
const V4_SLOPPY = /^\d{1,3}(\.\d{1,3}){3}$/;

function v4Value(s: string): bigint | undefined {
  if (!V4_SLOPPY.test(s)) return undefined;
  let n = 0n;
  for (const p of s.split('.')) {
    const o = Number(p);
    if (o > 255) return undefined;
    n = n * 256n + BigInt(o);
  }
  return n;
}

function v6Value(s: string): bigint | undefined {
  if (!isIPv6(s) || s.includes('%')) return undefined;
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = v4Value(last);
    if (v4 === undefined) return undefined;
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill('0'), ...r];
  if (groups.length !== 8) return undefined;
  if (tail.length) groups.splice(6, 2, tail[0]!.toString(16), tail[1]!.toString(16));
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parses an address as Go's netutils.ParseIPSloppy does (leading zeros allowed in IPv4). */
export function parseIP(s: string): ParsedIP | undefined {
  const v4 = v4Value(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = v6Value(s);
  if (v6 === undefined) return undefined;
  // an IPv4-mapped IPv6 address is IPv4 to Go's net.IP
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

export function formatIP(ip: ParsedIP): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 255n)).join('.');
  const groups = [...Array(8)].map((_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run (>= 2) of zero groups becomes '::', the first one on ties
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** Upstream IsValidIP (strict): the messages of k8s.io/apimachinery 1.33 for one address. */
export function ipErrors(value: string): string[] {
  const ip = parseIP(value);
  if (!ip) return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
  const out: string[] = [];
  if (V4_SLOPPY.test(value) && !V4_STRICT.test(value)) out.push('must not have leading 0s');
  if (isIPv6(value) && ip.family === 4) out.push('must not be an IPv4-mapped IPv6 address');
  if (out.length) return out;
  const canonical = formatIP(ip);
  if (value !== canonical) out.push(`must be in canonical form (${JSON.stringify(canonical)})`);
  return out;
}

export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  const mapped = ip.family === 4 && isIPv6(s.slice(0, slash));
  const max = ip.family === 4 && !mapped ? 32 : 128;
  if (bits > max) return undefined;
  return { family: ip.family, addr: ip.value, bits: mapped ? Math.max(0, bits - 96) : bits };
}

const width = (family: 4 | 6) => (family === 4 ? 32 : 128);

/** The network address (host bits cleared). */
export function networkOf(c: ParsedCIDR): bigint {
  const host = BigInt(width(c.family) - c.bits);
  return (c.addr >> host) << host;
}

export function formatCIDR(c: ParsedCIDR): string {
  return `${formatIP({ family: c.family, value: networkOf(c) })}/${c.bits}`;
}

/** Upstream IsValidCIDR (strict), 1.33 messages. */
export function cidrErrors(value: string): string[] {
  const c = parseCIDR(value);
  if (!c) return ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'];
  const slash = value.indexOf('/');
  const addrText = value.slice(0, slash);
  const bitsText = value.slice(slash + 1);
  if ((V4_SLOPPY.test(addrText) && !V4_STRICT.test(addrText)) || (bitsText.length > 1 && bitsText.startsWith('0')))
    return ['must not have leading 0s in IP or prefix length'];
  if (c.family === 4 && isIPv6(addrText)) return ['must not have an IPv4-mapped IPv6 address'];
  if (networkOf(c) !== c.addr) return ['must not have bits set beyond the prefix length'];
  const canonical = formatCIDR(c);
  return value === canonical ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

export function cidrContains(c: ParsedCIDR, ip: ParsedIP): boolean {
  if (c.family !== ip.family) return false;
  const host = BigInt(width(c.family) - c.bits);
  return ip.value >> host === c.addr >> host;
}

export function familyOfCIDR(s: string): 4 | 6 | undefined {
  return parseCIDR(s)?.family;
}

export { isIPv4 };
