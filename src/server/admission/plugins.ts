// The admission plugin set: upstream's default-on plugins this server implements, changed by
// --enable-admission-plugins / --disable-admission-plugins, configured by the AdmissionConfiguration.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import { REGISTERED_ADMISSION_PLUGINS, type AdmissionPluginName } from '../../config/admission-plugins.js';
import type { AdmissionConfiguration } from '../../config/types.js';
import { obj, str } from '../registry/builtin-helpers.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionPlugin } from '../http/admission.js';
import { namespaceLifecycle } from '../http/namespace-lifecycle.js';
import type { AdmissionAuthorizer } from './cel.js';
import { limitRanger } from './limit-ranger.js';
import { resourceQuota } from './resource-quota.js';
import { alwaysPullImages, defaultTolerationSeconds, serviceAccount } from './pod-plugins.js';
import { priority } from './priority.js';
import { nodeRestriction } from './node-restriction.js';
import { validatingAdmissionPolicyPlugin } from './policy.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './webhooks.js';

export interface AdmissionSetup {
  store: RevisionedStore;
  types: TypeRegistry;
  config?: AdmissionConfiguration;
  /** Directory relative plugin `path`s are resolved against (the AdmissionConfiguration file's). */
  configDir?: string;
  enable?: string[];
  disable?: string[];
  authorizer?: AdmissionAuthorizer;
}

type Factory = (s: AdmissionSetup, pluginConfig: Record<string, unknown> | undefined) => AdmissionPlugin;

const webhookKubeConfig = (s: AdmissionSetup, c: Record<string, unknown> | undefined, base: string | undefined): string | undefined => {
  const file = str(obj(c).kubeConfigFile);
  return file ? (isAbsolute(file) || !base ? file : resolve(base, file)) : undefined;
};

/** The plugins this server implements, keyed by upstream name. */
const IMPLEMENTED: Partial<Record<AdmissionPluginName, Factory>> = {
  NamespaceLifecycle: (s) => namespaceLifecycle(s),
  LimitRanger: (s) => limitRanger(s),
  ServiceAccount: () => serviceAccount(),
  NodeRestriction: () => nodeRestriction(),
  AlwaysPullImages: () => alwaysPullImages(),
  DefaultTolerationSeconds: () => defaultTolerationSeconds(),
  Priority: (s) => priority(s),
  MutatingAdmissionWebhook: (s, c) => mutatingWebhookPlugin({ store: s.store, authorizer: s.authorizer, kubeConfigFile: webhookKubeConfig(s, c, s.configDir) }),
  ValidatingAdmissionPolicy: (s) => validatingAdmissionPolicyPlugin(s),
  ValidatingAdmissionWebhook: (s, c) => validatingWebhookPlugin({ store: s.store, authorizer: s.authorizer, kubeConfigFile: webhookKubeConfig(s, c, s.configDir) }),
  ResourceQuota: (s) => resourceQuota(s),
  AlwaysAdmit: () => ({ name: 'AlwaysAdmit' }),
};

/**
 * Upstream's default-enabled plugins, as far as this server implements them (AlwaysPullImages is off by default),
 * and NodeRestriction, which kubeadm enables beside the Node authorizer (it only concerns kubelets' writes).
 */
export const DEFAULT_ENABLED: readonly AdmissionPluginName[] = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'Priority',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];

export class AdmissionSetupError extends Error {}

/** The enabled plugins in upstream's execution order, each with its AdmissionConfiguration entry. */
export function admissionPlugins(s: AdmissionSetup): AdmissionPlugin[] {
  const known = REGISTERED_ADMISSION_PLUGINS as readonly string[];
  for (const n of [...(s.enable ?? []), ...(s.disable ?? [])])
    if (!known.includes(n)) throw new AdmissionSetupError(`admission plugin "${n}" is not registered`);
  for (const n of s.enable ?? [])
    if (!IMPLEMENTED[n as AdmissionPluginName]) throw new AdmissionSetupError(`admission plugin "${n}" is not supported by this server`);
  const enabled = new Set<string>([...DEFAULT_ENABLED, ...(s.enable ?? [])]);
  for (const n of s.disable ?? []) enabled.delete(n);
  const out: AdmissionPlugin[] = [];
  for (const name of REGISTERED_ADMISSION_PLUGINS) {
    if (!enabled.has(name)) continue;
    out.push(IMPLEMENTED[name]!(s, pluginConfiguration(s, name)));
  }
  return out;
}

/** An entry's inline `configuration`, else the file at `path` (relative to the AdmissionConfiguration file). */
function pluginConfiguration(s: AdmissionSetup, name: string): Record<string, unknown> | undefined {
  const entry = s.config?.plugins?.find((p) => p.name === name);
  if (!entry) return undefined;
  if (entry.configuration) return obj(entry.configuration);
  if (!entry.path) return undefined;
  const file = isAbsolute(entry.path) || !s.configDir ? entry.path : resolve(s.configDir, entry.path);
  try {
    return obj(YAML.parse(readFileSync(file, 'utf8')));
  } catch (e) {
    throw new AdmissionSetupError(`admission plugin ${name}: reading ${file}: ${(e as Error).message}`);
  }
}

export const configDirOf = (file: string | undefined) => (file ? dirname(resolve(file)) : undefined);
