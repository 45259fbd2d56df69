// apiregistration.k8s.io/v1 APIService, as kube-aggregator's pkg/apis/apiregistration/validation and its table
// printer: the name is `version.group`, a local APIService (no spec.service) is served by this server itself.
// The local group-versions are created at start (controllers/apiservices.ts, as upstream's autoregister controller).
import { type Obj, ageColumn, arr, builtinType, col, ensure, obj, setDefault, str } from './builtin-helpers.js';
import { dns1123SubdomainErrors, pathSegmentErrors } from './meta-validation.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const spec = (o: KubeObject): Obj => obj(o.spec);

/** IsDNS1035Label: a lowercase label starting with a letter. */
function dns1035LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v))
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

function validateApiService(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec(o);
  const group = str(s.group);
  const version = str(s.version);
  const name = str(o.metadata?.name);
  const required = `${version}.${group}`;
  // the name *must* be version.group (upstream ValidateAPIService's name check)
  if (name && pathSegmentErrors(name).length === 0 && name !== required)
    errs.push(fe.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  if (!group && version !== 'v1') errs.push(fe.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const m of dns1123SubdomainErrors(group)) errs.push(fe.invalid('spec.group', group, m));
  for (const m of dns1035LabelErrors(version)) errs.push(fe.invalid('spec.version', version, m));
  const gpm = typeof s.groupPriorityMinimum === 'number' ? s.groupPriorityMinimum : 0;
  if (gpm <= 0 || gpm > 20000) errs.push(fe.invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = typeof s.versionPriority === 'number' ? s.versionPriority : 0;
  if (vp <= 0 || vp > 1000) errs.push(fe.invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const ca = Buffer.from(str(s.caBundle), 'base64');
  if (s.service === undefined || s.service === null) {
    if (ca.length) errs.push(fe.invalid('spec.caBundle', `${ca.length} bytes`, 'local APIServices may not have a caBundle'));
    if (s.insecureSkipTLSVerify === true) errs.push(fe.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const svc = obj(s.service);
  if (!str(svc.namespace)) errs.push(fe.required('spec.service.namespace', ''));
  if (!str(svc.name)) errs.push(fe.required('spec.service.name', ''));
  if (typeof svc.port === 'number' && (svc.port < 1 || svc.port > 65535)) errs.push(fe.invalid('spec.service.port', svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (s.insecureSkipTLSVerify === true && ca.length) errs.push(fe.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const apiServiceStrategy: Strategy = {
  nameValidation: 'path',
  defaults(o) {
    const s = ensure(o as Obj, 'spec');
    if (s.service && typeof s.service === 'object') setDefault(s.service as Obj, 'port', 443);
  },
  validate: validateApiService,
};

/** kube-aggregator's table: Available is the condition's status, with its reason when not True. */
export function apiServiceAvailable(o: KubeObject): string {
  const c = arr(obj(o.status).conditions)
    .map(obj)
    .find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  return c.status === 'True' ? 'True' : `${str(c.status)} (${str(c.reason)})`;
}

export const apiRegistrationTypes: ResourceType[] = [
  builtinType({
    group: 'apiregistration.service.io', version: 'v1', kind: 'APIService', plural: 'apiservices',
    schemaRef: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService', scope: 'Cluster', categories: ['api-extensions'], status: true,
    strategy: apiServiceStrategy,
    columns: [
      col('Service', (o) => {
        const svc = spec(o).service;
        return svc && typeof svc === 'object' ? `${str(obj(svc).namespace)}/${str(obj(svc).name)}` : 'Local';
      }),
      col('Available', apiServiceAvailable),
      ageColumn,
    ],
  }),
];
