// Starting points for each kind: an empty document and common setups. Texts are functions so
// encryption keys are fresh random bytes every time a template is used.
import { CONFIG_API_VERSION, type ConfigKind } from '../../config/index.js';
import { randomKeyBase64 } from './keys.js';

export interface StudioTemplate {
  id: string;
  kind: ConfigKind;
  title: string;
  description: string;
  text: () => string;
}

const head = (kind: ConfigKind) => `apiVersion: ${CONFIG_API_VERSION}\nkind: ${kind}\n`;

export const STUDIO_TEMPLATES: readonly StudioTemplate[] = [
  {
    id: 'admission-empty',
    kind: 'AdmissionConfiguration',
    title: 'Empty',
    description: 'No plugin settings.',
    text: () => `${head('AdmissionConfiguration')}plugins: []\n`,
  },
  {
    id: 'admission-pod-security',
    kind: 'AdmissionConfiguration',
    title: 'Pod Security defaults, plus a plugin configured from a file',
    description: 'PodSecurity settings inline; EventRateLimit reads its settings from a file.',
    text: () => `${head('AdmissionConfiguration')}plugins:
  # Settings given inline win over a path.
  - name: PodSecurity
    configuration:
      apiVersion: pod-security.admission.config.k8s.io/v1
      kind: PodSecurityConfiguration
      defaults:
        enforce: baseline
        enforce-version: latest
        audit: restricted
        audit-version: latest
        warn: restricted
        warn-version: latest
      exemptions:
        usernames: []
        runtimeClasses: []
        namespaces: [kube-system]
  - name: EventRateLimit
    path: /etc/periscope/admission/eventconfig.yaml
`,
  },
  {
    id: 'authentication-empty',
    kind: 'AuthenticationConfiguration',
    title: 'Empty',
    description: 'No JWT authenticators.',
    text: () => `${head('AuthenticationConfiguration')}jwt: []\n`,
  },
  {
    id: 'authentication-oidc',
    kind: 'AuthenticationConfiguration',
    title: 'OIDC issuer: email as user name, prefixed groups',
    description: 'One issuer; the email claim (email_verified checked automatically) becomes the user name, groups get an oidc: prefix.',
    text: () => `${head('AuthenticationConfiguration')}jwt:
  - issuer:
      url: https://issuer.example.com
      audiences:
        - kubernetes
    claimValidationRules:
      - expression: "claims.exp - claims.iat <= 86400"
        message: tokens may live at most one day
    claimMappings:
      # With the email claim the token's email_verified claim must be true when present.
      username:
        claim: email
        prefix: ""
      groups:
        claim: groups
        prefix: "oidc:"
      uid:
        claim: sub
    userValidationRules:
      - expression: "!user.username.startsWith('system:')"
        message: "user names may not use the system: prefix"
`,
  },
  {
    id: 'authentication-anonymous-health',
    kind: 'AuthenticationConfiguration',
    title: 'Anonymous access only for health checks',
    description: 'Unauthenticated requests are allowed for /healthz, /livez and /readyz only.',
    text: () => `${head('AuthenticationConfiguration')}jwt: []
anonymous:
  enabled: true
  conditions:
    - path: /healthz
    - path: /livez
    - path: /readyz
`,
  },
  {
    id: 'authorization-empty',
    kind: 'AuthorizationConfiguration',
    title: 'Empty',
    description: 'An empty chain (at least one authorizer is required).',
    text: () => `${head('AuthorizationConfiguration')}authorizers: []\n`,
  },
  {
    id: 'authorization-webhook',
    kind: 'AuthorizationConfiguration',
    title: 'Webhook authorizer in front of RBAC',
    description: 'A webhook sees resource requests outside kube-system from non-admins; everything else goes to Node and RBAC.',
    text: () => `${head('AuthorizationConfiguration')}authorizers:
  - type: Webhook
    name: policy-webhook
    webhook:
      timeout: 3s
      authorizedTTL: 5m
      unauthorizedTTL: 30s
      subjectAccessReviewVersion: v1
      matchConditionSubjectAccessReviewVersion: v1
      # NoOpinion lets Node and RBAC decide when the webhook is down.
      failurePolicy: NoOpinion
      connectionInfo:
        type: ServiceConfig
        serviceConfigFile: /etc/periscope/authz-webhook.yaml
      matchConditions:
        - expression: has(request.resourceAttributes)
        - expression: "request.resourceAttributes.namespace != 'kube-system'"
        - expression: "!('system:masters' in request.groups)"
  - type: Node
    name: node
  - type: RBAC
    name: rbac
`,
  },
  {
    id: 'encryption-empty',
    kind: 'EncryptionConfiguration',
    title: 'Empty',
    description: 'No resources yet (at least one entry is required).',
    text: () => `${head('EncryptionConfiguration')}resources: []\n`,
  },
  {
    id: 'encryption-aescbc-identity',
    kind: 'EncryptionConfiguration',
    title: 'Secrets with aescbc, identity kept for rotation',
    description: 'New writes are encrypted with a fresh 32-byte key; identity still reads data written before encryption was turned on.',
    text: () => `${head('EncryptionConfiguration')}resources:
  - resources:
      - secrets
      - configmaps
    providers:
      - aescbc:
          keys:
            # The first key encrypts; add the next key above it to rotate.
            - name: key1
              secret: ${randomKeyBase64(32)}
      - identity: {}
`,
  },
  {
    id: 'tracing-empty',
    kind: 'TracingConfiguration',
    title: 'Empty',
    description: 'Collector at localhost:4317; follows the parent span, otherwise never samples.',
    text: () => head('TracingConfiguration'),
  },
  {
    id: 'tracing-one-percent',
    kind: 'TracingConfiguration',
    title: 'Sample 1% of requests',
    description: 'samplingRatePerMillion 10000 sends one request in a hundred to the collector.',
    text: () => `${head('TracingConfiguration')}endpoint: localhost:4317
# 10000 per million = 1%
samplingRatePerMillion: 10000
`,
  },
];

export function templatesFor(kind: ConfigKind): StudioTemplate[] {
  return STUDIO_TEMPLATES.filter((t) => t.kind === kind);
}

/** The document a kind's page starts with when there is no draft. */
export function starterText(kind: ConfigKind): string {
  return templatesFor(kind)[0]!.text();
}

/** Download file names, as the matching server flags usually name them. */
export const EXPORT_FILE_NAMES: Record<ConfigKind, string> = {
  AdmissionConfiguration: 'admission-config.yaml',
  AuthenticationConfiguration: 'authentication-config.yaml',
  AuthorizationConfiguration: 'authorization-config.yaml',
  EncryptionConfiguration: 'encryption-config.yaml',
  TracingConfiguration: 'tracing-config.yaml',
};

export const SERVER_FLAGS: Record<ConfigKind, string> = {
  AdmissionConfiguration: '--admission-control-config-file',
  AuthenticationConfiguration: '--authentication-config',
  AuthorizationConfiguration: '--authorization-config',
  EncryptionConfiguration: '--encryption-provider-config',
  TracingConfiguration: '--tracing-config-file',
};
