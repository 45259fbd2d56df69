// ObjectMeta validation as upstream's apimachinery validation (names, labels, annotations, owner references).
import type { FieldError, ObjectMeta } from './types.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function dns1123LabelErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(v))
    out.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  return out;
}

export function dns1123SubdomainErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v))
    out.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  return out;
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export function dns1035LabelErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1035_LABEL.test(v))
    out.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  return out;
}

export function pathSegmentErrors(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  if (v.includes('/')) return [`may not contain '/'`];
  if (v.includes('%')) return [`may not contain '%'`];
  return [];
}

export function qualifiedNameErrors(key: string): string[] {
  const out: string[] = [];
  const slash = key.lastIndexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else for (const e of dns1123SubdomainErrors(prefix)) out.push(`prefix part ${e}`);
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else {
    if (name.length > 63) out.push('name part must be no more than 63 characters');
    if (!QUALIFIED_NAME.test(name))
      out.push(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      );
  }
  return out;
}

export function labelValueErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(v))
    out.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  return out;
}

const quote = (v: unknown) => JSON.stringify(v);

export function nameErrors(name: string, mode: 'subdomain' | 'label' | 'path'): string[] {
  return mode === 'label' ? dns1123LabelErrors(name) : mode === 'path' ? pathSegmentErrors(name) : dns1123SubdomainErrors(name);
}

/** Validates metadata of an object about to be stored (name already resolved from generateName). */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameMode: 'subdomain' | 'label' | 'path'): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  if (!name) errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'Required value: name or generateName is required' });
  else for (const e of nameErrors(name, nameMode)) errs.push(invalid('metadata.name', name, e));
  if (namespaced) {
    if (!meta.namespace) errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace', detail: 'Required value' });
  } else if (meta.namespace) {
    errs.push({ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'Forbidden: not allowed on this type' });
  }
  if (meta.labels !== undefined) {
    if (typeof meta.labels !== 'object' || meta.labels === null || Array.isArray(meta.labels))
      errs.push(invalid('metadata.labels', meta.labels, 'must be a map of string keys to string values'));
    else
      for (const [k, v] of Object.entries(meta.labels)) {
        for (const e of qualifiedNameErrors(k)) errs.push(invalid('metadata.labels', k, e));
        if (typeof v !== 'string') errs.push(invalid(`metadata.labels`, v, 'must be a string'));
        else for (const e of labelValueErrors(v)) errs.push(invalid(`metadata.labels`, v, e));
      }
  }
  if (meta.annotations !== undefined) {
    if (typeof meta.annotations !== 'object' || meta.annotations === null || Array.isArray(meta.annotations))
      errs.push(invalid('metadata.annotations', meta.annotations, 'must be a map of string keys to string values'));
    else {
      let total = 0;
      for (const [k, v] of Object.entries(meta.annotations)) {
        for (const e of qualifiedNameErrors(k.toLowerCase())) errs.push(invalid('metadata.annotations', k, e));
        if (typeof v !== 'string') errs.push(invalid('metadata.annotations', v, 'must be a string'));
        total += k.length + (typeof v === 'string' ? v.length : 0);
      }
      if (total > 256 * 1024)
        errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: `Too long: must have at most 262144 bytes` });
    }
  }
  // JSON null is a nil list upstream (as if absent); anything else that is not a list is invalid
  if (meta.finalizers != null && !Array.isArray(meta.finalizers)) errs.push(invalid('metadata.finalizers', meta.finalizers, 'must be a list of strings'));
  else if (meta.finalizers != null) {
    meta.finalizers.forEach((f, i) => {
      if (typeof f !== 'string') errs.push(invalid(`metadata.finalizers[${i}]`, f, 'must be a string'));
      else for (const e of qualifiedNameErrors(f)) errs.push(invalid(`metadata.finalizers[${i}]`, f, e));
    });
  }
  if (meta.ownerReferences != null && !Array.isArray(meta.ownerReferences)) errs.push(invalid('metadata.ownerReferences', meta.ownerReferences, 'must be a list of owner references'));
  else if (meta.ownerReferences != null) {
    meta.ownerReferences.forEach((item, i) => {
      const p = `metadata.ownerReferences[${i}]`;
      // a null (or non-object) entry decodes to an empty reference upstream: every required field is missing
      const r = item !== null && typeof item === 'object' ? item : ({} as typeof item);
      if (!r.apiVersion) errs.push({ type: 'FieldValueInvalid', field: `${p}.apiVersion`, detail: 'Invalid value: "": version must not be empty' });
      if (!r.kind) errs.push({ type: 'FieldValueInvalid', field: `${p}.kind`, detail: 'Invalid value: "": kind must not be empty' });
      if (!r.name) errs.push({ type: 'FieldValueInvalid', field: `${p}.name`, detail: 'Invalid value: "": name must not be empty' });
      if (!r.uid) errs.push({ type: 'FieldValueInvalid', field: `${p}.uid`, detail: 'Invalid value: "": uid must not be empty' });
    });
    const controllers = meta.ownerReferences.filter((r) => r?.controller === true);
    if (controllers.length > 1)
      errs.push(invalid('metadata.ownerReferences', meta.ownerReferences, 'Only one reference can have Controller set to true'));
  }
  return errs;
}

function invalid(field: string, value: unknown, why: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${quote(value)}: ${why}`, badValue: value };
}
