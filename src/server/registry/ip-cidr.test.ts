// The IP/CIDR parser behind ServiceCIDR, IPAddress and Service cluster IPs: canonical forms against the WHATWG URL
// host serializer (RFC 5952, as Go's net.IP.String), round trips, upstream's messages, and no throw on any input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cidrContains, cidrErrors, formatCIDR, formatIP, ipErrors, parseCIDR, parseIP } from './ip-cidr.js';

const v6 = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }).map((g) => g.reduce((a, x) => (a << 16n) | BigInt(x), 0n));
/** Mostly zero groups, so that '::' runs of every length show up. */
const sparseV6 = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }).map((g) => g.reduce((a, x) => (a << 16n) | BigInt(x), 0n));

const whatwg = (ip: string) => new URL(`http://[${ip}]/`).hostname.slice(1, -1);

describe('ip-cidr', () => {
  it('formats IPv6 canonically (RFC 5952) and parses it back', () => {
    fc.assert(
      fc.property(fc.oneof(v6, sparseV6), (value) => {
        fc.pre(value >> 32n !== 0xffffn); // IPv4-mapped addresses are IPv4 to Go
        const text = formatIP({ family: 6, value });
        expect(text).toBe(whatwg(text));
        expect(parseIP(text)).toEqual({ family: 6, value });
        expect(ipErrors(text)).toEqual([]);
        // any other spelling of it is refused with the canonical form named
        const upper = text.toUpperCase();
        if (upper !== text) expect(ipErrors(upper)).toEqual([`must be in canonical form (${JSON.stringify(text)})`]);
      }),
      { numRuns: 500 },
    );
  });

  it('IPv4: canonical, leading zeros refused, CIDR host bits refused', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 32 }), (octets, bits) => {
        const text = octets.join('.');
        const ip = parseIP(text)!;
        expect(formatIP(ip)).toBe(text);
        expect(ipErrors(text)).toEqual([]);
        expect(ipErrors(`0${text}`)).toEqual(octets[0]! < 100 ? ['must not have leading 0s'] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
        const c = parseCIDR(`${text}/${bits}`)!;
        const canonical = formatCIDR(c);
        expect(cidrErrors(canonical)).toEqual([]);
        expect(cidrContains(parseCIDR(canonical)!, ip)).toBe(true);
        if (canonical !== `${text}/${bits}`) expect(cidrErrors(`${text}/${bits}`)).toEqual(['must not have bits set beyond the prefix length']);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-fA-F:./%]{0,45}$/)), (s) => {
        parseIP(s);
        parseCIDR(s);
        expect(Array.isArray(ipErrors(s))).toBe(true);
        expect(Array.isArray(cidrErrors(s))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('upstream messages for the usual mistakes', () => {
    expect(ipErrors('::ffff:10.1.2.3')).toEqual(['must not be an IPv4-mapped IPv6 address']);
    expect(ipErrors('10.1.2')).toEqual(['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    expect(cidrErrors('fd00::/129')).toEqual(['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
    expect(cidrErrors('::ffff:10.0.0.0/104')).toEqual(['must not have an IPv4-mapped IPv6 address']);
    expect(cidrErrors('2001:db8:0:0::/64')).toEqual(['must be in canonical form ("2001:db8::/64")']);
  });
});
