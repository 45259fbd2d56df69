// Validation of configuration documents: every problem is returned, each with a field path, an
// upstream-worded message and a severity. Runs in the browser as well as on the server.

import { acceptedApiVersions, API_VERSION_ALIASES, CONFIG_API_VERSION, CONFIG_KINDS, isConfigKind, type ConfigKind } from './model.js';

export { isConfigKind } from './model.js';
import { invalid, notSupported, required, warning, type ConfigProblem } from './problems.js';
import { admissionRules, tracingRules } from './rules-admission-tracing.js';
import { authenticationRules, type AuthenticationRuleOptions } from './rules-authentication.js';
import { authorizationRules } from './rules-authorization.js';
import { encryptionRules } from './rules-encryption.js';
import { checkObject, isPlainObject, isSet } from './structural.js';

export type { ConfigProblem, ConfigProblemSeverity } from './problems.js';
export { hasErrors } from './problems.js';

export interface ConfigValidationOptions extends AuthenticationRuleOptions {}

type KindValidator = (doc: unknown, opts?: ConfigValidationOptions) => ConfigProblem[];

function typeMetaProblems(doc: Record<string, unknown>, kind: ConfigKind, out: ConfigProblem[]): void {
  const apiVersion = doc.apiVersion;
  if (!isSet(apiVersion) || apiVersion === '') out.push(required('apiVersion'));
  else if (typeof apiVersion !== 'string' || !acceptedApiVersions(kind).includes(apiVersion)) {
    out.push(notSupported('apiVersion', apiVersion, acceptedApiVersions(kind)));
  } else if (API_VERSION_ALIASES[kind].deprecated.includes(apiVersion)) {
    out.push(warning('apiVersion', `${apiVersion} is deprecated; use ${CONFIG_API_VERSION}`));
  }
  const k = doc.kind;
  if (!isSet(k) || k === '') out.push(required('kind'));
  else if (k !== kind) out.push(notSupported('kind', k, [kind]));
}

function kindValidator(kind: ConfigKind, rules: (doc: Record<string, unknown>, opts: ConfigValidationOptions, out: ConfigProblem[]) => void): KindValidator {
  return (doc, opts = {}) => {
    const out: ConfigProblem[] = [];
    if (!isPlainObject(doc)) return [invalid('', undefined, `the document must be an object holding a ${kind}`)];
    typeMetaProblems(doc, kind, out);
    checkObject(doc, kind, '', out, true);
    rules(doc, opts, out);
    return out;
  };
}

export const validateAdmissionConfiguration = kindValidator('AdmissionConfiguration', (doc, _o, out) => admissionRules(doc, out));
export const validateAuthenticationConfiguration = kindValidator('AuthenticationConfiguration', authenticationRules);
export const validateAuthorizationConfiguration = kindValidator('AuthorizationConfiguration', (doc, _o, out) => authorizationRules(doc, out));
export const validateEncryptionConfiguration = kindValidator('EncryptionConfiguration', (doc, _o, out) => encryptionRules(doc, out));
export const validateTracingConfiguration = kindValidator('TracingConfiguration', (doc, _o, out) => tracingRules(doc, out));

export const KIND_VALIDATORS: Readonly<Record<ConfigKind, KindValidator>> = {
  AdmissionConfiguration: validateAdmissionConfiguration,
  AuthenticationConfiguration: validateAuthenticationConfiguration,
  AuthorizationConfiguration: validateAuthorizationConfiguration,
  EncryptionConfiguration: validateEncryptionConfiguration,
  TracingConfiguration: validateTracingConfiguration,
};

/** Validates any of the five kinds, chosen by the document's `kind`. */
export function validateConfigDocument(doc: unknown, opts: ConfigValidationOptions = {}): ConfigProblem[] {
  if (!isPlainObject(doc)) return [invalid('', undefined, 'the document must be an object with apiVersion and kind')];
  const kind = doc.kind;
  if (isConfigKind(kind)) return KIND_VALIDATORS[kind](doc, opts);
  const out: ConfigProblem[] = [];
  if (!isSet(doc.apiVersion) || doc.apiVersion === '') out.push(required('apiVersion'));
  if (!isSet(kind) || kind === '') out.push(required('kind'));
  else out.push(notSupported('kind', kind, CONFIG_KINDS));
  return out;
}
