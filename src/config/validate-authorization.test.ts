import { describe, expect, test } from 'vitest';
import { edit, errorsOf, VALID_AUTHORIZATION as VALID, type Found } from './test-support.js';
import { validateAuthorizationConfiguration, validateConfigDocument } from './validate.js';

const W = 'authorizers[0].webhook';

type Case = [title: string, change: (d: any) => void, errors: Found[]];

function runCases(cases: Case[]): void {
  test.each(cases)('%s', (_title, change, expected) => {
    expect(errorsOf(validateConfigDocument(edit(VALID, change)))).toEqual(expected);
  });
}

describe('AuthorizationConfiguration', () => {
  test('the reference document is valid, with no warnings', () => {
    expect(validateConfigDocument(VALID)).toEqual([]);
    expect(validateAuthorizationConfiguration(VALID)).toEqual([]);
  });

  describe('valid variations', () => {
    runCases([
      ['two webhooks', (d) => d.authorizers.push({ ...structuredClone(d.authorizers[0]), name: 'second' }), []],
      ['empty match conditions', (d) => (d.authorizers[0].webhook.matchConditions = []), []],
      ['caching switched off', (d) => Object.assign(d.authorizers[0].webhook, { cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false }), []],
      ['timeout of exactly 30s', (d) => (d.authorizers[0].webhook.timeout = '30s'), []],
      ['v1beta1 reviews and Deny', (d) => Object.assign(d.authorizers[0].webhook, { subjectAccessReviewVersion: 'v1beta1', failurePolicy: 'Deny' }), []],
      ['in-cluster connection', (d) => (d.authorizers[0].webhook.connectionInfo = { type: 'InClusterConfig' }), []],
      ['upstream KubeConfigFile spelling', (d) => (d.authorizers[0].webhook.connectionInfo = { type: 'KubeConfigFile', kubeConfigFile: '/etc/authz.yaml' }), []],
      [
        'match conditions over every request field',
        (d) =>
          (d.authorizers[0].webhook.matchConditions = [
            { expression: "request.user == 'a' && 'g' in request.groups && request.uid != '' && size(request.extra) >= 0" },
            { expression: "has(request.nonResourceAttributes) && request.nonResourceAttributes.path.startsWith('/healthz')" },
            {
              expression:
                "has(request.resourceAttributes) && request.resourceAttributes.verb == 'get' && request.resourceAttributes.group == '' && request.resourceAttributes.version == 'v1' && request.resourceAttributes.resource == 'pods' && request.resourceAttributes.subresource == '' && request.resourceAttributes.name == 'x'",
            },
            { expression: "request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'app' && r.operator == 'In' && 'x' in r.values)" },
            { expression: "request.resourceAttributes.fieldSelector.rawSelector == 'spec.nodeName=n1'" },
          ]),
        [],
      ],
    ]);
  });

  describe('authorizers', () => {
    runCases([
      ['authorizers missing', (d) => delete d.authorizers, [{ path: 'authorizers', message: 'Required value: at least one authorization mode must be defined' }]],
      ['authorizers empty', (d) => (d.authorizers = []), [{ path: 'authorizers', message: 'Required value: at least one authorization mode must be defined' }]],
      ['type missing', (d) => delete d.authorizers[1].type, [{ path: 'authorizers[1].type', message: 'Required value' }]],
      [
        'unknown type',
        (d) => (d.authorizers[1].type = 'Magic'),
        [{ path: 'authorizers[1].type', message: 'Unsupported value: "Magic": supported values: "AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"' }],
      ],
      ['repeated RBAC', (d) => d.authorizers.push({ type: 'RBAC', name: 'rbac2' }), [{ path: 'authorizers[2].type', message: 'Duplicate value: "RBAC"' }]],
      ['name missing', (d) => delete d.authorizers[1].name, [{ path: 'authorizers[1].name', message: 'Required value' }]],
      ['repeated name', (d) => (d.authorizers[1].name = 'system-crd-protector'), [{ path: 'authorizers[1].name', message: 'Duplicate value: "system-crd-protector"' }]],
      [
        'name that is not a DNS-1123 label',
        (d) => (d.authorizers[1].name = 'rbac.local'),
        [
          {
            path: 'authorizers[1].name',
            message:
              "Invalid value: \"rbac.local\": authorizer name is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
          },
        ],
      ],
      [
        'name longer than 63 characters',
        (d) => (d.authorizers[1].name = 'a'.repeat(64)),
        [{ path: 'authorizers[1].name', message: `Invalid value: "${'a'.repeat(64)}": authorizer name is invalid: must be no more than 63 characters` }],
      ],
      ['webhook missing for a Webhook', (d) => delete d.authorizers[0].webhook, [{ path: W, message: 'Required value: required when type=Webhook' }]],
      [
        'webhook given for RBAC',
        (d) => (d.authorizers[1].webhook = structuredClone(d.authorizers[0].webhook)),
        [{ path: 'authorizers[1].webhook', message: 'Forbidden: may only be specified when type=Webhook' }],
      ],
    ]);
  });

  describe('webhook', () => {
    runCases([
      ['timeout missing', (d) => delete d.authorizers[0].webhook.timeout, [{ path: `${W}.timeout`, message: 'Required value' }]],
      ['timeout of zero', (d) => (d.authorizers[0].webhook.timeout = '0s'), [{ path: `${W}.timeout`, message: 'Required value' }]],
      ['timeout over 30s', (d) => (d.authorizers[0].webhook.timeout = '31s'), [{ path: `${W}.timeout`, message: 'Invalid value: "31s": must be > 0s and <= 30s' }]],
      ['negative timeout', (d) => (d.authorizers[0].webhook.timeout = '-1s'), [{ path: `${W}.timeout`, message: 'Invalid value: "-1s": must be > 0s and <= 30s' }]],
      [
        'timeout that is not a duration',
        (d) => (d.authorizers[0].webhook.timeout = '3 seconds'),
        [{ path: `${W}.timeout`, message: 'Invalid value: "3 seconds": must be a duration such as "30s", "5m" or "1m30s"' }],
      ],
      ['authorizedTTL missing', (d) => delete d.authorizers[0].webhook.authorizedTTL, [{ path: `${W}.authorizedTTL`, message: 'Required value' }]],
      ['authorizedTTL of zero', (d) => (d.authorizers[0].webhook.authorizedTTL = '0'), [{ path: `${W}.authorizedTTL`, message: 'Required value' }]],
      ['negative unauthorizedTTL', (d) => (d.authorizers[0].webhook.unauthorizedTTL = '-5m'), [{ path: `${W}.unauthorizedTTL`, message: 'Invalid value: "-5m": must be > 0s' }]],
      ['unauthorizedTTL missing', (d) => delete d.authorizers[0].webhook.unauthorizedTTL, [{ path: `${W}.unauthorizedTTL`, message: 'Required value' }]],
      ['cache flag not a boolean', (d) => (d.authorizers[0].webhook.cacheAuthorizedRequests = 'yes'), [{ path: `${W}.cacheAuthorizedRequests`, message: 'Invalid value: "yes": must be a boolean' }]],
      ['review version missing', (d) => delete d.authorizers[0].webhook.subjectAccessReviewVersion, [{ path: `${W}.subjectAccessReviewVersion`, message: 'Required value' }]],
      [
        'unknown review version',
        (d) => (d.authorizers[0].webhook.subjectAccessReviewVersion = 'v2'),
        [{ path: `${W}.subjectAccessReviewVersion`, message: 'Unsupported value: "v2": supported values: "v1", "v1beta1"' }],
      ],
      [
        'match condition review version missing',
        (d) => delete d.authorizers[0].webhook.matchConditionSubjectAccessReviewVersion,
        [{ path: `${W}.matchConditionSubjectAccessReviewVersion`, message: 'Required value' }],
      ],
      [
        'match condition review version v1beta1',
        (d) => (d.authorizers[0].webhook.matchConditionSubjectAccessReviewVersion = 'v1beta1'),
        [{ path: `${W}.matchConditionSubjectAccessReviewVersion`, message: 'Unsupported value: "v1beta1": supported values: "v1"' }],
      ],
      ['failurePolicy missing', (d) => delete d.authorizers[0].webhook.failurePolicy, [{ path: `${W}.failurePolicy`, message: 'Required value' }]],
      [
        'unknown failurePolicy',
        (d) => (d.authorizers[0].webhook.failurePolicy = 'Allow'),
        [{ path: `${W}.failurePolicy`, message: 'Unsupported value: "Allow": supported values: "NoOpinion", "Deny"' }],
      ],
      ['matchConditions missing', (d) => delete d.authorizers[0].webhook.matchConditions, [{ path: `${W}.matchConditions`, message: 'Required value' }]],
    ]);
  });

  describe('connection info', () => {
    const C = `${W}.connectionInfo`;
    runCases([
      ['connectionInfo missing', (d) => delete d.authorizers[0].webhook.connectionInfo, [{ path: C, message: 'Required value' }]],
      ['type missing', (d) => delete d.authorizers[0].webhook.connectionInfo.type, [{ path: `${C}.type`, message: 'Required value' }]],
      [
        'unknown type',
        (d) => (d.authorizers[0].webhook.connectionInfo.type = 'URL'),
        [{ path: `${C}.type`, message: 'Unsupported value: "URL": supported values: "ServiceConfig", "InClusterConfig", "KubeConfigFile"' }],
      ],
      [
        'ServiceConfig without a file',
        (d) => delete d.authorizers[0].webhook.connectionInfo.serviceConfigFile,
        [{ path: `${C}.serviceConfigFile`, message: 'Required value: required when type=ServiceConfig' }],
      ],
      [
        'InClusterConfig with a file',
        (d) => (d.authorizers[0].webhook.connectionInfo.type = 'InClusterConfig'),
        [{ path: `${C}.serviceConfigFile`, message: 'Forbidden: may only be specified when type=ServiceConfig' }],
      ],
      [
        'both spellings of the file',
        (d) => (d.authorizers[0].webhook.connectionInfo.kubeConfigFile = '/etc/other.yaml'),
        [{ path: `${C}.kubeConfigFile`, message: 'Forbidden: may not be set together with serviceConfigFile, of which it is another spelling' }],
      ],
      [
        'relative file path',
        (d) => (d.authorizers[0].webhook.connectionInfo.serviceConfigFile = 'authz.yaml'),
        [{ path: `${C}.serviceConfigFile`, message: 'Invalid value: "authz.yaml": must be an absolute path' }],
      ],
    ]);
  });

  describe('match conditions', () => {
    const M = `${W}.matchConditions`;
    runCases([
      ['expression missing', (d) => (d.authorizers[0].webhook.matchConditions = [{}]), [{ path: `${M}[0].expression`, message: 'Required value' }]],
      ['blank expression', (d) => (d.authorizers[0].webhook.matchConditions = [{ expression: '   ' }]), [{ path: `${M}[0].expression`, message: 'Required value' }]],
      [
        'repeated expression',
        (d) => d.authorizers[0].webhook.matchConditions.push({ expression: 'has(request.resourceAttributes)' }),
        [{ path: `${M}[2].expression`, message: 'Duplicate value: "has(request.resourceAttributes)"' }],
      ],
      [
        'expression not producing a bool',
        (d) => (d.authorizers[0].webhook.matchConditions = [{ expression: 'request.user' }]),
        [{ path: `${M}[0].expression`, message: 'Invalid value: "request.user": must evaluate to bool' }],
      ],
      [
        'expression reading an unknown field',
        (d) => (d.authorizers[0].webhook.matchConditions = [{ expression: "request.namespace == 'a'" }]),
        [{ path: `${M}[0].expression`, message: 'Invalid value: "request.namespace == \'a\'": compilation failed: ERROR: <input>:1:9: No such key: namespace' }],
      ],
      [
        'more than 64 conditions',
        (d) => (d.authorizers[0].webhook.matchConditions = Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != 'u${i}'` }))),
        [{ path: M, message: 'Too many: 65: must have at most 64 items' }],
      ],
    ]);

    test('64 conditions are allowed', () => {
      const doc = edit(VALID, (d) => (d.authorizers[0].webhook.matchConditions = Array.from({ length: 64 }, (_, i) => ({ expression: `request.user != 'u${i}'` }))));
      expect(validateConfigDocument(doc)).toEqual([]);
    });
  });
});
