// A fetch for src/client over node:http/https with a kubeconfig's TLS material (CA, client certificate,
// insecure-skip-tls-verify, tls-server-name), which the global fetch cannot take: the remote controller
// manager's transport.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { ClusterCredentials } from '../proxy/kubeconfig.js';

export function kubeconfigFetch(creds: ClusterCredentials): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((v, k) => (headers[k] = v));
      if (creds.username !== undefined && !headers['authorization']) headers['authorization'] = `Basic ${Buffer.from(`${creds.username}:${creds.password ?? ''}`).toString('base64')}`;
      // an explicit length: node:http sends a DELETE body without one (no chunking for DELETE), and the server
      // then read the body as the next request on the kept-alive connection (400 Bad Request)
      const b = init.body;
      if (typeof b === 'string') headers['content-length'] = String(Buffer.byteLength(b));
      else if (b instanceof Uint8Array) headers['content-length'] = String(b.byteLength);
      const tls = url.protocol === 'https:';
      const req = (tls ? httpsRequest : httpRequest)(url, {
        method: init.method ?? 'GET',
        headers,
        ...(tls ? { ca: creds.ca, cert: creds.cert, key: creds.key, rejectUnauthorized: !creds.insecureSkipTlsVerify, servername: creds.tlsServerName } : {}),
      });
      const signal = init.signal;
      const abort = () => req.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      // every error (an abort, a reset while the body streams) is handled: reject before the answer, else the body errs
      req.on('error', reject);
      req.once('response', (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
        const status = res.statusCode ?? 500;
        const body = status === 204 || status === 304 || init.method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: res.statusMessage, headers: h }));
      });
      if (b === undefined || b === null) req.end();
      else if (typeof b === 'string' || b instanceof Uint8Array) req.end(b);
      else reject(new TypeError('unsupported request body'));
    });
}
