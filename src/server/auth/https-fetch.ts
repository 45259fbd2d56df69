// fetch() over node:https with an explicit CA bundle, for OIDC discovery and JWKS
// (global fetch cannot take per-request CAs). Redirects are not followed, as upstream.
import { request } from 'node:https';

/** Largest discovery document or key set read (upstream reads them whole; bound them for safety). */
const MAX_BODY = 1 << 20;
const TIMEOUT_MS = 10_000;

export function httpsFetcher(ca: string | undefined): (url: string | URL, init?: { method?: string; headers?: unknown; signal?: AbortSignal | null }) => Promise<Response> {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const u = new URL(String(url));
      if (u.protocol !== 'https:') {
        reject(new Error(`${u.protocol} URLs are not allowed: only https`));
        return;
      }
      const headers: Record<string, string> = {};
      const h = init?.headers;
      if (h instanceof Headers) h.forEach((v, k) => (headers[k] = v));
      else if (Array.isArray(h)) for (const [k, v] of h as [string, string][]) headers[k] = v;
      else if (h && typeof h === 'object') Object.assign(headers, h);
      const req = request(u, { method: init?.method ?? 'GET', headers, ca, timeout: TIMEOUT_MS, signal: init?.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new Error(`response from ${u.origin} is larger than ${MAX_BODY} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: out }));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`timed out after ${TIMEOUT_MS}ms fetching ${u.origin}${u.pathname}`)));
      req.on('error', reject);
      req.end();
    });
}
