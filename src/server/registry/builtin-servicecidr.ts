// networking.k8s.io/v1 ServiceCIDR and IPAddress (MultiCIDRServiceAllocator, GA and on by default in 1.33):
// upstream pkg/apis/networking/validation (ValidateServiceCIDR{,Update}, ValidateIPAddress{,Update}), the
// strategies of pkg/registry/networking/{servicecidr,ipaddress} and the printers of pkg/printers/internalversion.
import { ageColumn, arr, builtinType, col, obj, str } from './builtin-helpers.js';
import { cidrErrors, familyOfCIDR, ipErrors } from './ip-cidr.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const API = 'io.k8s.api.';
export const NETWORKING_GROUP = 'networking.service.io';

/** Labels and finalizer upstream's allocator and ServiceCIDR controller use (k8s.io/api/networking/v1). */
export const LABEL_IP_FAMILY = 'ipaddress.kubernetes.io/ip-family';
export const LABEL_MANAGED_BY = 'ipaddress.kubernetes.io/managed-by';
export const IPALLOCATOR_CONTROLLER = 'ipallocator.k8s.io';
export const SERVICE_CIDR_FINALIZER = 'networking.k8s.io/service-cidr-finalizer';
/** The ServiceCIDR the API server keeps for its --service-cluster-ip-range (upstream DefaultServiceCIDRName). */
export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';

const IMMUTABLE = 'field is immutable';

function cidrSpecErrors(cidrs: unknown[], spec: unknown): FieldError[] {
  const path = 'spec.cidrs';
  if (cidrs.length === 0) return [fe.required(path, 'at least one CIDR required')];
  if (cidrs.length > 2) return [fe.invalid(path, spec, 'may only hold up to 2 values')];
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => {
    for (const m of cidrErrors(str(c))) errs.push(fe.invalid(`${path}[${i}]`, str(c), m));
  });
  if (cidrs.length === 2) {
    const f0 = familyOfCIDR(str(cidrs[0]));
    if (f0 !== undefined && f0 === familyOfCIDR(str(cidrs[1])))
      errs.push(fe.invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errs;
}

function validateServiceCIDR(o: KubeObject, old?: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const cidrs = arr(spec.cidrs);
  if (!old) return cidrSpecErrors(cidrs, spec);
  // ValidateServiceCIDRUpdate: same length -> unchanged; 1 -> 2 adds the other family (issues.k8s.io/131261)
  const prev = arr(obj(old.spec).cidrs);
  const errs: FieldError[] = [];
  if (prev.length === cidrs.length) {
    prev.forEach((c, i) => {
      if (c !== cidrs[i]) errs.push(fe.invalid(`spec.cidrs[${i}]`, cidrs[i], IMMUTABLE));
    });
  } else if (prev.length === 1 && cidrs.length === 2) {
    if (cidrs[0] !== prev[0]) errs.push(fe.invalid('spec.cidrs[0]', cidrs[0], IMMUTABLE));
    errs.push(...cidrSpecErrors(cidrs, spec));
  } else errs.push(fe.invalid('spec.cidrs', cidrs, IMMUTABLE));
  return errs;
}

/** content.IsPathSegmentName: the parentRef names and resource are path segments. */
function pathSegmentErrors(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const out: string[] = [];
  for (const bad of ['/', '%']) if (v.includes(bad)) out.push(`may not contain '${bad}'`);
  return out;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function validateIPAddress(o: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(o.metadata?.name);
  // ValidateIPAddressName: the name is the address, in canonical form (no generated names)
  if (name) for (const m of ipErrors(name)) errs.push(fe.invalid('metadata.name', name, m));
  const spec = obj(o.spec);
  if (old) {
    if (JSON.stringify(canonicalRef(spec.parentRef)) !== JSON.stringify(canonicalRef(obj(old.spec).parentRef)))
      errs.push(fe.invalid('spec.parentRef', spec.parentRef ?? null, IMMUTABLE));
    return errs;
  }
  if (spec.parentRef === undefined || spec.parentRef === null) return [...errs, fe.required('spec.parentRef')];
  const ref = obj(spec.parentRef);
  const p = 'spec.parentRef';
  const group = str(ref.group);
  if (group) {
    if (group.length > 253) errs.push(fe.invalid(`${p}.group`, group, 'must be no more than 253 characters'));
    if (!SUBDOMAIN.test(group)) errs.push(fe.invalid(`${p}.group`, group, SUBDOMAIN_ERROR));
  }
  for (const key of ['resource', 'name'] as const) {
    const v = str(ref[key]);
    if (!v) errs.push(fe.required(`${p}.${key}`));
    else for (const m of pathSegmentErrors(v)) errs.push(fe.invalid(`${p}.${key}`, v, m));
  }
  const ns = str(ref.namespace);
  if (ns) for (const m of pathSegmentErrors(ns)) errs.push(fe.invalid(`${p}.namespace`, ns, m));
  return errs;
}

const canonicalRef = (r: unknown) => {
  const ref = obj(r);
  return [str(ref.group), str(ref.resource), str(ref.namespace), str(ref.name)];
};

/** printIPAddress: `<resource>[.<group>]/[<namespace>/]<name>`, lower-cased group-resource. */
export function parentRefCell(o: KubeObject): string {
  const spec = obj(o.spec);
  if (spec.parentRef === undefined || spec.parentRef === null) return '<none>';
  const ref = obj(spec.parentRef);
  const gr = str(ref.group) ? `${str(ref.resource)}.${str(ref.group)}` : str(ref.resource);
  return `${gr.toLowerCase()}${str(ref.namespace) ? `/${str(ref.namespace)}` : ''}/${str(ref.name)}`;
}

const serviceCIDRStrategy: Strategy = {
  // upstream's PrepareForCreate keeps what the request sends (the default ServiceCIDR is written with its status)
  keepStatusOnCreate: true,
  validate: validateServiceCIDR,
};

const ipAddressStrategy: Strategy = {
  // the IP address validation of the name is ours (ValidateIPAddressName); the generic check only bounds it
  nameValidation: 'path',
  validate: validateIPAddress,
};

export const serviceCIDRTypes: ResourceType[] = [
  builtinType({
    group: NETWORKING_GROUP, version: 'v1', kind: 'ServiceCIDR', plural: 'servicecidrs', schemaRef: API + 'networking.v1.ServiceCIDR',
    scope: 'Cluster', status: true, strategy: serviceCIDRStrategy,
    columns: [col('CIDRs', (o) => arr(obj(o.spec).cidrs).map(str).join(','), { description: 'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.' }), ageColumn],
  }),
  builtinType({
    group: NETWORKING_GROUP, version: 'v1', kind: 'IPAddress', plural: 'ipaddresses', schemaRef: API + 'networking.v1.IPAddress',
    scope: 'Cluster', strategy: ipAddressStrategy,
    // upstream defines Name and ParentRef only (its printer's Age cell has no column)
    columns: [col('ParentRef', parentRefCell, { description: 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.' })],
  }),
];
