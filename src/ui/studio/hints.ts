// What the model does not say but a form needs: which strings are CEL (and for what), which are
// keys, how claim-or-expression unions switch, placeholders, and sensible new list items.
import { TYPE_MODELS, type CelPurpose, type FieldModel, type FieldType, type TypeName } from '../../config/index.js';
import { newKey, providerOfKeyPath } from './keys.js';
import type { Path } from './paths.js';

/** The CEL purpose of a string field, from where it sits. */
export function celPurposeAt(path: Path): CelPurpose | undefined {
  const last = path[path.length - 1];
  const names = path.filter((s): s is string => typeof s === 'string');
  const parent = names[names.length - 2];
  if (last === 'valueExpression') return 'claimMappingStringOrList';
  if (last !== 'expression') return undefined;
  switch (parent) {
    case 'claimValidationRules':
      return 'claimValidation';
    case 'userValidationRules':
      return 'userValidation';
    case 'matchConditions':
      return 'matchCondition';
    case 'username':
    case 'uid':
      return 'claimMappingString';
    case 'groups':
      return 'claimMappingStringOrList';
    default:
      return undefined;
  }
}

export const CEL_VARIABLE_HELP: Record<CelPurpose, string> = {
  claimValidation: 'CEL over claims (a map of the token claims); must produce a bool',
  claimMappingString: 'CEL over claims; must produce a string',
  claimMappingStringOrList: 'CEL over claims; must produce a string or a list of strings',
  userValidation: 'CEL over user (username, uid, groups, extra); must produce a bool',
  matchCondition: 'CEL over request (the SubjectAccessReview spec, v1); must produce a bool',
};

export function isKeySecret(path: Path): boolean {
  return path[path.length - 1] === 'secret' && providerOfKeyPath(path) !== undefined;
}

/** Union types edited as "claim" or "CEL expression"; switching clears the other side. */
export interface Variant {
  label: string;
  fields: string[];
  /** Values set when switching to this variant. */
  init: Record<string, unknown>;
}

export const VARIANTS: Partial<Record<TypeName, Variant[]>> = {
  ClaimValidationRule: [
    { label: 'Claim', fields: ['claim', 'requiredValue'], init: { claim: '', requiredValue: '' } },
    { label: 'CEL expression', fields: ['expression', 'message'], init: { expression: '' } },
  ],
  PrefixedClaimOrExpression: [
    { label: 'Claim', fields: ['claim', 'prefix'], init: { claim: '', prefix: '' } },
    { label: 'CEL expression', fields: ['expression'], init: { expression: '' } },
  ],
  ClaimOrExpression: [
    { label: 'Claim', fields: ['claim'], init: { claim: '' } },
    { label: 'CEL expression', fields: ['expression'], init: { expression: '' } },
  ],
};

/** Strings whose empty value means something (kept as `""` instead of removed when cleared). */
export const KEEP_EMPTY = new Set(['prefix', 'requiredValue']);

export const PLACEHOLDERS: Record<string, string> = {
  url: 'https://issuer.example.com',
  discoveryURL: 'https://discovery.example.com/.well-known/openid-configuration',
  claim: 'sub',
  prefix: '(empty: no prefix)',
  requiredValue: 'value the claim must hold',
  message: 'shown when the expression is false',
  key: 'example.com/team',
  path: '/healthz',
  name: 'name',
  serviceConfigFile: '/etc/periscope/webhook.yaml',
  endpoint: 'localhost:4317',
  certificateAuthority: '-----BEGIN CERTIFICATE-----',
};

const CEL_EXAMPLES: Record<CelPurpose, string> = {
  claimValidation: "claims.hd == 'example.com'",
  claimMappingString: "'oidc:' + claims.sub",
  claimMappingStringOrList: 'claims.groups',
  userValidation: "!user.username.startsWith('system:')",
  matchCondition: 'has(request.resourceAttributes)',
};

export function placeholderFor(field: FieldModel, path: Path): string | undefined {
  const purpose = celPurposeAt(path);
  if (purpose) return CEL_EXAMPLES[purpose];
  if (field.name === 'endpoint' && path[0] === 'resources') return 'unix:///var/run/kms-plugin.sock';
  if (field.name === 'path' && path[0] === 'plugins') return '/etc/periscope/admission/plugin.yaml';
  if (field.name === 'resources') return 'secrets, *.apps, *.*';
  return PLACEHOLDERS[field.name];
}

export const DURATION_SUGGESTIONS = ['3s', '10s', '30s', '1m', '5m', '10m', '1h'];

const WEBHOOK_SKELETON = {
  timeout: '3s',
  authorizedTTL: '5m',
  unauthorizedTTL: '30s',
  subjectAccessReviewVersion: 'v1',
  matchConditionSubjectAccessReviewVersion: 'v1',
  failurePolicy: 'NoOpinion',
  connectionInfo: { type: 'ServiceConfig', serviceConfigFile: '/etc/periscope/authz-webhook.yaml' },
  matchConditions: [],
};

/** A starting value for a new object of a type at a path (a new list item, an added section). */
export function skeleton(type: TypeName, path: Path, siblings: unknown[] = []): unknown {
  const n = siblings.length + 1;
  switch (type) {
    case 'AdmissionPluginConfiguration':
      return { name: '' };
    case 'JWTAuthenticator':
      return { issuer: { url: '', audiences: [''] }, claimMappings: { username: { claim: 'sub', prefix: '' } } };
    case 'AnonymousAuthConfig':
      return { enabled: true };
    case 'AnonymousAuthCondition':
      return { path: '' };
    case 'ClaimValidationRule':
      return { claim: '', requiredValue: '' };
    case 'PrefixedClaimOrExpression':
      return { claim: path[path.length - 1] === 'groups' ? 'groups' : 'sub', prefix: '' };
    case 'ClaimOrExpression':
      return { claim: 'sub' };
    case 'ExtraMapping':
      return { key: '', valueExpression: '' };
    case 'UserValidationRule':
      return { expression: '' };
    case 'AuthorizerConfiguration':
      return { type: 'Webhook', name: `webhook-${n}`, webhook: structuredClone(WEBHOOK_SKELETON) };
    case 'WebhookConfiguration':
      return structuredClone(WEBHOOK_SKELETON);
    case 'WebhookMatchCondition':
      return { expression: '' };
    case 'ResourceConfiguration':
      return { resources: [''], providers: [{ aescbc: { keys: [newKey('aescbc', 'key1')] } }] };
    case 'ProviderConfiguration':
      return { identity: {} };
    case 'AESConfiguration':
    case 'SecretboxConfiguration':
      return { keys: [newKey(providerOfKeyPath([...path, 'keys']), 'key1')] };
    case 'IdentityConfiguration':
      return {};
    case 'Key':
      return newKey(providerOfKeyPath(path), `key${n}`);
    case 'KMSConfiguration':
      return { apiVersion: 'v2', name: 'kms-plugin', endpoint: 'unix:///var/run/kms-plugin.sock' };
    default:
      return genericSkeleton(type);
  }
}

function valueFor(t: FieldType): unknown {
  switch (t.t) {
    case 'string':
      return t.enum?.[0] ?? '';
    case 'boolean':
      return false;
    case 'int32':
      return t.minimum ?? 0;
    case 'list':
      return [];
    case 'object':
      return genericSkeleton(t.ref);
    case 'unstructured':
      return {};
  }
}

function genericSkeleton(type: TypeName): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of TYPE_MODELS[type].fields) if (f.required) out[f.name] = valueFor(f.type);
  return out;
}

/** A short label for a list item card. */
export function itemSummary(type: TypeName, value: unknown): string {
  const v = (value ?? {}) as Record<string, unknown>;
  const s = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined);
  switch (type) {
    case 'JWTAuthenticator':
      return s((v.issuer as Record<string, unknown> | undefined)?.url) ?? 'new authenticator';
    case 'AuthorizerConfiguration':
      return [s(v.type), s(v.name)].filter(Boolean).join(' · ') || 'authorizer';
    case 'ResourceConfiguration': {
      const r = Array.isArray(v.resources) ? v.resources.filter((x) => typeof x === 'string' && x) : [];
      return r.length > 0 ? r.join(', ') : 'resources';
    }
    case 'ProviderConfiguration':
      return Object.keys(v)[0] ?? 'provider';
    case 'AdmissionPluginConfiguration':
      return s(v.name) ?? 'plugin';
    case 'Key':
      return s(v.name) ?? 'key';
    case 'ClaimValidationRule':
      return s(v.expression) ?? (s(v.claim) ? `${v.claim} = ${JSON.stringify(v.requiredValue ?? '')}` : 'rule');
    case 'ExtraMapping':
      return s(v.key) ?? 'extra';
    default:
      return s(v.expression) ?? s(v.path) ?? s(v.name) ?? '';
  }
}
