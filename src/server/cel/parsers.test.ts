// The parsers behind the CEL libraries, against the Go behaviour upstream inherits (net/netip, net/url,
// blang/semver, cel-go's string formatting).
import { describe, expect, it } from 'vitest';
import { isCIDR, parseCIDR, parseIP } from './net.js';
import { normalizeAndParseSemver, parseSemver } from './semver.js';
import { formatString } from './string-format.js';
import { isURL, parseURL, requestURIErrors } from './url.js';

describe('IP addresses (Go net/netip)', () => {
  it.each([
    ['192.168.0.1', '192.168.0.1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ['::', '::'],
    ['fe80::1:2:3:4:5', 'fe80::1:2:3:4:5'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['::1.2.3.4', '::102:304'],
  ])('%s prints as %s', (text, canonical) => expect(parseIP(text).toString()).toBe(canonical));

  it.each([
    ['', 'ParseAddr(""): unable to parse IP'],
    ['1.2.3.4.5', 'ParseAddr("1.2.3.4.5"): IPv4 address too long'],
    ['1.2.3.256', 'ParseAddr("1.2.3.256"): IPv4 field has value >255'],
    ['01.2.3.4', 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
    ['1..2.3', 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'],
    ['1:2:3', 'ParseAddr("1:2:3"): address string too short'],
    ['1::2::3', 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
  ])('%s is refused', (text, error) => expect(() => parseIP(text)).toThrow(`IP Address ${JSON.stringify(text)} parse error during conversion from string: ${error}`));

  it('parses prefixes as netip.ParsePrefix, keeping the address unmasked', () => {
    expect(parseCIDR('10.1.2.3/8').toString()).toBe('10.1.2.3/8');
    expect(parseCIDR('10.1.2.3/8').masked().toString()).toBe('10.0.0.0/8');
    expect(parseCIDR('2001:db8::1/64').masked().toString()).toBe('2001:db8::/64');
    expect(parseCIDR('10.0.0.0/8').containsIP(parseIP('2001:db8::1'))).toBe(false);
    expect(parseCIDR('0.0.0.0/0').containsCIDR(parseCIDR('10.0.0.0/8'))).toBe(true);
    expect(parseCIDR('10.0.0.0/16').containsCIDR(parseCIDR('10.0.0.0/8'))).toBe(false);
    expect(isCIDR('10.0.0.0/08')).toBe(false);
    expect(() => parseCIDR('10.0.0.0/x')).toThrow('network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/x"): bad bits after slash: "x"');
  });
});

describe('URLs (Go net/url ParseRequestURI)', () => {
  it.each([
    ['', 'parse "": empty url'],
    ['example.com/x', 'parse "example.com/x": invalid URI for request'],
    [':x', 'parse ":x": missing protocol scheme'],
    ['https://exa mple.com/', 'parse "https://exa mple.com/": invalid character " " in host name'],
    ['https://example.com#frag', 'parse "https://example.com#frag": invalid character "#" in host name'],
    ['https://example.com:80x/', 'parse "https://example.com:80x/": invalid port ":80x" after host'],
    ['/a%zz', 'parse "/a%zz": invalid URL escape "%zz"'],
  ])('%s is refused', (text, error) => expect(requestURIErrors(text)).toEqual([error]));

  it('answers the accessors as url.URL does', () => {
    const u = parseURL('HTTPS://user@[2001:db8::1]:8443/a%2Fb/c%20d?x=1&x=2&y=%20#frag');
    expect([u.scheme, u.host, u.hostname(), u.port(), u.escapedPath()]).toEqual(['https', '[2001:db8::1]:8443', '2001:db8::1', '8443', '/a%2Fb/c%20d']);
    expect(u.query()).toEqual({ x: ['1', '2'], y: [' '] });
    // a raw path that is not a valid encoding is dropped: the escaping of the decoded path answers
    expect(parseURL('https://h/a%2Fb/c d').escapedPath()).toBe('/a/b/c%20d');
    expect(isURL('/just/a/path')).toBe(true);
    expect(isURL('mailto:someone@example.com')).toBe(true);
  });
});

describe('semantic versions (blang/semver)', () => {
  it('orders as semver 2.0.0 section 11', () => {
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.1.0', '2.0.0'];
    for (let i = 1; i < order.length; i++) expect(parseSemver(order[i - 1]!).compare(parseSemver(order[i]!)), order[i]).toBe(-1);
    expect(parseSemver('1.0.0+build.1').compare(parseSemver('1.0.0+build.2'))).toBe(0);
  });

  it('normalizes and refuses as upstream', () => {
    expect(normalizeAndParseSemver('v01.02').compare(parseSemver('1.2.0'))).toBe(0);
    expect(() => normalizeAndParseSemver('1.2-rc')).toThrow('short version cannot contain PreRelease/Build meta data');
    expect(() => parseSemver('1.2.3-01')).toThrow('Numeric PreRelease version must not contain leading zeroes "01"');
    expect(() => parseSemver('1.x.3')).toThrow('Invalid character(s) found in minor number "x"');
    expect(() => parseSemver('')).toThrow('Version string empty');
  });
});

describe('string.format (cel-go strings extension)', () => {
  it.each([
    ['%s and %s', ['a', true], 'a and true'],
    ['%d%%', [42n], '42%'],
    ['%.3f', [3.14159], '3.142'],
    ['%f', [1n], '1.000000'],
    ['%e', [123456.789], '1.234568e+05'],
    ['%x %X', ['hi', 255n], '6869 FF'],
    ['%s', [{ k: 'v' }], '{"k": "v"}'],
    ['%f', ['NaN'], 'NaN'],
  ])('%s', (template, args, want) => expect(formatString(template, args as unknown[])).toBe(want));

  it('refuses clauses it does not know and missing arguments', () => {
    expect(() => formatString('%z', [1n])).toThrow('unrecognized formatting clause');
    expect(() => formatString('%s %s', ['a'])).toThrow('index 1 out of range');
    expect(() => formatString('%d', [1.5])).toThrow('decimal clause can only be used on integers, was given double');
  });
});
