// The CEL libraries upstream's apiserver gives CRD validation rules (k8s.io/apiserver/pkg/cel/library and cel-go's
// strings and sets extensions): one rule per function, an object that satisfies it (201) and one that violates it
// (422 with upstream's message: the default "failed rule: <rule>", the library's own validation messages through
// messageExpression, or the library's evaluation error).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { eventually } from '../deletion/support.js';
import { client, testServer } from '../helpers/server.js';

type Value = string | number[] | string[] | Record<string, string>;
interface Case {
  rule: string;
  /** the rule's own message */
  ruleMessage?: string;
  messageExpression?: string;
  ok: Value;
  bad: Value;
  /** the 422 cause's message; default: upstream's "failed rule: <rule>" */
  message?: string;
}

const DNS1123_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_LABEL =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** format.<name>().validate(self): no errors passes, else the errors become the message */
const fmt = (name: string, ok: string, bad: string, message: string): Case => ({
  rule: `!format.${name}().validate(self).hasValue()`,
  messageExpression: `format.${name}().validate(self).value().join("; ")`,
  ok,
  bad,
  message,
});
const evalError = (rule: string, ok: Value, bad: Value, error: string): Case => ({ rule, ok, bad, message: `${error} evaluating rule: ${rule}` });

const TABLE: Record<string, Case[]> = {
  format: [
    fmt('dns1123Label', 'my-name', 'My_Name', DNS1123_LABEL),
    fmt('dns1123Subdomain', 'apiextensions.k8s.io', '-a.b', DNS1123_SUBDOMAIN),
    fmt('dns1035Label', 'abc-1', '1abc', DNS1035_LABEL),
    fmt('qualifiedName', 'example.com/My.Name', 'example.com/-x', QUALIFIED_NAME),
    fmt('dns1123LabelPrefix', 'my-prefix-', 'My-', DNS1123_LABEL),
    fmt('dns1123SubdomainPrefix', 'sub.prefix-', 'Sub.', DNS1123_SUBDOMAIN),
    fmt('dns1035LabelPrefix', 'abc-', '1abc-', DNS1035_LABEL),
    fmt('labelValue', 'My_Value.1', '-bad', LABEL_VALUE),
    fmt('uri', 'https://example.com/x?y=1', 'example.com', 'parse "example.com": invalid URI for request'),
    fmt('uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567', 'does not match the UUID format'),
    fmt('byte', 'aGVsbG8=', 'not base64!', 'invalid base64'),
    fmt('date', '2024-02-29', '2023-02-29', 'invalid date'),
    fmt('datetime', '2021-01-01T10:00:00.5+02:00', 'yesterday', 'invalid datetime'),
    {
      rule: 'format.named("dns1123Label").hasValue() && !format.named("nope").hasValue() && !format.named("dns1123Label").value().validate(self).hasValue()',
      ok: 'abc',
      bad: 'ABC',
    },
  ],
  url: [
    { rule: 'isURL(self)', ok: 'https://example.com', bad: 'example.com' },
    { rule: 'url(self).getScheme() == "https"', ok: 'HTTPS://example.com', bad: 'http://example.com' },
    { rule: 'url(self).getHost() == "example.com:8443"', ok: 'https://example.com:8443/', bad: 'https://example.com/' },
    { rule: 'url(self).getHostname() == "::1"', ok: 'https://[::1]:80/', bad: 'https://example.com/' },
    { rule: 'url(self).getPort() == "8443"', ok: 'https://example.com:8443', bad: 'https://example.com' },
    { rule: 'url(self).getEscapedPath() == "/a%20b"', ok: 'https://example.com/a b', bad: 'https://example.com/ab' },
    { rule: 'url(self).getQuery()["k"] == ["1", "2"]', ok: 'https://example.com/?k=1&k=2', bad: 'https://example.com/?k=1' },
    evalError('url(self).getScheme() == "https"', 'https://x.io', 'not a url', 'URL parse error during conversion from string: parse "not a url": invalid URI for request'),
    // upstream names a failing rule by its message when it has one (ruleErrorString), trimmed
    {
      rule: 'url(self).getPort() == "443"',
      ruleMessage: ' port must be 443 ',
      ok: 'https://x.io:443',
      bad: 'x.io',
      message: 'URL parse error during conversion from string: parse "x.io": invalid URI for request evaluating rule: port must be 443',
    },
    { rule: ' isURL(self) ', ok: 'https://x.io', bad: 'x.io', message: 'failed rule: isURL(self)' },
  ],
  quantity: [
    { rule: 'isQuantity(self)', ok: '1Gi', bad: '1GB' },
    { rule: 'quantity(self).isLessThan(quantity("1Gi"))', ok: '512Mi', bad: '2Gi' },
    { rule: 'quantity(self).isGreaterThan(quantity("100m"))', ok: '0.2', bad: '50m' },
    { rule: 'quantity(self).compareTo(quantity("1")) == 0', ok: '1000m', bad: '2' },
    { rule: 'quantity(self) == quantity("1k")', ok: '1000', bad: '1Ki' },
    { rule: 'quantity(self).sign() == 1', ok: '1', bad: '-1' },
    { rule: 'quantity(self).isInteger()', ok: '2k', bad: '1.5' },
    { rule: 'quantity(self).asInteger() == 2000', ok: '2k', bad: '2001' },
    { rule: 'quantity(self).asApproximateFloat() < 1.5', ok: '1', bad: '2' },
    { rule: 'quantity(self).add(quantity("500m")).isLessThan(quantity("2"))', ok: '1', bad: '1.5' },
    { rule: 'quantity(self).add(1).compareTo(quantity("2")) == 0', ok: '1', bad: '2' },
    { rule: 'quantity(self).sub(quantity("1")).sign() >= 0', ok: '1', bad: '500m' },
    { rule: 'quantity(self).sub(1).sign() == 0', ok: '1', bad: '3' },
    evalError('quantity(self).asInteger() > 0', '1', '1.5', 'cannot convert value to integer'),
    evalError('quantity(self).sign() >= 0', '1', '1GB', QUANTITY),
  ],
  lists: [
    { rule: 'self.isSorted()', ok: [1, 2, 2, 3], bad: [3, 1] },
    { rule: 'self.sum() <= 10', ok: [1, 2], bad: [9, 9] },
    { rule: 'self.min() >= 0', ok: [0, 5], bad: [4, -1] },
    { rule: 'self.max() < 100', ok: [1, 99], bad: [100, 1] },
    { rule: 'self.indexOf(7) == 0', ok: [7, 1, 7], bad: [1, 7] },
    { rule: 'self.lastIndexOf(7) == 2', ok: [7, 1, 7], bad: [7, 7, 1] },
    evalError('self.min() >= 0', [1], [], 'min called on empty list'),
    { rule: 'self.isSorted() && self.min() == "a" && self.max() == "c"', ok: ['a', 'b', 'c'], bad: ['b', 'a', 'c'] },
  ],
  sets: [
    { rule: 'sets.contains(self, ["a", "b"])', ok: ['b', 'c', 'a'], bad: ['a', 'c'] },
    { rule: 'sets.equivalent(self, ["a", "b"])', ok: ['b', 'a', 'b'], bad: ['a', 'b', 'c'] },
    { rule: 'sets.intersects(self, ["x", "y"])', ok: ['a', 'y'], bad: ['a', 'b'] },
  ],
  regex: [
    { rule: 'self.find("[0-9]+") == "123"', ok: 'ab123c45', bad: 'abc' },
    { rule: 'self.findAll("[a-z]").size() == 2', ok: 'a1b', bad: 'abc' },
    { rule: 'self.findAll("[a-z]", 1) == ["a"]', ok: 'ab', bad: '1b' },
  ],
  strings: [
    { rule: 'self.charAt(1) == "b"', ok: 'abc', bad: 'aac' },
    { rule: 'self.indexOf("b") == 1 && self.indexOf("b", 2) == 3', ok: 'abcb', bad: 'abc' },
    { rule: 'self.lastIndexOf("a") == 2', ok: 'aba', bad: 'aab' },
    { rule: 'self.lowerAscii() == "abc"', ok: 'ABc', bad: 'ABD' },
    { rule: 'self.upperAscii() == "ABC"', ok: 'abC', bad: 'abd' },
    { rule: 'self.replace("-", "_") == "a_b_c"', ok: 'a-b-c', bad: 'a-bc' },
    { rule: 'self.replace("-", "", 1) == "ab-c"', ok: 'a-b-c', bad: 'ab-c-' },
    { rule: 'self.split(",").size() == 3 && self.split(",", 2).size() == 2', ok: 'a,b,c', bad: 'a,b' },
    { rule: 'self.substring(1, 3) == "bc"', ok: 'abcd', bad: 'abdc' },
    { rule: 'self.trim() == "x"', ok: '  x ', bad: ' y ' },
    { rule: 'self.split(",").join("+") == "a+b"', ok: 'a,b', bad: 'a;b' },
    { rule: 'strings.quote(self) == "\\"a\\\\tb\\""', ok: 'a\tb', bad: 'ab' },
    {
      rule: 'self.size() < 3',
      messageExpression: '"%s: %d chars, %.2f%%, %x, %X, %o, %b, %e, %s".format([self, size(self), 12.5, 255, 255, 8, 5, 1500.0, [1, "a"]])',
      ok: 'ab',
      bad: 'abc',
      message: 'abc: 3 chars, 12.50%, ff, FF, 10, 101, 1.500000e+03, [1, "a"]',
    },
  ],
  semver: [
    { rule: 'isSemver(self)', ok: '1.2.3-rc.1+build.5', bad: 'v1.2.3' },
    { rule: 'isSemver(self, true)', ok: 'v1.02', bad: '1.2-rc.1' },
    { rule: 'semver(self).major() == 1 && semver(self).minor() == 2 && semver(self).patch() == 3', ok: '1.2.3', bad: '1.2.4' },
    { rule: 'semver(self, true) == semver("1.2.0")', ok: 'v1.2', bad: 'v1.3' },
    { rule: 'semver(self).isLessThan(semver("1.0.0"))', ok: '1.0.0-alpha.10', bad: '1.0.0' },
    { rule: 'semver(self).isGreaterThan(semver("1.0.0-alpha.2"))', ok: '1.0.0-alpha.10', bad: '1.0.0-alpha.1' },
    { rule: 'semver(self).compareTo(semver("1.0.0-beta")) == 0', ok: '1.0.0-beta+exp.sha', bad: '1.0.0-alpha' },
    evalError('semver(self).major() >= 0', '0.1.0', '1.2', 'No Major.Minor.Patch elements found'),
    evalError('semver(self).major() >= 0', '0.1.0', '01.2.3', 'Major number must not contain leading zeroes "01"'),
  ],
  optional: [
    { rule: 'optional.ofNonZeroValue(self).hasValue()', ok: 'a', bad: '' },
    { rule: 'optional.of(self).optMap(s, s.size()).value() < 3', ok: 'ab', bad: 'abc' },
    { rule: 'optional.of(self).optFlatMap(s, s == "" ? optional.none() : optional.of(s)).hasValue()', ok: 'a', bad: '' },
  ],
  twoVarComprehensions: [
    { rule: 'self.all(i, v, v > i)', ok: [1, 2, 3], bad: [1, 1] },
    { rule: 'self.exists(i, v, i == 1 && v == 7)', ok: [0, 7], bad: [7, 0] },
    { rule: 'self.existsOne(i, v, v == 7)', ok: [7, 1], bad: [7, 7] },
    { rule: 'self.transformList(i, v, v * i).sum() < 10', ok: [5, 2, 1], bad: [1, 5, 3] },
    { rule: 'self.transformList(i, v, i > 0, v).size() == 1', ok: [1, 2], bad: [1, 2, 3] },
    { rule: 'self.all(k, v, k.startsWith("app.") && v != "")', ok: { 'app.x': '1' }, bad: { 'app.x': '' } },
    { rule: 'self.transformMap(k, v, v.size()).all(k, n, n <= 3)', ok: { a: 'abc' }, bad: { a: 'abcd' } },
    { rule: 'self.transformMap(k, v, k != "skip", v).size() == 1', ok: { a: '1', skip: '2' }, bad: { a: '1', b: '2' } },
    evalError('self.transformMapEntry(k, v, {v: k}).size() == self.size()', { a: 'x', b: 'y' }, { a: 'x', b: 'x' }, 'insert failed: key x already exists'),
  ],
  ip: [
    { rule: 'isIP(self)', ok: '10.0.0.1', bad: '10.0.0.256' },
    { rule: 'ip(self).family() == 6', ok: '2001:db8::1', bad: '10.0.0.1' },
    { rule: 'ip.isCanonical(self)', ok: '2001:db8::1', bad: '2001:db8:0:0:0:0:0:1' },
    { rule: 'string(ip(self)) == "2001:db8::1"', ok: '2001:DB8:0::1', bad: '2001:db8::2' },
    { rule: 'ip(self).isUnspecified()', ok: '::', bad: '::1' },
    { rule: 'ip(self).isLoopback()', ok: '127.0.0.2', bad: '10.0.0.1' },
    { rule: 'ip(self).isLinkLocalMulticast()', ok: 'ff02::1', bad: '224.0.1.1' },
    { rule: 'ip(self).isLinkLocalUnicast()', ok: '169.254.1.1', bad: '172.16.0.1' },
    { rule: 'ip(self).isGlobalUnicast()', ok: '10.1.2.3', bad: '127.0.0.1' },
    { rule: 'ip(self) == ip("10.0.0.1")', ok: '10.0.0.1', bad: '10.0.0.2' },
    evalError('ip(self).family() == 4', '1.2.3.4', '1.2.3', 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short'),
    evalError('ip(self).family() == 6', 'fe80::1', 'fe80::1%eth0', 'IP address "fe80::1%eth0" with zone value is not allowed'),
    evalError('ip(self).family() == 6', '::1', '::ffff:1.2.3.4', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
  ],
  cidr: [
    { rule: 'isCIDR(self)', ok: '10.0.0.0/8', bad: '10.0.0.0/33' },
    { rule: 'cidr(self).containsIP("10.1.2.3") && cidr(self).containsIP(ip("10.1.2.3"))', ok: '10.0.0.0/8', bad: '192.168.0.0/16' },
    { rule: 'cidr(self).containsCIDR("10.1.0.0/16") && cidr(self).containsCIDR(cidr("10.1.0.0/16"))', ok: '10.0.0.0/8', bad: '10.1.0.0/24' },
    { rule: 'cidr(self).prefixLength() == 8', ok: '10.0.0.0/8', bad: '10.0.0.0/16' },
    { rule: 'string(cidr(self).masked()) == "10.0.0.0/8"', ok: '10.1.2.3/8', bad: '10.1.2.3/16' },
    { rule: 'cidr(self).ip() == ip("10.0.0.1") && cidr(self).ip().family() == 4', ok: '10.0.0.1/24', bad: '10.0.0.0/24' },
    { rule: 'string(cidr(self)) == self', ok: '2001:db8::/32', bad: '2001:DB8::/32' },
    evalError('cidr(self).prefixLength() > 0', '10.0.0.0/8', '10.0.0.0', `network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`),
  ],
};

const CASES = Object.entries(TABLE).flatMap(([lib, cases]) => cases.map((c, i) => ({ lib, field: `${lib}${i}`, ...c })));

let server: ApiServer;
let api: ReturnType<typeof client>;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const PATH = '/apis/cellib.example.com/v1/namespaces/default/widgets';

function crd(name: string, plural: string, kind: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${name}` },
    spec: {
      group: name,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

/** Each case is one bounded property carrying its rule (a rule runs only where its value is present). */
function propertyOf(c: (typeof CASES)[number]): Record<string, unknown> {
  const rule = { rule: c.rule, ...(c.messageExpression ? { messageExpression: c.messageExpression } : {}), ...(c.ruleMessage ? { message: c.ruleMessage } : {}) };
  const validations = { 'x-kubernetes-validations': [rule] };
  const sample = c.bad;
  if (Array.isArray(sample)) {
    const numbers = [...(c.ok as unknown[]), ...sample].some((x) => typeof x === 'number');
    return { type: 'array', maxItems: 16, items: numbers ? { type: 'integer' } : { type: 'string', maxLength: 64 }, ...validations };
  }
  if (typeof sample === 'object') return { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 64 }, ...validations };
  return { type: 'string', maxLength: 128, ...validations };
}

let seq = 0;
const widget = (spec: Record<string, unknown>) => ({ apiVersion: 'cellib.example.com/v1', kind: 'Widget', metadata: { name: `w${++seq}` }, spec });
const causes = (r: { body: any }) => (r.body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  const properties = Object.fromEntries(CASES.map((c) => [c.field, propertyOf(c)]));
  const r = await api.post(CRDS, crd('cellib.example.com', 'widgets', 'Widget', { type: 'object', properties }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await eventually(async () => expect((await api.get(PATH)).status).toBe(200));
});
afterAll(() => server.close());

describe('CEL libraries in CRD validation rules', () => {
  it.each(CASES)('$lib: $rule', async (c) => {
    const ok = await api.post(PATH, widget({ [c.field]: c.ok }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const bad = await api.post(PATH, widget({ [c.field]: c.bad }));
    expect(bad.status).toBe(422);
    const kind = Array.isArray(c.bad) ? 'array' : typeof c.bad === 'object' ? 'object' : 'string';
    expect(causes(bad)).toEqual([`spec.${c.field}: Invalid value: "${kind}": ${c.message ?? `failed rule: ${c.rule}`}`]);
  });
});

describe('CEL library rules at CRD creation', () => {
  const SPEC = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
  const create = (plural: string, kind: string, spec: Record<string, unknown>) => api.post(CRDS, crd('cellimits.example.com', plural, kind, spec));

  it('refuses unknown functions and wrong argument types, naming the rule', async () => {
    const r = await create('unknowns', 'Unknown', {
      type: 'object',
      properties: { s: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self.frobnicate()' }, { rule: 'quantity(1).isInteger()' }, { rule: 'format.nope().validate(self).hasValue()' }] } },
    });
    expect(r.status).toBe(422);
    const got = causes(r);
    expect(got).toHaveLength(3);
    got.forEach((c: string, i: number) => expect(c).toMatch(new RegExp(`^${SPEC.replace(/[[\]]/g, '\\$&')}\\.properties\\[s\\]\\.x-kubernetes-validations\\[${i}\\]\\.rule: Invalid value: apiextensions\\.ValidationRule\\{Rule:.*\\}: compilation failed: ERROR: `)));
  });

  it('charges the regex and format libraries by the sizes they traverse', async () => {
    // an unbounded list of unbounded strings, each searched by a regex (or validated as a format): far over budget
    const unbounded = (rule: string) => ({ type: 'object', properties: { names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule }] } } });
    const rules = [
      'self.all(x, x.find("[a-z]+[0-9]+") != "")',
      'self.all(x, !format.dns1123Subdomain().validate(x).hasValue())',
      'self.all(i, x, x.findAll("[a-z]+[0-9]+").size() > i)',
      'sets.intersects(self, self.transformList(i, x, x.lowerAscii()))',
    ];
    for (const [i, rule] of rules.entries()) {
      const r = await create(`costly${i}s`, `Costly${i}`, unbounded(rule));
      expect(r.status).toBe(422);
      expect(causes(r)).toContain(
        `${SPEC}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule(s), or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      );
    }
    // the same rules over a bounded list of bounded strings are accepted
    const bounded = (rule: string) => ({ type: 'object', properties: { names: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 63 }, 'x-kubernetes-validations': [{ rule }] } } });
    for (const [i, rule] of [...rules, 'self.all(x, isURL(x) && isCIDR(x) && isSemver(x) && isQuantity(x))'].entries()) {
      const ok = await create(`cheap${i}s`, `Cheap${i}`, bounded(rule));
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    }
  });
});
