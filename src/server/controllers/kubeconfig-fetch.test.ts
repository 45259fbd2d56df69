import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { kubeconfigFetch } from './kubeconfig-fetch.js';

describe('kubeconfigFetch', () => {
  it('sends a DELETE body with its length (node:http sends none for DELETE: the server read garbage, 400)', async () => {
    const seen: { method?: string; length?: string; body: string; auth?: string }[] = [];
    const srv = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, length: req.headers['content-length'], body, auth: req.headers.authorization });
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const f = kubeconfigFetch({ server: url, context: 'c', insecureSkipTlsVerify: false, username: 'u', password: 'p' });
    const body = JSON.stringify({ kind: 'DeleteOptions', preconditions: { uid: 'ü' } });
    // twice on the kept-alive connection: the second request is not taken for the first one's body
    for (let i = 0; i < 2; i++) {
      const r = await f(`${url}/api/v1/namespaces/a/pods/p`, { method: 'DELETE', body, headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ ok: true });
    }
    expect(seen).toEqual([0, 1].map(() => ({ method: 'DELETE', length: String(Buffer.byteLength(body)), body, auth: `Basic ${Buffer.from('u:p').toString('base64')}` })));
    srv.close();
  });
});
