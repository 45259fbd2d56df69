// The URL CEL library (upstream k8s.io/apiserver/pkg/cel/library urls.go): url() accepts what Go's
// url.ParseRequestURI accepts (an absolute URL or an absolute path; the OpenAPI 'uri' format uses the same
// check), and the accessors answer as Go's url.URL does. Errors carry Go's texts (`parse "x": ...`).

export class URLValue {
  constructor(
    readonly scheme: string,
    readonly opaque: string,
    readonly host: string,
    readonly path: string,
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}

  hostname(): string {
    const [host] = splitHostPort(this.host);
    return host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host;
  }

  port(): string {
    return splitHostPort(this.host)[1];
  }

  escapedPath(): string {
    return this.rawPath || escapePath(this.path);
  }

  query(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const part of this.rawQuery.split('&')) {
      if (part === '' || part.includes(';')) continue; // Go drops pairs with semicolons
      const eq = part.indexOf('=');
      const k = eq < 0 ? part : part.slice(0, eq);
      const v = eq < 0 ? '' : part.slice(eq + 1);
      try {
        const key = unescape(k, 'query');
        (out[key] ??= []).push(unescape(v, 'query'));
      } catch {
        // Go's ParseQuery skips malformed pairs
      }
    }
    return out;
  }
}

function splitHostPort(host: string): [string, string] {
  const colon = host.lastIndexOf(':');
  if (colon < 0 || (host.startsWith('[') && host.lastIndexOf(']') > colon)) return [host, ''];
  return [host.slice(0, colon), host.slice(colon + 1)];
}

class URLError extends Error {}

function unescape(s: string, mode: 'path' | 'query' | 'host'): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new URLError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+' && mode === 'query') bytes.push(0x20);
    else for (const b of new TextEncoder().encode(c)) bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function escapePath(p: string): string {
  // Go's shouldEscape(encodePath): unreserved characters and $&+,/:;=@ stay, everything else is escaped
  return p.replace(/[^A-Za-z0-9\-._~$&+,/:;=@]/g, (c) => [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function validHost(host: string): void {
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) throw new URLError("missing ']' in host");
    const port = host.slice(end + 1);
    if (port !== '' && !/^:[0-9]*$/.test(port)) throw new URLError(`invalid port ${JSON.stringify(port)} after host`);
    return;
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !/^:[0-9]*$/.test(host.slice(colon))) throw new URLError(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  // Go's shouldEscape(encodeHost): ASCII outside unreserved and !$&'()*+,;=:[]<>" (or an escape) is refused
  for (const c of host.slice(0, colon < 0 ? undefined : colon))
    if (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]/.test(c)) throw new URLError(`invalid character ${JSON.stringify(c)} in host name`);
}

/** Go's url.ParseRequestURI (no fragment splitting: a '#' stays in the path or query, as Go does). */
function parseRequestURI(raw: string): URLValue {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '') throw new URLError('empty url');
  let [scheme, rest] = getScheme(raw);
  scheme = scheme.toLowerCase();
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return new URLValue(scheme, rest, '', '', '', rawQuery);
    throw new URLError('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    const authEnd = rest.indexOf('/', 2);
    const authority = authEnd < 0 ? rest.slice(2) : rest.slice(2, authEnd);
    rest = authEnd < 0 ? '' : rest.slice(authEnd);
    const at = authority.lastIndexOf('@');
    host = at < 0 ? authority : authority.slice(at + 1);
    validHost(host);
    host = unescape(host, 'host');
  }
  const path = unescape(rest, 'path');
  // Go keeps the raw path only when it is a valid encoding that differs from the default one
  const validEncoded = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@[\]/]|%[0-9A-Fa-f]{2})*$/.test(rest);
  return new URLValue(scheme, '', host, path, validEncoded && escapePath(path) !== rest ? rest : '', rawQuery);
}

/** The url() conversion: ParseRequestURI, then the fragment split off as Go's url.Parse does. */
export function parseURL(raw: string): URLValue {
  try {
    parseRequestURI(raw);
    const hash = raw.indexOf('#');
    return parseRequestURI(hash < 0 ? raw : raw.slice(0, hash));
  } catch (e) {
    if (e instanceof URLError) throw new Error(`URL parse error during conversion from string: ${requestURIError(raw, e)}`);
    throw e;
  }
}

const requestURIError = (raw: string, e: Error) => `parse ${JSON.stringify(raw)}: ${e.message}`;

/** Go's url.ParseRequestURI error text, or undefined when valid (the 'uri' format). */
export function requestURIErrors(raw: string): string[] {
  try {
    parseRequestURI(raw);
    return [];
  } catch (e) {
    if (e instanceof URLError) return [requestURIError(raw, e)];
    throw e;
  }
}

export function isURL(raw: string): boolean {
  return requestURIErrors(raw).length === 0;
}
