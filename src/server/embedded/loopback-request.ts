// JSON requests to the embedded server itself (readiness, CRD install), with its CA and the admin's
// credentials. Only the server's own loopback URL is ever dialled.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface LoopbackCall {
  url: string;
  ca?: string;
  token?: string;
  cert?: string;
  key?: string;
}

/** Longest response read (the CRD and health answers it reads are small). */
const MAX_BODY = 8 << 20;

export function requestJson(call: LoopbackCall, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const u = new URL(path, call.url);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (data) headers['Content-Type'] = 'application/json';
  if (call.token) headers.Authorization = `Bearer ${call.token}`;
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(u, { method, headers, ca: call.ca, cert: call.cert, key: call.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy(new Error('response too large'));
        else chunks.push(c);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON (health endpoints answer text) */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}
