import { describe, expect, test } from 'vitest';
import { parseDuration } from './formats.js';
import { CONFIG_KINDS, TYPE_MODELS } from './model.js';
import { CONFIG_JSON_SCHEMAS, configJsonSchema, type JsonSchema } from './schema.js';
import { edit, VALID_ADMISSION, VALID_AUTHENTICATION, VALID_AUTHORIZATION, VALID_ENCRYPTION, VALID_TRACING } from './test-support.js';

/** A small evaluator for the draft-07 keywords the generator emits, to check schema and validator agree. */
function conforms(schema: JsonSchema, value: unknown, root: JsonSchema): boolean {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/definitions/', '');
    return conforms(root.definitions![name]!, value, root);
  }
  const isObj = typeof value === 'object' && value !== null && !Array.isArray(value);
  const obj = value as Record<string, unknown>;
  switch (schema.type) {
    case 'object':
      if (!isObj) return false;
      break;
    case 'array':
      if (!Array.isArray(value)) return false;
      break;
    case 'string':
      if (typeof value !== 'string') return false;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return false;
      break;
    case 'integer':
      if (!Number.isInteger(value)) return false;
      break;
  }
  if (schema.enum && !schema.enum.includes(value as string)) return false;
  if (schema.const !== undefined && value !== schema.const) return false;
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) return false;
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return false;
    if (schema.maximum !== undefined && value > schema.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return false;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
    if (schema.items && !value.every((v) => conforms(schema.items!, v, root))) return false;
  }
  if (isObj) {
    if (schema.required && !schema.required.every((k) => k in obj)) return false;
    const keys = Object.keys(obj);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) return false;
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) return false;
    for (const k of keys) {
      const prop = schema.properties?.[k];
      if (prop) {
        if (!conforms(prop, obj[k], root)) return false;
      } else if (schema.additionalProperties === false) return false;
    }
  }
  if (schema.allOf && !schema.allOf.every((s) => conforms(s, value, root))) return false;
  if (schema.anyOf && !schema.anyOf.some((s) => conforms(s, value, root))) return false;
  if (schema.not && conforms(schema.not, value, root)) return false;
  if (schema.if) {
    const branch = conforms(schema.if, value, root) ? schema.then : schema.else;
    if (branch && !conforms(branch, value, root)) return false;
  }
  return true;
}

const check = (doc: { kind: string }) => {
  const schema = CONFIG_JSON_SCHEMAS[doc.kind as keyof typeof CONFIG_JSON_SCHEMAS];
  return conforms(schema, doc, schema);
};

describe('JSON Schema', () => {
  test('every kind has a draft-07 schema with apiVersion and kind required', () => {
    for (const kind of CONFIG_KINDS) {
      const s = configJsonSchema(kind);
      expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(s.title).toBe(kind);
      expect(s.required?.slice(0, 2)).toEqual(['apiVersion', 'kind']);
      expect(s.properties?.kind?.const).toBe(kind);
      expect(s.properties?.apiVersion?.enum).toContain('apiserver.config.service.io/v1');
      expect(s.properties?.apiVersion?.enum).toContain('apiserver.config.k8s.io/v1');
    }
  });

  test('required fields and descriptions come from the model', () => {
    const s = configJsonSchema('AuthenticationConfiguration');
    const issuer = s.definitions!.Issuer!;
    expect(issuer.required).toEqual(TYPE_MODELS.Issuer.fields.filter((f) => f.required).map((f) => f.name));
    expect(issuer.properties!.audiences).toMatchObject({ type: 'array', minItems: 1, items: { type: 'string' } });
    expect(issuer.properties!.audienceMatchPolicy!.enum).toEqual(['MatchAny']);
    expect(issuer.properties!.url!.description).toBe(TYPE_MODELS.Issuer.fields[0]!.description);
    expect(Object.keys(s.definitions!).sort()).toEqual(
      ['AnonymousAuthCondition', 'AnonymousAuthConfig', 'ClaimMappings', 'ClaimOrExpression', 'ClaimValidationRule', 'ExtraMapping', 'Issuer', 'JWTAuthenticator', 'PrefixedClaimOrExpression', 'UserValidationRule'].sort(),
    );
  });

  test('defaults are published', () => {
    const authz = configJsonSchema('AuthorizationConfiguration').definitions!.WebhookConfiguration!;
    expect(authz.properties!.cacheAuthorizedRequests!.default).toBe(true);
    const kms = configJsonSchema('EncryptionConfiguration').definitions!.KMSConfiguration!;
    expect(kms.properties!.timeout!.default).toBe('3s');
  });

  test('the reference documents conform', () => {
    for (const doc of [VALID_ADMISSION, VALID_AUTHENTICATION, VALID_AUTHORIZATION, VALID_ENCRYPTION, VALID_TRACING]) expect(check(doc)).toBe(true);
  });

  test('structural mistakes the validator reports are rejected by the schema too', () => {
    expect(check(edit(VALID_AUTHENTICATION, (d) => delete d.jwt))).toBe(false);
    expect(check(edit(VALID_AUTHENTICATION, (d) => (d.jwt[0].issuer.audiences = [])))).toBe(false);
    expect(check(edit(VALID_AUTHENTICATION, (d) => (d.jwt[0].issuer.extra = 1)))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => delete d.authorizers[0].webhook))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[1].webhook = d.authorizers[0].webhook)))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.timeout = '3 seconds')))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.failurePolicy = 'Allow')))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => delete d.authorizers[0].webhook.connectionInfo.serviceConfigFile))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.connectionInfo.type = 'InClusterConfig')))).toBe(false);
    expect(check(edit(VALID_AUTHORIZATION, (d) => (d.authorizers[0].webhook.connectionInfo = { type: 'KubeConfigFile', kubeConfigFile: '/a' })))).toBe(true);
    expect(check(edit(VALID_ENCRYPTION, (d) => (d.resources[0].providers[1] = {})))).toBe(false);
    expect(check(edit(VALID_ENCRYPTION, (d) => (d.resources[0].providers[0].identity = {})))).toBe(false);
    expect(check(edit(VALID_TRACING, (d) => (d.samplingRatePerMillion = 1_000_001)))).toBe(false);
    expect(check(edit(VALID_ADMISSION, (d) => (d.plugins[1].configuration = 'x')))).toBe(false);
  });

  test('the duration pattern accepts exactly what the validator parses', () => {
    const pattern = new RegExp(configJsonSchema('AuthorizationConfiguration').definitions!.WebhookConfiguration!.properties!.timeout!.pattern!, 'u');
    for (const s of ['5s', '1m30s', '300ms', '0', '-1h', '2µs', '1.5h', '5', 's', '1 s', '1d', '']) {
      expect(pattern.test(s)).toBe(parseDuration(s) !== undefined);
    }
  });
});
