// The single description of every configuration type: fields, their types, which are required,
// enumerations, defaults and help text. The JSON Schema (schema.ts) and the structural checks
// (structural.ts) are both derived from it, so the editor and the server never disagree.

export const CONFIG_GROUP = 'apiserver.config.service.io';
export const CONFIG_API_VERSION = `${CONFIG_GROUP}/v1` as const;
/** Upstream spelling of the group, accepted as an alias. */
export const CONFIG_GROUP_ALIAS = 'apiserver.config.k8s.io';
export const CONFIG_API_VERSION_ALIAS = `${CONFIG_GROUP_ALIAS}/v1` as const;

export type FieldType =
  | { t: 'string'; enum?: readonly string[]; format?: 'duration' }
  | { t: 'boolean' }
  | { t: 'int32'; minimum?: number; maximum?: number }
  | { t: 'object'; ref: TypeName }
  | { t: 'list'; items: FieldType; minItems?: number; maxItems?: number }
  /** An embedded object whose content the model does not describe. */
  | { t: 'unstructured' };

/** A sibling field and the values of it under which a rule applies. */
export interface FieldCondition {
  field: string;
  values: readonly string[];
}

export interface FieldModel {
  name: string;
  type: FieldType;
  description: string;
  /** Must be present (and, for strings, non-empty; for lists with minItems, long enough). */
  required?: boolean;
  /** Detail appended to "Required value"; `{path}` is replaced by the field path. */
  requiredDetail?: string;
  /** Required only while the condition holds. */
  requiredWhen?: FieldCondition;
  /** May only be set while the condition holds. */
  forbiddenUnless?: FieldCondition;
  /** This field is another spelling of the named sibling; setting both is an error. */
  aliasOf?: string;
  default?: string | number | boolean;
}

export interface TypeModel {
  name: TypeName;
  description: string;
  fields: readonly FieldModel[];
  /** Exactly one of the fields must be set (a union such as ProviderConfiguration); messages for none and several. */
  exactlyOne?: { none: string; many: string };
}

export type TypeName =
  | 'AdmissionConfiguration'
  | 'AdmissionPluginConfiguration'
  | 'AuthenticationConfiguration'
  | 'AnonymousAuthConfig'
  | 'AnonymousAuthCondition'
  | 'JWTAuthenticator'
  | 'Issuer'
  | 'ClaimValidationRule'
  | 'ClaimMappings'
  | 'PrefixedClaimOrExpression'
  | 'ClaimOrExpression'
  | 'ExtraMapping'
  | 'UserValidationRule'
  | 'AuthorizationConfiguration'
  | 'AuthorizerConfiguration'
  | 'WebhookConfiguration'
  | 'WebhookConnectionInfo'
  | 'WebhookMatchCondition'
  | 'EncryptionConfiguration'
  | 'ResourceConfiguration'
  | 'ProviderConfiguration'
  | 'AESConfiguration'
  | 'SecretboxConfiguration'
  | 'IdentityConfiguration'
  | 'Key'
  | 'KMSConfiguration'
  | 'TracingConfiguration';

export type ConfigKind =
  | 'AdmissionConfiguration'
  | 'AuthenticationConfiguration'
  | 'AuthorizationConfiguration'
  | 'EncryptionConfiguration'
  | 'TracingConfiguration';

export const CONFIG_KINDS: readonly ConfigKind[] = [
  'AdmissionConfiguration',
  'AuthenticationConfiguration',
  'AuthorizationConfiguration',
  'EncryptionConfiguration',
  'TracingConfiguration',
];

export function isConfigKind(v: unknown): v is ConfigKind {
  return typeof v === 'string' && (CONFIG_KINDS as readonly string[]).includes(v);
}

/** apiVersion spellings each kind accepts besides the canonical one; the older versions draw a warning. */
export const API_VERSION_ALIASES: Record<ConfigKind, { aliases: readonly string[]; deprecated: readonly string[] }> = {
  AdmissionConfiguration: { aliases: [CONFIG_API_VERSION_ALIAS], deprecated: ['apiserver.k8s.io/v1alpha1'] },
  AuthenticationConfiguration: {
    aliases: [CONFIG_API_VERSION_ALIAS],
    deprecated: [`${CONFIG_GROUP_ALIAS}/v1beta1`, `${CONFIG_GROUP_ALIAS}/v1alpha1`],
  },
  AuthorizationConfiguration: {
    aliases: [CONFIG_API_VERSION_ALIAS],
    deprecated: [`${CONFIG_GROUP_ALIAS}/v1beta1`, `${CONFIG_GROUP_ALIAS}/v1alpha1`],
  },
  EncryptionConfiguration: { aliases: [CONFIG_API_VERSION_ALIAS], deprecated: [] },
  TracingConfiguration: {
    aliases: [CONFIG_API_VERSION_ALIAS],
    deprecated: [`${CONFIG_GROUP_ALIAS}/v1beta1`, `${CONFIG_GROUP_ALIAS}/v1alpha1`],
  },
};

export function acceptedApiVersions(kind: ConfigKind): string[] {
  const a = API_VERSION_ALIASES[kind];
  return [CONFIG_API_VERSION, ...a.aliases, ...a.deprecated];
}

export const AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export const FAILURE_POLICIES = ['NoOpinion', 'Deny'] as const;
export const SUBJECT_ACCESS_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export const MATCH_CONDITION_SAR_VERSIONS = ['v1'] as const;
/** `KubeConfigFile` is the upstream spelling of `ServiceConfig`. */
export const CONNECTION_INFO_TYPES = ['ServiceConfig', 'InClusterConfig', 'KubeConfigFile'] as const;
export const FILE_CONNECTION_TYPES = ['ServiceConfig', 'KubeConfigFile'] as const;
export const AUDIENCE_MATCH_POLICIES = ['MatchAny'] as const;
export const EGRESS_SELECTOR_TYPES = ['controlplane', 'cluster'] as const;
export const KMS_API_VERSIONS = ['v1', 'v2'] as const;

export const MAX_JWT_AUTHENTICATORS = 64;
export const MAX_MATCH_CONDITIONS = 64;
export const MAX_WEBHOOK_TIMEOUT = '30s';
export const MAX_SAMPLING_RATE_PER_MILLION = 1_000_000;
export const DEFAULT_KMS_CACHE_SIZE = 1000;
export const DEFAULT_KMS_TIMEOUT = '3s';
export const DEFAULT_KMS_API_VERSION = 'v1';
export const DEFAULT_TRACING_ENDPOINT = 'localhost:4317';

const str = (extra: Partial<Extract<FieldType, { t: 'string' }>> = {}): FieldType => ({ t: 'string', ...extra });
const duration: FieldType = { t: 'string', format: 'duration' };
const bool: FieldType = { t: 'boolean' };
const ref = (name: TypeName): FieldType => ({ t: 'object', ref: name });
const list = (items: FieldType, extra: { minItems?: number; maxItems?: number } = {}): FieldType => ({ t: 'list', items, ...extra });

const TYPE_LIST: readonly TypeModel[] = [
  // ---- AdmissionConfiguration
  {
    name: 'AdmissionConfiguration',
    description: 'Settings for the admission control plugins.',
    fields: [
      { name: 'plugins', type: list(ref('AdmissionPluginConfiguration')), description: 'One entry per admission plugin that takes settings.' },
    ],
  },
  {
    name: 'AdmissionPluginConfiguration',
    description: 'Settings for one admission plugin.',
    fields: [
      { name: 'name', type: str(), required: true, description: 'Registered name of the admission plugin these settings are for.' },
      { name: 'path', type: str(), description: 'File holding the plugin settings; ignored when `configuration` is set.' },
      { name: 'configuration', type: { t: 'unstructured' }, description: 'Plugin settings given inline; wins over `path`.' },
    ],
  },
  // ---- AuthenticationConfiguration
  {
    name: 'AuthenticationConfiguration',
    description: 'Structured authentication: JWT authenticators and anonymous access.',
    fields: [
      {
        name: 'jwt',
        type: list(ref('JWTAuthenticator'), { maxItems: MAX_JWT_AUTHENTICATORS }),
        required: true,
        description: 'Authenticators for JWT bearer tokens, tried in list order. Each issuer URL may appear only once.',
      },
      {
        name: 'anonymous',
        type: ref('AnonymousAuthConfig'),
        description: 'Anonymous access settings. When this is set the --anonymous-auth flag must not be given.',
      },
    ],
  },
  {
    name: 'AnonymousAuthConfig',
    description: 'Whether unauthenticated requests are treated as the anonymous user, and where.',
    fields: [
      { name: 'enabled', type: bool, required: true, description: 'Turns anonymous access on or off.' },
      {
        name: 'conditions',
        type: list(ref('AnonymousAuthCondition')),
        description: 'When set, anonymous access is only granted to requests matching one of these conditions.',
      },
    ],
  },
  {
    name: 'AnonymousAuthCondition',
    description: 'A request shape for which anonymous access is allowed.',
    fields: [{ name: 'path', type: str(), required: true, description: 'Request path (for example `/livez`) open to anonymous requests.' }],
  },
  {
    name: 'JWTAuthenticator',
    description: 'Validates JWTs from one issuer and maps their claims to a user.',
    fields: [
      { name: 'issuer', type: ref('Issuer'), required: true, description: 'Where the tokens come from and who they are meant for.' },
      {
        name: 'claimValidationRules',
        type: list(ref('ClaimValidationRule')),
        description: 'Checks run against the token claims; all must pass.',
      },
      { name: 'claimMappings', type: ref('ClaimMappings'), required: true, description: 'How claims become the user name, groups, uid and extra.' },
      {
        name: 'userValidationRules',
        type: list(ref('UserValidationRule')),
        description: 'Checks run against the mapped user before authentication succeeds; all must be true.',
      },
    ],
  },
  {
    name: 'Issuer',
    description: 'OIDC provider connection settings.',
    fields: [
      {
        name: 'url',
        type: str(),
        required: true,
        description: 'Issuer URL, `https://host` or `https://host/path`. Must equal the `iss` claim; unique across authenticators.',
      },
      {
        name: 'discoveryURL',
        type: str(),
        description: 'Exact URL of the discovery document when it is not under `url`. Must differ from `url`; unique across authenticators.',
      },
      { name: 'certificateAuthority', type: str(), description: 'PEM CA bundle trusted when fetching discovery and keys.' },
      {
        name: 'audiences',
        type: list(str(), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one {path} is required',
        description: 'Accepted audiences; the `aud` claim must contain at least one.',
      },
      {
        name: 'audienceMatchPolicy',
        type: str({ enum: AUDIENCE_MATCH_POLICIES }),
        description: 'How `audiences` is matched against `aud`. Required (MatchAny) when several audiences are listed.',
      },
      {
        name: 'egressSelectorType',
        type: str({ enum: EGRESS_SELECTOR_TYPES }),
        description: 'Egress used for all traffic to this issuer; unset uses no custom dialer.',
      },
    ],
  },
  {
    name: 'ClaimValidationRule',
    description: 'Either a claim/requiredValue pair or a CEL expression/message pair.',
    fields: [
      { name: 'claim', type: str(), description: 'Claim that must be present (string claims only). Excludes `expression` and `message`.' },
      { name: 'requiredValue', type: str(), description: 'Value the claim must hold; unset means the empty string.' },
      { name: 'expression', type: str(), description: 'CEL over `claims` that must evaluate to true. Excludes `claim` and `requiredValue`.' },
      { name: 'message', type: str(), description: 'Error text used when `expression` evaluates to false.' },
    ],
  },
  {
    name: 'ClaimMappings',
    description: 'How token claims map to user attributes.',
    fields: [
      {
        name: 'username',
        type: ref('PrefixedClaimOrExpression'),
        required: true,
        description: 'User name: a single string claim (with an explicit prefix) or a CEL expression producing a string.',
      },
      {
        name: 'groups',
        type: ref('PrefixedClaimOrExpression'),
        description: 'Groups: a string or string-list claim (with an explicit prefix) or a CEL expression producing either.',
      },
      { name: 'uid', type: ref('ClaimOrExpression'), description: 'User uid: a single string claim or a CEL expression producing a string.' },
      { name: 'extra', type: list(ref('ExtraMapping')), description: 'Additional user attributes computed with CEL.' },
    ],
  },
  {
    name: 'PrefixedClaimOrExpression',
    description: 'A claim plus prefix, or a CEL expression.',
    fields: [
      { name: 'claim', type: str(), description: 'Claim to read. Requires `prefix`; excludes `expression`.' },
      { name: 'prefix', type: str(), description: 'Text put in front of the claim value; must be set with `claim`, may be empty.' },
      { name: 'expression', type: str(), description: 'CEL over `claims` producing the value. Excludes `claim` and `prefix`.' },
    ],
  },
  {
    name: 'ClaimOrExpression',
    description: 'Exactly one of a claim or a CEL expression.',
    fields: [
      { name: 'claim', type: str(), description: 'Claim to read.' },
      { name: 'expression', type: str(), description: 'CEL over `claims` producing the value.' },
    ],
  },
  {
    name: 'ExtraMapping',
    description: 'One extra attribute of the user.',
    fields: [
      { name: 'key', type: str(), required: true, description: 'Lowercase domain-prefixed path such as `example.org/team`; unique.' },
      {
        name: 'valueExpression',
        type: str(),
        required: true,
        description: 'CEL over `claims` producing a string or list of strings; empty results drop the attribute.',
      },
    ],
  },
  {
    name: 'UserValidationRule',
    description: 'A CEL check on the mapped user.',
    fields: [
      { name: 'expression', type: str(), required: true, description: 'CEL over `user` that must evaluate to true.' },
      { name: 'message', type: str(), description: 'Error text used when the expression evaluates to false.' },
    ],
  },
  // ---- AuthorizationConfiguration
  {
    name: 'AuthorizationConfiguration',
    description: 'The ordered chain of authorizers.',
    fields: [
      {
        name: 'authorizers',
        type: list(ref('AuthorizerConfiguration'), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one authorization mode must be defined',
        description: 'Authorizers consulted in order, like --authorization-modes.',
      },
    ],
  },
  {
    name: 'AuthorizerConfiguration',
    description: 'One authorizer in the chain.',
    fields: [
      { name: 'type', type: str({ enum: AUTHORIZER_TYPES }), required: true, description: 'Kind of authorizer.' },
      { name: 'name', type: str(), required: true, description: 'DNS-1123 label naming this authorizer (used in metrics); unique.' },
      {
        name: 'webhook',
        type: ref('WebhookConfiguration'),
        requiredWhen: { field: 'type', values: ['Webhook'] },
        forbiddenUnless: { field: 'type', values: ['Webhook'] },
        description: 'Webhook settings; set exactly when `type` is Webhook.',
      },
    ],
  },
  {
    name: 'WebhookConfiguration',
    description: 'How to call an authorization webhook and cache its answers.',
    fields: [
      { name: 'authorizedTTL', type: duration, required: true, description: 'How long an "authorized" answer is cached.' },
      {
        name: 'cacheAuthorizedRequests',
        type: bool,
        default: true,
        description: 'Cache "authorized" answers for `authorizedTTL`.',
      },
      { name: 'unauthorizedTTL', type: duration, required: true, description: 'How long an "unauthorized" answer is cached.' },
      {
        name: 'cacheUnauthorizedRequests',
        type: bool,
        default: true,
        description: 'Cache "unauthorized" answers for `unauthorizedTTL`.',
      },
      { name: 'timeout', type: duration, required: true, description: 'Webhook call timeout; at most 30s.' },
      {
        name: 'subjectAccessReviewVersion',
        type: str({ enum: SUBJECT_ACCESS_REVIEW_VERSIONS }),
        required: true,
        description: 'SubjectAccessReview version sent to and expected back from the webhook.',
      },
      {
        name: 'matchConditionSubjectAccessReviewVersion',
        type: str({ enum: MATCH_CONDITION_SAR_VERSIONS }),
        required: true,
        description: 'SubjectAccessReview version the match conditions see.',
      },
      {
        name: 'failurePolicy',
        type: str({ enum: FAILURE_POLICIES }),
        required: true,
        description: 'Outcome when the webhook fails, answers malformed data, or a match condition errors.',
      },
      { name: 'connectionInfo', type: ref('WebhookConnectionInfo'), required: true, description: 'How to reach the webhook.' },
      {
        name: 'matchConditions',
        type: list(ref('WebhookMatchCondition'), { maxItems: MAX_MATCH_CONDITIONS }),
        required: true,
        description: 'CEL conditions that must all hold for a request to be sent; an empty list sends every request. At most 64.',
      },
    ],
  },
  {
    name: 'WebhookConnectionInfo',
    description: 'Where the webhook lives.',
    fields: [
      {
        name: 'type',
        type: str({ enum: CONNECTION_INFO_TYPES }),
        required: true,
        description: 'ServiceConfig reads `serviceConfigFile`; InClusterConfig uses the in-cluster settings. KubeConfigFile is the upstream spelling of ServiceConfig.',
      },
      {
        name: 'serviceConfigFile',
        type: str(),
        requiredWhen: { field: 'type', values: FILE_CONNECTION_TYPES },
        forbiddenUnless: { field: 'type', values: FILE_CONNECTION_TYPES },
        description: 'Absolute path of the connection file; required when `type` is ServiceConfig.',
      },
      {
        name: 'kubeConfigFile',
        type: str(),
        aliasOf: 'serviceConfigFile',
        forbiddenUnless: { field: 'type', values: FILE_CONNECTION_TYPES },
        description: 'Upstream spelling of `serviceConfigFile`.',
      },
    ],
  },
  {
    name: 'WebhookMatchCondition',
    description: 'A CEL condition over the SubjectAccessReview `request`.',
    fields: [{ name: 'expression', type: str(), required: true, description: 'CEL over `request` (SubjectAccessReview v1 spec) producing a bool.' }],
  },
  // ---- EncryptionConfiguration
  {
    name: 'EncryptionConfiguration',
    description: 'Encryption at rest: which providers protect which resources.',
    fields: [
      {
        name: 'resources',
        type: list(ref('ResourceConfiguration'), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one {path} is required',
        description: 'Resource lists with their providers; earlier entries win.',
      },
    ],
  },
  {
    name: 'ResourceConfiguration',
    description: 'Resources sharing one ordered list of providers.',
    fields: [
      {
        name: 'resources',
        type: list(str(), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one {path} is required',
        description: 'Resources such as `secrets`, `deployments.apps`, `*.apps` (a whole group), `*.` (core group) or `*.*` (everything).',
      },
      {
        name: 'providers',
        type: list(ref('ProviderConfiguration'), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one {path} is required',
        description: 'Providers in order: the first writes, all are tried when reading.',
      },
    ],
  },
  {
    name: 'ProviderConfiguration',
    description: 'Exactly one storage transformer.',
    exactlyOne: {
      none: 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
      many: 'more than one provider specified in a single element, should split into different list elements',
    },
    fields: [
      { name: 'aesgcm', type: ref('AESConfiguration'), description: 'AES-GCM; keys of 16, 24 or 32 bytes.' },
      { name: 'aescbc', type: ref('AESConfiguration'), description: 'AES-CBC; keys of 32 bytes.' },
      { name: 'secretbox', type: ref('SecretboxConfiguration'), description: 'XSalsa20-Poly1305; keys of 32 bytes.' },
      { name: 'identity', type: ref('IdentityConfiguration'), description: 'No encryption: data is stored as is.' },
      { name: 'kms', type: ref('KMSConfiguration'), description: 'Envelope encryption through a KMS plugin.' },
    ],
  },
  {
    name: 'AESConfiguration',
    description: 'Keys of an AES provider.',
    fields: [
      {
        name: 'keys',
        type: list(ref('Key'), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one keys is required',
        description: 'Keys in order: the first encrypts, all decrypt.',
      },
    ],
  },
  {
    name: 'SecretboxConfiguration',
    description: 'Keys of the secretbox provider.',
    fields: [
      {
        name: 'keys',
        type: list(ref('Key'), { minItems: 1 }),
        required: true,
        requiredDetail: 'at least one keys is required',
        description: 'Keys in order: the first encrypts, all decrypt.',
      },
    ],
  },
  { name: 'IdentityConfiguration', description: 'The identity provider takes no settings.', fields: [] },
  {
    name: 'Key',
    description: 'A named encryption key.',
    fields: [
      { name: 'name', type: str(), required: true, requiredDetail: 'name is a mandatory field for a key', description: 'Key name, stored as a prefix of the data.' },
      {
        name: 'secret',
        type: str(),
        required: true,
        requiredDetail: 'secret is a mandatory field for a key',
        description: 'The key bytes, base64 encoded.',
      },
    ],
  },
  {
    name: 'KMSConfiguration',
    description: 'A KMS plugin reached over gRPC.',
    fields: [
      {
        name: 'apiVersion',
        type: str({ enum: KMS_API_VERSIONS }),
        default: DEFAULT_KMS_API_VERSION,
        description: 'KMS plugin protocol version, v1 (deprecated) or v2.',
      },
      { name: 'name', type: str(), required: true, requiredDetail: 'name is a mandatory field for a provider', description: 'Plugin name; unique among KMS providers.' },
      {
        name: 'cachesize',
        type: { t: 'int32' },
        description: 'v1 only: how many data keys are cached in memory (default 1000); negative turns caching off.',
      },
      {
        name: 'endpoint',
        type: str(),
        required: true,
        requiredDetail: 'endpoint is a mandatory field for a kms',
        description: 'gRPC listen address of the plugin as a unix socket URL, such as `unix:///var/run/kms.sock`.',
      },
      { name: 'timeout', type: duration, default: DEFAULT_KMS_TIMEOUT, description: 'Timeout of each call to the plugin.' },
    ],
  },
  // ---- TracingConfiguration
  {
    name: 'TracingConfiguration',
    description: 'OpenTelemetry tracing of API requests.',
    fields: [
      {
        name: 'endpoint',
        type: str(),
        description: 'Collector address as host:port (plain gRPC, no TLS). Unset uses localhost:4317.',
      },
      {
        name: 'samplingRatePerMillion',
        type: { t: 'int32', minimum: 0, maximum: MAX_SAMPLING_RATE_PER_MILLION },
        description: 'Spans sampled per million. Unset follows the parent span and otherwise never samples.',
      },
    ],
  },
];

export const TYPE_MODELS: Readonly<Record<TypeName, TypeModel>> = Object.fromEntries(TYPE_LIST.map((t) => [t.name, t])) as Record<
  TypeName,
  TypeModel
>;

export function fieldModel(type: TypeName, name: string): FieldModel | undefined {
  return TYPE_MODELS[type].fields.find((f) => f.name === name);
}
