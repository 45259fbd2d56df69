// certificates.k8s.io/v1 CertificateSigningRequest with its /status and /approval sub-resources, as upstream's
// pkg/registry/certificates/certificates/strategy.go and pkg/apis/certificates/validation: the requester's identity is
// recorded at create, the spec never changes after it, Approved/Denied conditions only change through /approval and
// status.certificate only through /status.
import { humanDuration } from './age.js';
import { type Obj, ageColumn, arr, builtinType, col, obj, str } from './builtin-helpers.js';
import { certificateError, csrRequestError } from './csr-request.js';
import { dns1123LabelErrors, dns1123SubdomainErrors } from './meta-validation.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const spec = (o: KubeObject): Obj => obj(o.spec);
const status = (o: KubeObject): Obj => obj(o.status);
const conditions = (o: KubeObject): Obj[] => arr(status(o).conditions).map(obj);
const bytesOf = (v: unknown): Buffer => Buffer.from(str(v), 'base64');

export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** Upstream allValidUsages (certificates.KeyUsage). */
export const KEY_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

const TRUE_ONLY = ['Approved', 'Denied', 'Failed'];
const ALL_STATUS = ['False', 'True', 'Unknown'];

/** Upstream apivalidation.ValidateSignerName: `<domain>/<path>`, the domain a dotted DNS name, the path at most 63 characters. */
export function signerNameErrors(path: string, signerName: string): FieldError[] {
  if (!signerName) return [fe.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fe.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push({ ...fe.tooLong(path, 253), badValue: domain });
  const labels = domain.split('.');
  for (const l of labels) {
    const e = dns1123LabelErrors(l);
    if (e.length) {
      for (const m of e) errs.push(fe.invalid(path, domain, `validating label ${JSON.stringify(l)}: ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fe.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  if (rest.length > 63) errs.push({ ...fe.tooLong(path, 63), badValue: rest });
  for (const c of rest.split('.')) {
    const e = dns1123SubdomainErrors(c);
    if (e.length) {
      for (const m of e) errs.push(fe.invalid(path, rest, `validating component ${JSON.stringify(c)}: ${m}`));
      break;
    }
  }
  return errs;
}

function validateConditions(o: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const oldConds = old ? conditions(old) : [];
  // problems already stored are tolerated (upstream getValidationOptions)
  const allowBoth = ['Approved', 'Denied'].every((t) => oldConds.some((c) => c.type === t));
  const allowDup = new Set(oldConds.map((c) => c.type)).size !== oldConds.length;
  const allowEmpty = oldConds.some((c) => !str(c.type));
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions(o).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c.type);
    if (!allowEmpty && !type) errs.push(fe.required(`${p}.type`, ''));
    const allowed = TRUE_ONLY.includes(type) ? ['True'] : ALL_STATUS;
    if (!str(c.status)) errs.push(fe.required(`${p}.status`, ''));
    else if (!allowed.includes(str(c.status))) errs.push(fe.notSupported(`${p}.status`, c.status, allowed));
    if (!allowBoth) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fe.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fe.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allowDup && seen.has(type)) errs.push(fe.duplicate(`${p}.type`, type));
    seen.add(type);
  });
  return errs;
}

function validateCsr(o: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec(o);
  if (!old) {
    // the spec is immutable: only a create checks the request (an update keeps the stored spec)
    const reqErr = csrRequestError(bytesOf(s.request));
    if (reqErr) errs.push(fe.invalid('spec.request', s.request ?? '', reqErr));
  }
  const usages = arr(s.usages).map(str);
  if (usages.length === 0) errs.push(fe.required('spec.usages', ''));
  const oldUsages = old ? arr(spec(old).usages).map(str) : [];
  if (!oldUsages.some((u) => !KEY_USAGES.includes(u)))
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u)) errs.push(fe.notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
  if (new Set(oldUsages).size === oldUsages.length)
    usages.forEach((u, i) => {
      if (usages.indexOf(u) !== i) errs.push(fe.duplicate(`spec.usages[${i}]`, u));
    });
  const signer = str(s.signerName);
  if (signer === LEGACY_UNKNOWN_SIGNER) {
    if (!old || str(spec(old).signerName) !== LEGACY_UNKNOWN_SIGNER) errs.push(fe.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...signerNameErrors('spec.signerName', signer));
  if (typeof s.expirationSeconds === 'number' && s.expirationSeconds < 600)
    errs.push(fe.invalid('spec.expirationSeconds', s.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  errs.push(...validateConditions(o, old));
  const cert = str(status(o).certificate);
  const certUnchanged = old && cert === str(status(old).certificate);
  if (!certUnchanged && !(old && certificateError(bytesOf(status(old).certificate)))) {
    const certErr = certificateError(bytesOf(cert));
    if (certErr) errs.push(fe.invalid('status.certificate', '<certificate data>', certErr));
  }
  return errs;
}

/** Upstream populateConditionTimestamps: lastUpdateTime now when unset; lastTransitionTime carried or now. */
function stampConditions(next: KubeObject, old: KubeObject | undefined): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const oldConds = old ? conditions(old) : [];
  for (const c of arr(status(next).conditions)) {
    if (!c || typeof c !== 'object') continue;
    const cond = c as Obj;
    if (!cond.lastUpdateTime) cond.lastUpdateTime = now;
    if (!cond.lastTransitionTime) {
      const prev = oldConds.find((p) => p.type === cond.type && p.status === cond.status);
      cond.lastTransitionTime = prev?.lastTransitionTime ?? now;
    }
  }
}

function findConditions(o: KubeObject, type: string): Obj[] {
  return conditions(o).filter((c) => c.type === type);
}

const csrStrategy: Strategy = {
  nameValidation: 'path', // upstream ValidateCertificateRequestName accepts any name
  prepareCreate(o, user) {
    const s = (o.spec ??= {}) as Obj;
    // the requester's identity, never the client's say (upstream PrepareForCreate)
    delete s.username;
    delete s.uid;
    delete s.groups;
    delete s.extra;
    s.username = user.username;
    if (user.uid) s.uid = user.uid;
    if (user.groups?.length) s.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) s.extra = user.extra;
    delete o.status;
  },
  prepareUpdate(next, old, sub) {
    next.spec = structuredClone(old.spec);
    if (sub === 'approval') {
      // only conditions change through /approval
      const conds = status(next).conditions;
      next.status = structuredClone(old.status ?? {});
      if (conds === undefined) delete (next.status as Obj).conditions;
      else (next.status as Obj).conditions = conds;
    }
    if (sub === 'approval' || sub === 'status') stampConditions(next, old);
    const errs: FieldError[] = [];
    for (const t of ['Approved', 'Denied', 'Failed'])
      if (findConditions(next, t).length < findConditions(old, t).length) errs.push(fe.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
    if (sub !== 'approval')
      for (const t of ['Approved', 'Denied']) {
        const a = findConditions(old, t);
        const b = findConditions(next, t);
        if (b.length > a.length) errs.push(fe.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
        else if (b.length === a.length && JSON.stringify(a) !== JSON.stringify(b)) errs.push(fe.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
      }
    const cert = str(status(next).certificate);
    const oldCert = str(status(old).certificate);
    if (cert !== oldCert) {
      if (sub !== 'status') errs.push(fe.forbidden('status.certificate', 'updates may not set certificate content'));
      else if (oldCert) errs.push(fe.forbidden('status.certificate', 'updates may not modify existing certificate content'));
    }
    return errs;
  },
  validate: validateCsr,
  fieldSelectors: { 'spec.signerName': (o) => str(spec(o).signerName) },
};

/** Upstream extractCSRStatus: Denied/Approved/Pending, then ,Failed and ,Issued. */
export function csrCondition(o: KubeObject): string {
  const types = new Set(conditions(o).map((c) => c.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if (str(status(o).certificate)) s += ',Issued';
  return s;
}

export const certificateTypes: ResourceType[] = [
  (() => {
    const t = builtinType({
      group: 'certificates.service.io', version: 'v1', kind: 'CertificateSigningRequest', plural: 'certificatesigningrequests',
      schemaRef: 'io.k8s.api.certificates.v1.CertificateSigningRequest', scope: 'Cluster', shortNames: ['csr'], status: true,
      strategy: csrStrategy,
      columns: [
        ageColumn,
        col('SignerName', (o) => str(spec(o).signerName)),
        col('Requestor', (o) => str(spec(o).username)),
        col('RequestedDuration', (o) => (typeof spec(o).expirationSeconds === 'number' ? humanDuration((spec(o).expirationSeconds as number) * 1000) : '<none>')),
        col('Condition', csrCondition),
      ],
    });
    t.subresources.push({ name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] });
    return t;
  })(),
];
