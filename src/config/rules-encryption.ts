// Rules of EncryptionConfiguration that span fields: resource names, overlapping wildcards within a
// list, entries masked by earlier wildcards, key lengths per provider, and KMS settings.

import {
  ANY_GROUP_ANY_RESOURCE,
  groupResourceString,
  parseGroupResource,
  sameGroupResource,
  type GroupResource,
} from './encryption-resources.js';
import { base64DecodedLength, parseDuration } from './formats.js';
import { DEFAULT_KMS_API_VERSION } from './model.js';
import { child, index, invalid, warning, type ConfigProblem } from './problems.js';
import { asList, asObject, asString, isSet } from './structural.js';
import { PROVIDER_KEY_SIZES } from './types.js';

const OVERLAP_ERR = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";
const DUPLICATE_RESOURCE_ERR = 'the same resource cannot be specified multiple times';
const NON_REST_RESOURCES = new Set(['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations']);

export function encryptionRules(doc: Record<string, unknown>, out: ConfigProblem[]): void {
  const kmsNames = new Set<string>();
  // Everything configured by earlier entries, with where it was configured, to find masked names.
  const earlier = new Map<string, string>();
  asList(doc.resources).forEach((item, i) => {
    const entry = asObject(item);
    if (!entry) return;
    const path = index('resources', i);
    const resourcesPath = child(path, 'resources');
    const names = asList(entry.resources).filter((r): r is string => typeof r === 'string');
    if (names.length === asList(entry.resources).length) overlapRule(names, resourcesPath, out);
    const configuredHere = new Map<string, string>();
    asList(entry.resources).forEach((name, j) => {
      if (typeof name !== 'string' || name === '') return;
      const p = index(resourcesPath, j);
      if (!resourceNameRule(name, p, out)) return;
      maskRule(name, p, earlier, out);
      const key = groupResourceString(parseGroupResource(name));
      if (!configuredHere.has(key)) configuredHere.set(key, resourcesPath);
    });
    for (const [key, where] of configuredHere) if (!earlier.has(key)) earlier.set(key, where);

    asList(entry.providers).forEach((p, j) => {
      const provider = asObject(p);
      if (provider) providerRules(provider, index(child(path, 'providers'), j), kmsNames, out);
    });
  });
}

function overlapRule(resources: string[], path: string, out: ConfigProblem[]): void {
  if (resources.length < 2) return;
  const parsed = resources.map(parseGroupResource);
  let hasDuplicate = false;
  let hasOverlap = false;
  parsed.forEach((r1, i) =>
    parsed.forEach((r2, j) => {
      if (i === j) return;
      if (sameGroupResource(r1, r2)) {
        hasDuplicate = true;
        return;
      }
      if (sameGroupResource(r1, ANY_GROUP_ANY_RESOURCE)) hasOverlap = true;
      else if (r1.group === r2.group && (r1.resource === '*' || r2.resource === '*')) hasOverlap = true;
    }),
  );
  if (hasDuplicate) out.push(invalid(path, resources, DUPLICATE_RESOURCE_ERR));
  if (hasOverlap) out.push(invalid(path, resources, OVERLAP_ERR));
}

/** Checks one name; false when it is malformed so later rules skip it. */
function resourceNameRule(name: string, path: string, out: ConfigProblem[]): boolean {
  const fail = (detail: string) => {
    out.push(invalid(path, name, detail));
    return false;
  };
  if (name !== name.toLowerCase()) return fail('resource name should not contain capital letters');
  if (name === '*') return fail("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
  if (NON_REST_RESOURCES.has(name)) return fail('resources which do not have REST API/s cannot be encrypted');
  const gr = parseGroupResource(name);
  if (gr.group === 'events.k8s.io' || gr.group === 'events.service.io') {
    return fail(`'*.${gr.group}' objects are stored using the 'events' API group in storage. Use 'events' instead in the config file`);
  }
  if (gr.group === 'extensions') return fail("'extensions' group has been removed and cannot be used for encryption");
  if (gr.group === '*' && gr.resource !== '*') return fail('encrypting the same resource across groups is not supported');
  if (gr.resource === '') return fail('must name a resource, such as "secrets" or "*.apps"');
  return true;
}

function maskRule(name: string, path: string, earlier: Map<string, string>, out: ConfigProblem[]): void {
  const gr = parseGroupResource(name);
  const shown = groupResourceString(gr);
  const maskers: GroupResource[] = [{ group: gr.group, resource: '*' }, ANY_GROUP_ANY_RESOURCE];
  for (const m of maskers) {
    if (earlier.has(groupResourceString(m))) {
      out.push(invalid(path, name, `resource "${shown}" is masked by earlier rule "${groupResourceString(m)}"`));
      return;
    }
  }
  const where = earlier.get(shown);
  if (where) {
    out.push(warning(path, `resource "${shown}" is also listed in ${where}, which takes precedence for writes; this entry only adds providers tried on reads`));
  }
}

function providerRules(p: Record<string, unknown>, path: string, kmsNames: Set<string>, out: ConfigProblem[]): void {
  for (const member of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const cfg = asObject(p[member]);
    if (cfg) keyRules(cfg.keys, child(path, `${member}.keys`), PROVIDER_KEY_SIZES[member], out);
  }
  const kms = asObject(p.kms);
  if (kms) kmsRules(kms, child(path, 'kms'), kmsNames, out);
}

function keyRules(keys: unknown, path: string, sizes: readonly number[], out: ConfigProblem[]): void {
  const names = new Set<string>();
  asList(keys).forEach((item, i) => {
    const key = asObject(item);
    if (!key) return;
    const p = index(path, i);
    const name = asString(key.name);
    if (name) {
      if (names.has(name)) out.push(warning(child(p, 'name'), `key name "${name}" is used more than once in this provider; only the first such key can decrypt`));
      names.add(name);
    }
    const secret = asString(key.secret);
    if (!secret) return;
    const length = base64DecodedLength(secret);
    if (length === undefined) out.push(invalid(child(p, 'secret'), 'REDACTED', 'secrets must be base64 encoded'));
    else if (!sizes.includes(length)) {
      out.push(invalid(child(p, 'secret'), 'REDACTED', `secret is not of the expected length, got ${length}, expected one of [${sizes.join(' ')}]`));
    }
  });
}

function kmsRules(kms: Record<string, unknown>, path: string, kmsNames: Set<string>, out: ConfigProblem[]): void {
  const version = asString(kms.apiVersion) || DEFAULT_KMS_API_VERSION;
  if (version === 'v1') out.push(warning(child(path, 'apiVersion'), 'KMS v1 is deprecated; use apiVersion v2'));

  const name = asString(kms.name);
  if (name) {
    if (version !== 'v1' && name.includes(':')) {
      out.push(invalid(child(path, 'name'), name, `invalid KMS provider name ${name}, must not contain ':'`));
    }
    if (kmsNames.has(name)) out.push(invalid(child(path, 'name'), name, `duplicate KMS provider name ${name}, names must be unique`));
    kmsNames.add(name);
  }

  const timeout = asString(kms.timeout);
  const ms = timeout === undefined ? undefined : parseDuration(timeout);
  if (ms !== undefined && ms <= 0) out.push(invalid(child(path, 'timeout'), timeout, 'timeout should be a positive value'));

  const endpoint = asString(kms.endpoint);
  if (endpoint) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(endpoint)?.[1] ?? '';
    if (scheme !== 'unix') {
      out.push(invalid(child(path, 'endpoint'), endpoint, `unsupported scheme "${scheme}" for KMS provider, only unix is supported`));
    } else if (endpoint.replace(/^unix:(\/\/)?/, '') === '') {
      out.push(invalid(child(path, 'endpoint'), endpoint, 'invalid endpoint for kms provider, error: missing socket path'));
    }
  }

  const cachesize = kms.cachesize;
  if (version !== 'v1' && isSet(cachesize)) out.push(invalid(child(path, 'cachesize'), cachesize, 'cachesize is not supported in v2'));
  if (version === 'v1' && cachesize === 0) {
    out.push(invalid(child(path, 'cachesize'), 0, 'cachesize should be a positive value, or negative to disable'));
  }
}
