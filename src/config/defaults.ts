// Defaulting of configuration documents, applied after validation: fills defaults as upstream does
// and rewrites accepted upstream spellings to the canonical ones so consumers see one form.

import {
  CONFIG_API_VERSION,
  DEFAULT_KMS_API_VERSION,
  DEFAULT_KMS_CACHE_SIZE,
  DEFAULT_KMS_TIMEOUT,
  acceptedApiVersions,
  isConfigKind,
} from './model.js';
import { asList, asObject, isPlainObject, isSet } from './structural.js';
import type { ConfigDocument } from './types.js';

/** Returns a defaulted copy; the input is not modified. Documents of unknown kinds are copied unchanged. */
export function applyConfigDefaults<T extends ConfigDocument>(doc: T): T;
export function applyConfigDefaults(doc: unknown): unknown;
export function applyConfigDefaults(doc: unknown): unknown {
  if (!isPlainObject(doc)) return doc;
  const copy = structuredClone(doc);
  const kind = copy.kind;
  if (!isConfigKind(kind)) return copy;
  if (typeof copy.apiVersion === 'string' && acceptedApiVersions(kind).includes(copy.apiVersion)) copy.apiVersion = CONFIG_API_VERSION;
  switch (kind) {
    case 'AuthorizationConfiguration':
      for (const a of asList(copy.authorizers)) defaultWebhook(asObject(asObject(a)?.webhook));
      break;
    case 'EncryptionConfiguration':
      for (const entry of asList(copy.resources)) {
        for (const p of asList(asObject(entry)?.providers)) defaultKms(asObject(asObject(p)?.kms));
      }
      break;
    default:
      break;
  }
  return copy;
}

function defaultWebhook(w: Record<string, unknown> | undefined): void {
  if (!w) return;
  if (!isSet(w.cacheAuthorizedRequests)) w.cacheAuthorizedRequests = true;
  if (!isSet(w.cacheUnauthorizedRequests)) w.cacheUnauthorizedRequests = true;
  if (!isSet(w.matchConditions)) w.matchConditions = [];
  const conn = asObject(w.connectionInfo);
  if (!conn) return;
  if (conn.type === 'KubeConfigFile') conn.type = 'ServiceConfig';
  if (isSet(conn.kubeConfigFile)) {
    if (!isSet(conn.serviceConfigFile)) conn.serviceConfigFile = conn.kubeConfigFile;
    delete conn.kubeConfigFile;
  }
}

function defaultKms(kms: Record<string, unknown> | undefined): void {
  if (!kms) return;
  if (!isSet(kms.apiVersion) || kms.apiVersion === '') kms.apiVersion = DEFAULT_KMS_API_VERSION;
  if (kms.apiVersion === 'v1' && !isSet(kms.cachesize)) kms.cachesize = DEFAULT_KMS_CACHE_SIZE;
  if (!isSet(kms.timeout) || kms.timeout === '') kms.timeout = DEFAULT_KMS_TIMEOUT;
}
