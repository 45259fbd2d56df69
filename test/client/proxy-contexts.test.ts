// Proxy mode: every context of the kubeconfig can be switched to without a restart; the switch is a
// same-origin write, and the old context's watches end.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { startProxyServer, type ProxyServer } from '../../src/server/proxy/proxy.js';
import { client, testServer } from '../helpers/server.js';

describe('proxy contexts', () => {
  let one: ApiServer;
  let two: ApiServer;
  let proxy: ProxyServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'periscope-ctx-'));
    writeFileSync(join(dir, 'tokens.csv'), 'secret-token,someone,1,"system:masters"\n');
    [one, two] = await Promise.all([testServer({ tokenAuthFile: join(dir, 'tokens.csv') }), testServer({ tokenAuthFile: join(dir, 'tokens.csv') })]);
    const auth = { Authorization: 'Bearer secret-token' };
    await client(one.url).post('/api/v1/namespaces', { metadata: { name: 'only-in-one' } }, auth);
    await client(two.url).post('/api/v1/namespaces', { metadata: { name: 'only-in-two' } }, auth);
    const kc = join(dir, 'kc.yaml');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\ncurrent-context: first\nclusters:\n- name: c1\n  cluster: {server: "${one.url}"}\n- name: c2\n  cluster: {server: "${two.url}"}\nusers:\n- name: u\n  user: {token: secret-token}\ncontexts:\n- name: first\n  context: {cluster: c1, user: u}\n- name: second\n  context: {cluster: c2, user: u, namespace: team}\n`,
    );
    proxy = await startProxyServer({ port: 0, kubeconfig: kc, staticDir: '', requestLog: false }, { log: () => {} });
  });
  afterAll(async () => {
    await proxy.close();
    await Promise.all([one.close(), two.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const names = async () => ((await client(proxy.url).get('/api/v1/namespaces')).body.items as { metadata: { name: string } }[]).map((n) => n.metadata.name);

  test('lists the contexts (no credentials) and switches between them without a restart', async () => {
    const c = client(proxy.url);
    const list = await c.get('/periscope/contexts');
    expect(list.body).toEqual({
      current: 'first',
      server: one.url,
      contexts: [
        { name: 'first', cluster: 'c1', user: 'u', server: one.url },
        { name: 'second', cluster: 'c2', user: 'u', namespace: 'team', server: two.url },
      ],
    });
    expect(list.text).not.toContain('secret-token');
    expect(await names()).toContain('only-in-one');

    // a watch of the first context ends when the context changes
    const watch = await fetch(`${proxy.url}/api/v1/namespaces?watch=true`);
    const reader = watch.body!.getReader();
    await reader.read();
    const switched = await c.post('/periscope/contexts', { context: 'second' });
    expect(switched.status).toBe(200);
    expect(switched.body.current).toBe('second');
    expect(proxy.context).toBe('second');
    // the old watch ends (closed or broken off), it does not go on streaming the first cluster
    const ended = await (async () => {
      try {
        for (;;) if ((await reader.read()).done) return true;
      } catch {
        return true;
      }
    })();
    expect(ended).toBe(true);
    expect(await names()).toContain('only-in-two');
    expect(await names()).not.toContain('only-in-one');
  });

  test('refuses unknown contexts (400), bad bodies (400, 413) and cross-site switches (403)', async () => {
    const c = client(proxy.url);
    expect((await c.post('/periscope/contexts', { context: 'nope' })).status).toBe(400);
    expect((await c.post('/periscope/contexts', 'not json')).status).toBe(400);
    expect((await c.post('/periscope/contexts', { context: 'x'.repeat(10_000) })).status).toBe(413);
    expect((await c.post('/periscope/contexts', { context: 'first' }, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await c.put('/periscope/contexts', { context: 'first' })).status).toBe(405);
    expect(proxy.context).toBe('second');
  });
});
