// Helpers and known-good documents for the src/config tests (imported by *.test.ts only).

import type { ConfigProblem } from './problems.js';

export const API_VERSION = 'apiserver.config.service.io/v1';

export interface Found {
  path: string;
  message: string;
}

export function errorsOf(problems: readonly ConfigProblem[]): Found[] {
  return problems.filter((p) => p.severity === 'error').map(({ path, message }) => ({ path, message }));
}

export function warningsOf(problems: readonly ConfigProblem[]): Found[] {
  return problems.filter((p) => p.severity === 'warning').map(({ path, message }) => ({ path, message }));
}

/** A deep copy of `base` changed by `change`, which may use loose typing to build broken documents. */
export function edit<T>(base: T, change: (doc: any) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

/** Base64 of `n` bytes, as an encryption key. */
export function keyOfLength(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode((i * 37 + 11) % 256);
  return btoa(s);
}

export const TEST_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBjTCCATOgAwIBAgIUPM0Jzho0c6XD0D6tNYHRUx7TbmowCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRcGVyaXNjb3BlLXRlc3QtY2EwHhcNMjYxMTIzMDYyMDM0WhcN
MzYxMTIwMDYyMDM0WjAcMRowGAYDVQQDDBFwZXJpc2NvcGUtdGVzdC1jYTBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABIb8tqh4QVTEzcim1kc37Cr8zrMLLBOHq49L
zebPz6OELkRVIauowxamKHGvAwB/evElNBYSVyNxZQKikTyOlUijUzBRMB0GA1Ud
DgQWBBTky4DPDIS/OiloGoeireXScw2h3zAfBgNVHSMEGDAWgBTky4DPDIS/Oilo
GoeireXScw2h3zAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQDL
DI71iMBzEmb+QQBd/1I8RrQNIUtX+vnrMmeHAgAPOwIgEKOd534CFUrpCJPlhkQi
xWNfqGzctE5XV760Q1GHhO8=
-----END CERTIFICATE-----
`;

export const VALID_AUTHENTICATION = {
  apiVersion: API_VERSION,
  kind: 'AuthenticationConfiguration',
  jwt: [
    {
      issuer: { url: 'https://issuer.example.com', audiences: ['periscope'], certificateAuthority: TEST_CA_PEM },
      claimValidationRules: [
        { claim: 'hd', requiredValue: 'example.com' },
        { expression: 'claims.exp - claims.nbf <= 86400', message: 'token lives too long' },
      ],
      claimMappings: {
        username: { claim: 'email', prefix: '' },
        groups: { claim: 'groups', prefix: 'oidc:' },
        uid: { claim: 'sub' },
        extra: [{ key: 'example.com/tenant', valueExpression: 'claims.tenant' }],
      },
      userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'username cannot use the system: prefix' }],
    },
  ],
  anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] },
};

export const VALID_AUTHORIZATION = {
  apiVersion: API_VERSION,
  kind: 'AuthorizationConfiguration',
  authorizers: [
    {
      type: 'Webhook',
      name: 'system-crd-protector',
      webhook: {
        authorizedTTL: '30s',
        unauthorizedTTL: '30s',
        timeout: '3s',
        subjectAccessReviewVersion: 'v1',
        matchConditionSubjectAccessReviewVersion: 'v1',
        failurePolicy: 'NoOpinion',
        connectionInfo: { type: 'ServiceConfig', serviceConfigFile: '/etc/periscope/authz-webhook.yaml' },
        matchConditions: [
          { expression: 'has(request.resourceAttributes)' },
          { expression: "request.resourceAttributes.namespace == 'kube-system'" },
        ],
      },
    },
    { type: 'RBAC', name: 'rbac' },
  ],
};

export const VALID_ENCRYPTION = {
  apiVersion: API_VERSION,
  kind: 'EncryptionConfiguration',
  resources: [
    {
      resources: ['secrets', 'configmaps'],
      providers: [{ aescbc: { keys: [{ name: 'key1', secret: keyOfLength(32) }] } }, { identity: {} }],
    },
    {
      resources: ['*.apps'],
      providers: [{ aesgcm: { keys: [{ name: 'gcm1', secret: keyOfLength(16) }] } }, { secretbox: { keys: [{ name: 'box1', secret: keyOfLength(32) }] } }],
    },
    {
      resources: ['*.*'],
      providers: [{ kms: { apiVersion: 'v2', name: 'vault', endpoint: 'unix:///var/run/kms.sock', timeout: '3s' } }, { identity: {} }],
    },
  ],
};

export const VALID_ADMISSION = {
  apiVersion: API_VERSION,
  kind: 'AdmissionConfiguration',
  plugins: [
    { name: 'EventRateLimit', path: '/etc/periscope/eventconfig.yaml' },
    { name: 'PodSecurity', configuration: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration' } },
  ],
};

export const VALID_TRACING = {
  apiVersion: API_VERSION,
  kind: 'TracingConfiguration',
  endpoint: 'localhost:4317',
  samplingRatePerMillion: 10000,
};
