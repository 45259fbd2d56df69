// The format CEL library (upstream k8s.io/apiserver/pkg/cel/library format.go): named string formats whose
// validate() answers optional.none() when valid, else the apimachinery validation messages.
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from '../registry/meta-validation.js';
import { requestURIErrors } from './url.js';

export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** upstream MaxRegexSize: the cost estimate of a validation */
    readonly maxRegexSize: number,
  ) {}
}

/** apimachinery maskTrailingDash: prefix formats (generateName) may end with '-' (upstream's slice quirk kept). */
const maskTrailingDash = (s: string) => (s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s);

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day <= days;
}

/** strfmt's date: Go's time.Parse("2006-01-02"). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return !!m && validDate(m[1]!, m[2]!, m[3]!);
}

/** strfmt's date-time layouts: RFC 3339 (any fraction), ISO 8601 local and reduced-precision times. */
function isDateTime(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m || !validDate(m[1]!, m[2]!, m[3]!)) return false;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60;
}

const one = (ok: (s: string) => boolean, msg: string) => (s: string) => (ok(s) ? [] : [msg]);

/** upstream ConstantFormats, by the name format.named() and format.<name>() take. */
export const FORMATS: ReadonlyMap<string, NamedFormat> = new Map([
  ['dns1123Label', new NamedFormat('DNS1123Label', dns1123LabelErrors, 30)],
  ['dns1123Subdomain', new NamedFormat('DNS1123Subdomain', dns1123SubdomainErrors, 60)],
  ['dns1035Label', new NamedFormat('DNS1035Label', dns1035LabelErrors, 30)],
  ['qualifiedName', new NamedFormat('QualifiedName', qualifiedNameErrors, 60)],
  ['dns1123LabelPrefix', new NamedFormat('DNS1123LabelPrefix', (s) => dns1123LabelErrors(maskTrailingDash(s)), 30)],
  ['dns1123SubdomainPrefix', new NamedFormat('DNS1123SubdomainPrefix', (s) => dns1123SubdomainErrors(maskTrailingDash(s)), 60)],
  ['dns1035LabelPrefix', new NamedFormat('DNS1035LabelPrefix', (s) => dns1035LabelErrors(maskTrailingDash(s)), 30)],
  ['labelValue', new NamedFormat('LabelValue', labelValueErrors, 40)],
  // CRD formats (kube-openapi strfmt); uri is Go's url.ParseRequestURI, sized as govalidator's URL pattern
  ['uri', new NamedFormat('URI', requestURIErrors, 1020)],
  ['uuid', new NamedFormat('uuid', one((s) => UUID.test(s), 'does not match the UUID format'), 107)],
  ['byte', new NamedFormat('byte', one((s) => BASE64.test(s), 'invalid base64'), 80)],
  ['date', new NamedFormat('date', one(isDate, 'invalid date'), 62)],
  ['datetime', new NamedFormat('datetime', one(isDateTime, 'invalid datetime'), 62)],
]);
