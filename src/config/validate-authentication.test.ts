import { describe, expect, test } from 'vitest';
import { edit, errorsOf, TEST_CA_PEM, VALID_AUTHENTICATION as VALID, warningsOf, type Found } from './test-support.js';
import { validateAuthenticationConfiguration, validateConfigDocument } from './validate.js';

const J = 'jwt[0]';
const EMAIL_VERIFIED =
  'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';

function secondAuthenticator(d: { jwt: unknown[] }, url = 'https://other.example.com'): void {
  const copy = structuredClone(d.jwt[0]) as { issuer: { url: string } };
  copy.issuer.url = url;
  d.jwt.push(copy);
}

type Case = [title: string, change: (d: any) => void, errors: Found[]];

function runCases(cases: Case[]): void {
  test.each(cases)('%s', (_title, change, expected) => {
    expect(errorsOf(validateConfigDocument(edit(VALID, change)))).toEqual(expected);
  });
}

describe('AuthenticationConfiguration', () => {
  test('the reference document is valid, with no warnings', () => {
    expect(validateConfigDocument(VALID)).toEqual([]);
    expect(validateAuthenticationConfiguration(VALID)).toEqual([]);
  });

  describe('valid variations', () => {
    runCases([
      ['an empty jwt list', (d) => (d.jwt = []), []],
      ['no anonymous section', (d) => delete d.anonymous, []],
      ['anonymous without conditions', (d) => (d.anonymous = { enabled: false }), []],
      ['issuer with a path', (d) => (d.jwt[0].issuer.url = 'https://example.com/tenants/a'), []],
      ['discoveryURL elsewhere', (d) => (d.jwt[0].issuer.discoveryURL = 'https://discovery.example.com/.well-known/openid-configuration'), []],
      ['several audiences with MatchAny', (d) => Object.assign(d.jwt[0].issuer, { audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' }), []],
      ['single audience with MatchAny', (d) => (d.jwt[0].issuer.audienceMatchPolicy = 'MatchAny'), []],
      ['egress selector cluster', (d) => (d.jwt[0].issuer.egressSelectorType = 'cluster'), []],
      ['claim rule with only a claim', (d) => (d.jwt[0].claimValidationRules = [{ claim: 'hd' }]), []],
      ['username by expression', (d) => (d.jwt[0].claimMappings.username = { expression: "'user:' + claims.sub" }), []],
      ['username with an empty prefix', (d) => (d.jwt[0].claimMappings.username = { claim: 'sub', prefix: '' }), []],
      ['groups by list expression', (d) => (d.jwt[0].claimMappings.groups = { expression: "claims.roles.split(',')" }), []],
      ['groups by string expression', (d) => (d.jwt[0].claimMappings.groups = { expression: 'claims.role' }), []],
      ['groups absent', (d) => delete d.jwt[0].claimMappings.groups, []],
      ['uid by expression', (d) => (d.jwt[0].claimMappings.uid = { expression: 'claims.sub' }), []],
      ['extra with a list value', (d) => (d.jwt[0].claimMappings.extra = [{ key: 'example.com/roles', valueExpression: "['a', 'b']" }]), []],
      [
        'email in username expression with email_verified in a claim rule',
        (d) => {
          d.jwt[0].claimMappings.username = { expression: 'claims.email' };
          d.jwt[0].claimValidationRules = [{ expression: 'claims.?email_verified.orValue(true) == true' }];
        },
        [],
      ],
      [
        'email and email_verified in the username expression',
        (d) => (d.jwt[0].claimMappings.username = { expression: "claims.email_verified == true ? claims.email : ''" }),
        [],
      ],
      [
        'email_verified used in an extra expression',
        (d) => {
          d.jwt[0].claimMappings.username = { expression: 'claims.email' };
          d.jwt[0].claimMappings.extra = [{ key: 'example.com/verified', valueExpression: 'string(claims.email_verified)' }];
        },
        [],
      ],
      ['two authenticators with different issuers', (d) => secondAuthenticator(d), []],
    ]);
  });

  describe('required fields', () => {
    runCases([
      ['jwt missing', (d) => delete d.jwt, [{ path: 'jwt', message: 'Required value' }]],
      ['issuer missing', (d) => delete d.jwt[0].issuer, [{ path: `${J}.issuer`, message: 'Required value' }]],
      ['issuer url missing', (d) => delete d.jwt[0].issuer.url, [{ path: `${J}.issuer.url`, message: 'Required value' }]],
      ['issuer url empty', (d) => (d.jwt[0].issuer.url = ''), [{ path: `${J}.issuer.url`, message: 'Required value' }]],
      [
        'audiences missing',
        (d) => delete d.jwt[0].issuer.audiences,
        [{ path: `${J}.issuer.audiences`, message: `Required value: at least one ${J}.issuer.audiences is required` }],
      ],
      [
        'audiences empty',
        (d) => (d.jwt[0].issuer.audiences = []),
        [{ path: `${J}.issuer.audiences`, message: `Required value: at least one ${J}.issuer.audiences is required` }],
      ],
      ['claimMappings missing', (d) => delete d.jwt[0].claimMappings, [{ path: `${J}.claimMappings`, message: 'Required value' }]],
      ['username missing', (d) => delete d.jwt[0].claimMappings.username, [{ path: `${J}.claimMappings.username`, message: 'Required value' }]],
      [
        'extra key missing',
        (d) => delete d.jwt[0].claimMappings.extra[0].key,
        [{ path: `${J}.claimMappings.extra[0].key`, message: 'Required value' }],
      ],
      [
        'extra valueExpression missing',
        (d) => delete d.jwt[0].claimMappings.extra[0].valueExpression,
        [{ path: `${J}.claimMappings.extra[0].valueExpression`, message: 'Required value' }],
      ],
      [
        'user validation expression missing',
        (d) => delete d.jwt[0].userValidationRules[0].expression,
        [{ path: `${J}.userValidationRules[0].expression`, message: 'Required value' }],
      ],
      ['anonymous enabled missing', (d) => delete d.anonymous.enabled, [{ path: 'anonymous.enabled', message: 'Required value' }]],
      ['anonymous condition path missing', (d) => (d.anonymous.conditions = [{}]), [{ path: 'anonymous.conditions[0].path', message: 'Required value' }]],
    ]);
  });

  describe('issuer', () => {
    runCases([
      ['url not https', (d) => (d.jwt[0].issuer.url = 'http://issuer.example.com'), [{ path: `${J}.issuer.url`, message: 'Invalid value: "http://issuer.example.com": URL scheme must be https' }]],
      ['url without scheme', (d) => (d.jwt[0].issuer.url = 'issuer.example.com'), [{ path: `${J}.issuer.url`, message: 'Invalid value: "issuer.example.com": URL scheme must be https' }]],
      [
        'url with credentials',
        (d) => (d.jwt[0].issuer.url = 'https://me:pw@issuer.example.com'),
        [{ path: `${J}.issuer.url`, message: 'Invalid value: "https://me:pw@issuer.example.com": URL must not contain a username or password' }],
      ],
      ['url with a query', (d) => (d.jwt[0].issuer.url = 'https://issuer.example.com?a=b'), [{ path: `${J}.issuer.url`, message: 'Invalid value: "https://issuer.example.com?a=b": URL must not contain a query' }]],
      ['url with a fragment', (d) => (d.jwt[0].issuer.url = 'https://issuer.example.com#x'), [{ path: `${J}.issuer.url`, message: 'Invalid value: "https://issuer.example.com#x": URL must not contain a fragment' }]],
      ['url repeated across authenticators', (d) => secondAuthenticator(d, 'https://issuer.example.com'), [{ path: 'jwt[1].issuer.url', message: 'Duplicate value: "https://issuer.example.com"' }]],
      [
        'discoveryURL equal to url',
        (d) => (d.jwt[0].issuer.discoveryURL = 'https://issuer.example.com/'),
        [{ path: `${J}.issuer.discoveryURL`, message: 'Invalid value: "https://issuer.example.com/": discoveryURL must be different from URL' }],
      ],
      [
        'discoveryURL not https',
        (d) => (d.jwt[0].issuer.discoveryURL = 'http://discovery.example.com'),
        [{ path: `${J}.issuer.discoveryURL`, message: 'Invalid value: "http://discovery.example.com": URL scheme must be https' }],
      ],
      [
        'discoveryURL repeated across authenticators',
        (d) => {
          d.jwt[0].issuer.discoveryURL = 'https://discovery.example.com';
          secondAuthenticator(d);
        },
        [{ path: 'jwt[1].issuer.discoveryURL', message: 'Duplicate value: "https://discovery.example.com"' }],
      ],
      ['empty audience', (d) => (d.jwt[0].issuer.audiences = ['']), [{ path: `${J}.issuer.audiences[0]`, message: 'Required value' }]],
      [
        'repeated audience',
        (d) => Object.assign(d.jwt[0].issuer, { audiences: ['a', 'a'], audienceMatchPolicy: 'MatchAny' }),
        [{ path: `${J}.issuer.audiences[1]`, message: 'Duplicate value: "a"' }],
      ],
      [
        'several audiences without a match policy',
        (d) => (d.jwt[0].issuer.audiences = ['a', 'b']),
        [{ path: `${J}.issuer.audienceMatchPolicy`, message: 'Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences' }],
      ],
      [
        'unknown match policy',
        (d) => (d.jwt[0].issuer.audienceMatchPolicy = 'MatchAll'),
        [{ path: `${J}.issuer.audienceMatchPolicy`, message: 'Unsupported value: "MatchAll": supported values: "MatchAny"' }],
      ],
      [
        'unknown egress selector',
        (d) => (d.jwt[0].issuer.egressSelectorType = 'etcd'),
        [{ path: `${J}.issuer.egressSelectorType`, message: 'Unsupported value: "etcd": supported values: "controlplane", "cluster"' }],
      ],
      [
        'certificate authority that is not PEM',
        (d) => (d.jwt[0].issuer.certificateAuthority = 'not a certificate'),
        [{ path: `${J}.issuer.certificateAuthority`, message: 'Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates' }],
      ],
      [
        'certificate authority with a broken body',
        (d) => (d.jwt[0].issuer.certificateAuthority = TEST_CA_PEM.replace('MIIB', '!!!!')),
        [{ path: `${J}.issuer.certificateAuthority`, message: 'Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates' }],
      ],
    ]);

    test('disallowed issuers are rejected', () => {
      const problems = validateConfigDocument(VALID, { disallowedIssuers: ['https://issuer.example.com', 'https://a.example.com'] });
      expect(errorsOf(problems)).toEqual([
        {
          path: `${J}.issuer.url`,
          message: 'Invalid value: "https://issuer.example.com": URL must not overlap with disallowed issuers: [https://a.example.com https://issuer.example.com]',
        },
      ]);
    });
  });

  describe('claim validation rules', () => {
    const R = `${J}.claimValidationRules`;
    runCases([
      ['claim and expression', (d) => (d.jwt[0].claimValidationRules = [{ claim: 'a', expression: 'true' }]), [{ path: `${R}[0]`, message: "Invalid value: claim and expression can't both be set" }]],
      ['neither claim nor expression', (d) => (d.jwt[0].claimValidationRules = [{ message: 'x' }]), [{ path: `${R}[0]`, message: 'Required value: claim or expression is required' }]],
      [
        'claim with a message',
        (d) => (d.jwt[0].claimValidationRules = [{ claim: 'a', message: 'x' }]),
        [{ path: `${R}[0].message`, message: 'Invalid value: "x": may not be specified when claim is set' }],
      ],
      [
        'expression with a requiredValue',
        (d) => (d.jwt[0].claimValidationRules = [{ expression: 'true', requiredValue: 'v' }]),
        [{ path: `${R}[0].requiredValue`, message: 'Invalid value: "v": may not be specified when expression is set' }],
      ],
      ['repeated claim', (d) => (d.jwt[0].claimValidationRules = [{ claim: 'a' }, { claim: 'a', requiredValue: 'b' }]), [{ path: `${R}[1].claim`, message: 'Duplicate value: "a"' }]],
      [
        'repeated expression',
        (d) => (d.jwt[0].claimValidationRules = [{ expression: 'claims.a == 1' }, { expression: 'claims.a == 1' }]),
        [{ path: `${R}[1].expression`, message: 'Duplicate value: "claims.a == 1"' }],
      ],
      ['expression not producing a bool', (d) => (d.jwt[0].claimValidationRules = [{ expression: 'claims.hd' }]), [{ path: `${R}[0].expression`, message: 'Invalid value: "claims.hd": must evaluate to bool' }]],
      [
        'expression that does not parse',
        (d) => (d.jwt[0].claimValidationRules = [{ expression: 'claims.hd ==' }]),
        [{ path: `${R}[0].expression`, message: 'Invalid value: "claims.hd ==": compilation failed: ERROR: <input>:1:13: Unexpected token: EOF' }],
      ],
      [
        'expression over an unknown variable',
        (d) => (d.jwt[0].claimValidationRules = [{ expression: 'token.hd == "x"' }]),
        [{ path: `${R}[0].expression`, message: 'Invalid value: "token.hd == \\"x\\"": compilation failed: ERROR: <input>:1:1: Unknown variable: token' }],
      ],
    ]);
  });

  describe('claim mappings', () => {
    const M = `${J}.claimMappings`;
    runCases([
      ['username with neither claim nor expression', (d) => (d.jwt[0].claimMappings.username = {}), [{ path: `${M}.username`, message: 'Required value: claim or expression is required' }]],
      [
        'username claim without prefix',
        (d) => (d.jwt[0].claimMappings.username = { claim: 'sub' }),
        [{ path: `${M}.username.prefix`, message: 'Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing' }],
      ],
      [
        'username claim and expression',
        (d) => (d.jwt[0].claimMappings.username = { claim: 'sub', prefix: '', expression: 'claims.sub' }),
        [{ path: `${M}.username`, message: "Invalid value: claim and expression can't both be set" }],
      ],
      [
        'username expression with a prefix',
        (d) => (d.jwt[0].claimMappings.username = { expression: 'claims.sub', prefix: 'x:' }),
        [{ path: `${M}.username.prefix`, message: 'Invalid value: "x:": may not be specified when expression is set' }],
      ],
      [
        'username expression not producing a string',
        (d) => (d.jwt[0].claimMappings.username = { expression: 'claims.sub == "a"' }),
        [{ path: `${M}.username.expression`, message: 'Invalid value: "claims.sub == \\"a\\"": must evaluate to string' }],
      ],
      [
        'groups claim without prefix',
        (d) => (d.jwt[0].claimMappings.groups = { claim: 'groups' }),
        [{ path: `${M}.groups.prefix`, message: 'Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing' }],
      ],
      [
        'groups expression producing a bool',
        (d) => (d.jwt[0].claimMappings.groups = { expression: 'has(claims.groups)' }),
        [{ path: `${M}.groups.expression`, message: 'Invalid value: "has(claims.groups)": must evaluate to one of [string list(string)]' }],
      ],
      ['uid claim and expression', (d) => (d.jwt[0].claimMappings.uid = { claim: 'sub', expression: 'claims.sub' }), [{ path: `${M}.uid`, message: "Invalid value: claim and expression can't both be set" }]],
      ['uid with neither', (d) => (d.jwt[0].claimMappings.uid = {}), [{ path: `${M}.uid`, message: 'Required value: claim or expression is required' }]],
      ['uid expression producing an int', (d) => (d.jwt[0].claimMappings.uid = { expression: '42' }), [{ path: `${M}.uid.expression`, message: 'Invalid value: "42": must evaluate to string' }]],
      [
        'extra key without a domain',
        (d) => (d.jwt[0].claimMappings.extra[0].key = 'tenant'),
        [{ path: `${M}.extra[0].key`, message: 'Invalid value: "tenant": must be a domain-prefixed path (such as "acme.io/foo")' }],
      ],
      [
        'extra key with a bad domain',
        (d) => (d.jwt[0].claimMappings.extra[0].key = 'exa_mple.com/tenant'),
        [
          {
            path: `${M}.extra[0].key`,
            message:
              "Invalid value: \"exa_mple.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
          },
        ],
      ],
      [
        'extra key with a bad path',
        (d) => (d.jwt[0].claimMappings.extra[0].key = 'example.com/ten ant'),
        [{ path: `${M}.extra[0].key`, message: "Invalid value: \"ten ant\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')" }],
      ],
      ['extra key with capitals', (d) => (d.jwt[0].claimMappings.extra[0].key = 'example.com/Tenant'), [{ path: `${M}.extra[0].key`, message: 'Invalid value: "example.com/Tenant": must be lowercase' }]],
      [
        'extra key in a reserved domain',
        (d) => (d.jwt[0].claimMappings.extra[0].key = 'authentication.k8s.io/tenant'),
        [{ path: `${M}.extra[0].key`, message: "Invalid value: \"authentication.k8s.io/tenant\": service.io, k8s.io, kubernetes.io and their subdomains are reserved for the server's own use" }],
      ],
      [
        'repeated extra key',
        (d) => d.jwt[0].claimMappings.extra.push({ key: 'example.com/tenant', valueExpression: 'claims.org' }),
        [{ path: `${M}.extra[1].key`, message: 'Duplicate value: "example.com/tenant"' }],
      ],
      [
        'extra expression producing an int',
        (d) => (d.jwt[0].claimMappings.extra[0].valueExpression = '1 + 2'),
        [{ path: `${M}.extra[0].valueExpression`, message: 'Invalid value: "1 + 2": must evaluate to one of [string list(string)]' }],
      ],
      [
        'claims.email in username without email_verified anywhere',
        (d) => {
          d.jwt[0].claimMappings.username = { expression: 'claims.email' };
          d.jwt[0].claimValidationRules = [];
        },
        [{ path: `${M}.username.expression`, message: `Invalid value: "claims.email": ${EMAIL_VERIFIED}` }],
      ],
      [
        'optional claims.?email in username without email_verified',
        (d) => (d.jwt[0].claimMappings.username = { expression: "claims.?email.orValue('')" }),
        [{ path: `${M}.username.expression`, message: `Invalid value: "claims.?email.orValue('')": ${EMAIL_VERIFIED}` }],
      ],
    ]);
  });

  describe('user validation rules', () => {
    const U = `${J}.userValidationRules`;
    runCases([
      [
        'repeated expression',
        (d) => d.jwt[0].userValidationRules.push({ expression: "!user.username.startsWith('system:')" }),
        [{ path: `${U}[1].expression`, message: 'Duplicate value: "!user.username.startsWith(\'system:\')"' }],
      ],
      ['expression not producing a bool', (d) => (d.jwt[0].userValidationRules = [{ expression: 'user.username' }]), [{ path: `${U}[0].expression`, message: 'Invalid value: "user.username": must evaluate to bool' }]],
      [
        'expression reading an unknown user field',
        (d) => (d.jwt[0].userValidationRules = [{ expression: "user.name == 'x'" }]),
        [{ path: `${U}[0].expression`, message: 'Invalid value: "user.name == \'x\'": compilation failed: ERROR: <input>:1:6: No such key: name' }],
      ],
      ['groups and extra are visible', (d) => (d.jwt[0].userValidationRules = [{ expression: "user.groups.all(g, g != 'x') && size(user.extra) >= 0 && user.uid != ''" }]), []],
    ]);
  });

  describe('anonymous', () => {
    runCases([
      [
        'disabled with conditions',
        (d) => (d.anonymous.enabled = false),
        [{ path: 'anonymous.conditions', message: 'Invalid value: enabled should be set to true when conditions are defined' }],
      ],
      ['repeated condition path', (d) => d.anonymous.conditions.push({ path: '/livez' }), [{ path: 'anonymous.conditions[2].path', message: 'Duplicate value: "/livez"' }]],
    ]);

    test('a condition path without a leading slash draws a warning', () => {
      const problems = validateConfigDocument(edit(VALID, (d) => (d.anonymous.conditions = [{ path: 'livez' }])));
      expect(errorsOf(problems)).toEqual([]);
      expect(warningsOf(problems)).toEqual([
        { path: 'anonymous.conditions[0].path', message: 'should start with "/": request paths always do, so this condition never matches' },
      ]);
    });

    test('anonymous conflicts with an explicit --anonymous-auth flag', () => {
      expect(errorsOf(validateConfigDocument(VALID, { anonymousAuthFlagSet: true }))).toEqual([
        { path: 'anonymous', message: 'Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file' },
      ]);
      const withoutAnonymous = edit(VALID, (d) => delete d.anonymous);
      expect(validateConfigDocument(withoutAnonymous, { anonymousAuthFlagSet: true })).toEqual([]);
    });
  });

  test('too many authenticators', () => {
    const doc = edit(VALID, (d) => {
      for (let i = 1; i <= 64; i++) secondAuthenticator(d, `https://issuer${i}.example.com`);
    });
    expect(errorsOf(validateConfigDocument(doc))).toEqual([{ path: 'jwt', message: 'Too many: 65: must have at most 64 items' }]);
  });

  test('every problem is reported, not only the first', () => {
    const doc = edit(VALID, (d) => {
      d.jwt[0].issuer.url = 'http://a';
      d.jwt[0].issuer.audiences = [];
      d.jwt[0].claimMappings.username = { claim: 'sub' };
      d.jwt[0].claimValidationRules = [{ expression: '1' }];
      d.anonymous.enabled = 'yes';
    });
    expect(errorsOf(validateConfigDocument(doc))).toEqual([
      { path: `${J}.issuer.audiences`, message: `Required value: at least one ${J}.issuer.audiences is required` },
      { path: 'anonymous.enabled', message: 'Invalid value: "yes": must be a boolean' },
      { path: `${J}.issuer.url`, message: 'Invalid value: "http://a": URL scheme must be https' },
      { path: `${J}.claimValidationRules[0].expression`, message: 'Invalid value: "1": must evaluate to bool' },
      { path: `${J}.claimMappings.username.prefix`, message: 'Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing' },
    ]);
  });
});
