// Continue tokens as upstream: base64url (no padding) of {"v":"meta.service.io/v1","rv":N,"start":"<key>\u0000"}.

export interface ContinueToken {
  rv: number;
  /** Key (relative to the type prefix) to start from, inclusive. */
  start: string;
}

const VERSIONS = new Set(['meta.service.io/v1', 'meta.k8s.io/v1']);

export class ContinueTokenError extends Error {}

export function encodeContinue(lastKeyRelative: string, rv: number): string {
  const json = JSON.stringify({ v: 'meta.service.io/v1', rv, start: lastKeyRelative + '\u0000' });
  return base64UrlEncode(json);
}

export function decodeContinue(token: string): ContinueToken {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(base64UrlDecode(token));
  } catch {
    throw new ContinueTokenError('continue key is not valid: illegal base64 data or JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || !VERSIONS.has(parsed.v as string))
    throw new ContinueTokenError('continue key is not valid: server does not recognize this encoded version');
  if (typeof parsed.rv !== 'number' || !Number.isSafeInteger(parsed.rv) || parsed.rv === 0)
    throw new ContinueTokenError('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.start !== 'string' || parsed.start.length === 0)
    throw new ContinueTokenError('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  const start = parsed.start;
  // path traversal guard as upstream: the cleaned path must stay the same
  if (start.startsWith('/') || start.split('/').some((seg) => seg === '..' || seg === '.'))
    throw new ContinueTokenError('continue key is not valid: unexpected path');
  return { rv: parsed.rv, start };
}

function base64UrlEncode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64UrlDecode(s: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('bad base64');
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
