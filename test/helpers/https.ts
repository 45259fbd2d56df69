// JSON requests over https with an explicit CA and optional client certificate or bearer token.
import { request } from 'node:https';

export interface HttpsOptions {
  ca: string;
  cert?: string;
  key?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface HttpsResp {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

export function httpsCall(url: string, method: string, o: HttpsOptions, body?: unknown): Promise<HttpsResp> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...o.headers };
    if (o.token !== undefined) headers.Authorization = `Bearer ${o.token}`;
    const data = body === undefined ? undefined : JSON.stringify(body);
    if (data) headers['Content-Type'] = 'application/json';
    const req = request(url, { method, ca: o.ca, cert: o.cert, key: o.key, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

export const whoamiBody = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
