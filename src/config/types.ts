// TypeScript shapes of the five configuration kinds (group/version apiserver.config.service.io/v1),
// field for field as model.ts describes them. They describe a document after applyConfigDefaults,
// which also rewrites upstream spellings (KubeConfigFile, kubeConfigFile, apiserver.config.k8s.io) to
// the canonical ones.

import type {
  AUDIENCE_MATCH_POLICIES,
  AUTHORIZER_TYPES,
  EGRESS_SELECTOR_TYPES,
  FAILURE_POLICIES,
  KMS_API_VERSIONS,
  MATCH_CONDITION_SAR_VERSIONS,
  SUBJECT_ACCESS_REVIEW_VERSIONS,
} from './model.js';

export {
  CONFIG_API_VERSION,
  CONFIG_API_VERSION_ALIAS,
  DEFAULT_KMS_API_VERSION,
  DEFAULT_KMS_CACHE_SIZE,
  DEFAULT_KMS_TIMEOUT,
  DEFAULT_TRACING_ENDPOINT,
  MAX_JWT_AUTHENTICATORS,
  MAX_MATCH_CONDITIONS,
  MAX_SAMPLING_RATE_PER_MILLION,
  MAX_WEBHOOK_TIMEOUT,
  type ConfigKind,
} from './model.js';

/** A Go duration string such as `5s`, `1m30s` or `300ms`. */
export type Duration = string;

interface TypeMeta<K extends string> {
  /** `apiserver.config.service.io/v1` (the upstream `apiserver.config.k8s.io/v1` is accepted on input). */
  apiVersion: string;
  kind: K;
}

// ---- AdmissionConfiguration

export interface AdmissionConfiguration extends TypeMeta<'AdmissionConfiguration'> {
  plugins?: AdmissionPluginConfiguration[];
}

export interface AdmissionPluginConfiguration {
  name: string;
  path?: string;
  configuration?: Record<string, unknown>;
}

// ---- AuthenticationConfiguration

export interface AuthenticationConfiguration extends TypeMeta<'AuthenticationConfiguration'> {
  jwt: JWTAuthenticator[];
  /** Optional: the spec marks it R but only constrains it "when present". */
  anonymous?: AnonymousAuthConfig;
}

export interface AnonymousAuthConfig {
  enabled: boolean;
  conditions?: AnonymousAuthCondition[];
}

export interface AnonymousAuthCondition {
  path: string;
}

export interface JWTAuthenticator {
  issuer: Issuer;
  claimValidationRules?: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules?: UserValidationRule[];
}

export type AudienceMatchPolicyType = (typeof AUDIENCE_MATCH_POLICIES)[number];
export type EgressSelectorType = (typeof EGRESS_SELECTOR_TYPES)[number];

export interface Issuer {
  url: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: AudienceMatchPolicyType;
  egressSelectorType?: EgressSelectorType;
}

export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups?: PrefixedClaimOrExpression;
  uid?: ClaimOrExpression;
  extra?: ExtraMapping[];
}

export interface PrefixedClaimOrExpression {
  claim?: string;
  prefix?: string;
  expression?: string;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface UserValidationRule {
  expression: string;
  message?: string;
}

// ---- AuthorizationConfiguration

export interface AuthorizationConfiguration extends TypeMeta<'AuthorizationConfiguration'> {
  authorizers: AuthorizerConfiguration[];
}

export type AuthorizerType = (typeof AUTHORIZER_TYPES)[number];

export type AuthorizerConfiguration =
  | { type: 'Webhook'; name: string; webhook: WebhookConfiguration }
  | { type: Exclude<AuthorizerType, 'Webhook'>; name: string; webhook?: undefined };

export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export interface WebhookConfiguration {
  authorizedTTL: Duration;
  /** Defaults to true. */
  cacheAuthorizedRequests?: boolean;
  unauthorizedTTL: Duration;
  /** Defaults to true. */
  cacheUnauthorizedRequests?: boolean;
  timeout: Duration;
  subjectAccessReviewVersion: (typeof SUBJECT_ACCESS_REVIEW_VERSIONS)[number];
  matchConditionSubjectAccessReviewVersion: (typeof MATCH_CONDITION_SAR_VERSIONS)[number];
  failurePolicy: FailurePolicy;
  connectionInfo: WebhookConnectionInfo;
  matchConditions: WebhookMatchCondition[];
}

export type WebhookConnectionInfo =
  | { type: 'ServiceConfig'; serviceConfigFile: string }
  | { type: 'InClusterConfig'; serviceConfigFile?: undefined };

export interface WebhookMatchCondition {
  expression: string;
}

// ---- EncryptionConfiguration

export interface EncryptionConfiguration extends TypeMeta<'EncryptionConfiguration'> {
  resources: ResourceConfiguration[];
}

export interface ResourceConfiguration {
  resources: string[];
  providers: ProviderConfiguration[];
}

export interface ProviderMembers {
  aesgcm: AESConfiguration;
  aescbc: AESConfiguration;
  secretbox: SecretboxConfiguration;
  identity: IdentityConfiguration;
  kms: KMSConfiguration;
}

/** Exactly one member of T set; the others typed as absent so `p.kms?.name` still reads naturally. */
type ExactlyOne<T> = { [K in keyof T]: Pick<T, K> & { [O in Exclude<keyof T, K>]?: undefined } }[keyof T];

export type ProviderConfiguration = ExactlyOne<ProviderMembers>;
export type ProviderName = keyof ProviderMembers;

export interface AESConfiguration {
  keys: Key[];
}

export interface SecretboxConfiguration {
  keys: Key[];
}

export type IdentityConfiguration = Record<string, never>;

export interface Key {
  name: string;
  /** Base64 of the key bytes. */
  secret: string;
}

export interface KMSConfiguration {
  /** Defaults to v1. */
  apiVersion?: (typeof KMS_API_VERSIONS)[number];
  name: string;
  /** v1 only; defaults to 1000; negative disables the cache. */
  cachesize?: number;
  endpoint: string;
  /** Defaults to 3s. */
  timeout?: Duration;
}

// ---- TracingConfiguration

/** The embedded tracing settings whose members are inlined into TracingConfiguration. */
export interface TracingSettings {
  endpoint?: string;
  samplingRatePerMillion?: number;
}

export interface TracingConfiguration extends TypeMeta<'TracingConfiguration'>, TracingSettings {}

export type ConfigDocument =
  | AdmissionConfiguration
  | AuthenticationConfiguration
  | AuthorizationConfiguration
  | EncryptionConfiguration
  | TracingConfiguration;

/** Key sizes in bytes each provider accepts after base64 decoding. */
export const PROVIDER_KEY_SIZES = {
  aescbc: [32],
  aesgcm: [16, 24, 32],
  secretbox: [32],
} as const satisfies Record<'aescbc' | 'aesgcm' | 'secretbox', readonly number[]>;
