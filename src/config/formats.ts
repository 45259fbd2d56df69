// String formats the configuration types rely on: Go durations, RFC 1123 names, domain-prefixed
// paths, base64 keys and PEM bundles. Pure functions so the browser studio runs them too.

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Source of the pattern the JSON Schema uses for duration strings (Go `time.ParseDuration` syntax). */
export const DURATION_PATTERN = '^[-+]?(0|((([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(ns|us|µs|μs|ms|s|m|h))+)$';
const DURATION_RE = new RegExp(DURATION_PATTERN, 'u');
const DURATION_PART_RE = /(([0-9]+(?:\.[0-9]*)?)|(\.[0-9]+))(ns|us|µs|μs|ms|s|m|h)/gu;

/** Parses a Go duration string (`5s`, `1m30s`, `300ms`, `-2h`) to milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  if (!DURATION_RE.test(text)) return undefined;
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  let total = 0;
  for (const m of rest.matchAll(DURATION_PART_RE)) {
    total += Number(m[1]) * DURATION_UNITS_MS[m[4]!]!;
  }
  return sign * total;
}

const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function dns1123LabelErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1123_LABEL_RE.test(value)) {
    out.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return out;
}

export function dns1123SubdomainErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    out.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return out;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** Problems with a domain-prefixed path such as `example.org/groups`: each is [offending value, detail]. */
export function domainPrefixedPathErrors(value: string): Array<[string, string]> {
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) {
    return [[value, 'must be a domain-prefixed path (such as "acme.io/foo")']];
  }
  const host = value.slice(0, slash);
  const path = value.slice(slash + 1);
  const out: Array<[string, string]> = dns1123SubdomainErrors(host).map((e) => [host, e]);
  if (!HTTP_PATH_RE.test(path)) out.push([path, `Invalid path (regex used for validation is '${HTTP_PATH_FMT}')`]);
  return out;
}

/** Length in bytes of a standard (padded) base64 string, or undefined when it is not valid base64. */
export function base64DecodedLength(text: string): number | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const padding = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - padding;
}

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** True when the text holds at least one PEM CERTIFICATE block whose body is base64 DER (a SEQUENCE). */
export function containsPemCertificate(text: string): boolean {
  const re = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
  for (const m of text.matchAll(re)) {
    const body = m[1]!.replace(/\s+/g, '');
    if (body.length < 4 || base64DecodedLength(body) === undefined) continue;
    // First byte of a DER certificate is 0x30 (SEQUENCE): the top 6 bits come from the first base64 digit.
    const first = B64_ALPHABET.indexOf(body[0]!);
    const second = B64_ALPHABET.indexOf(body[1]!);
    if (((first << 2) | (second >> 4)) === 0x30) return true;
  }
  return false;
}

/** Whether a path is absolute on POSIX or Windows, without importing node:path. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}
