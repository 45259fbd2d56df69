// Real local HTTPS admission webhook servers for tests (openssl-made certificates, loopback only), and the shared
// fixture of a test file: one webhook server and one API server, webhook configurations and policies removed after
// each test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import type { ServerFlags } from '../../src/server/flags.js';
import { client, testServer } from './server.js';

export interface Cert {
  cert: string;
  key: string;
  /** caBundle value: the self-signed certificate, base64 PEM. */
  caBundle: string;
}

export function makeCert(san: string): { cert: Cert; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-webhook-'));
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=webhook', '-addext', `subjectAltName=${san}`], { stdio: 'ignore' });
  const pem = readFileSync(cert, 'utf8');
  const out = { cert: pem, key: readFileSync(key, 'utf8'), caBundle: Buffer.from(pem).toString('base64') };
  return { cert: out, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  review: any;
}

export type Reply = (review: any, path: string) => Promise<unknown> | unknown;

/** An HTTPS webhook whose answer per path is set by the test; every review it receives is recorded. */
export class WebhookServer {
  readonly received: Received[] = [];
  private server: Server;
  reply: Reply = (r) => allow(r);
  port = 0;

  constructor(cert: Cert) {
    this.server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.received.push({ path: req.url ?? '', headers: req.headers, review });
        const out = await this.reply(review, req.url ?? '');
        if (res.destroyed) return;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(out));
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  reviewsFor(path: string): any[] {
    return this.received.filter((r) => r.path === path).map((r) => r.review);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export function allow(review: any, extra: Record<string, unknown> = {}): unknown {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true, ...extra } };
}

export function deny(review: any, status: Record<string, unknown>): unknown {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status } };
}

export function patch(review: any, ops: unknown[]): unknown {
  return allow(review, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
}

/** A webhook entry for a configuration (v1 defaults left to the server). */
export function hook(name: string, url: string, caBundle: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
    ...extra,
  };
}

export const AR = '/apis/admissionregistration.service.io/v1';

export interface WebhookFixture {
  wh: WebhookServer;
  /** caBundle of the webhook's certificate, for clientConfig. */
  caBundle: string;
  api: ApiServer;
  c: ReturnType<typeof client>;
}

/**
 * One webhook server and one API server for the test file (namespace `default` created), set up in beforeAll and
 * closed in afterAll. After each test the webhook answers allow again, forgets what it received, and every webhook
 * configuration and admission policy is deleted. The returned object is filled in beforeAll.
 */
export function useWebhookFixture(opts: { san?: string; flags?: Partial<ServerFlags> } = {}): WebhookFixture {
  const f = {} as WebhookFixture;
  let cleanup = () => {};
  beforeAll(async () => {
    const made = makeCert(opts.san ?? 'IP:127.0.0.1');
    cleanup = made.cleanup;
    f.caBundle = made.cert.caBundle;
    f.wh = await new WebhookServer(made.cert).start();
    f.api = await testServer(opts.flags);
    f.c = client(f.api.url);
    await f.c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  afterAll(async () => {
    await f.wh?.close();
    await f.api?.close();
    cleanup();
  });
  afterEach(async () => {
    f.wh.reply = (r) => allow(r);
    f.wh.received.length = 0;
    for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicybindings', 'validatingadmissionpolicies'])
      await f.c.del(`${AR}/${kind}`);
  });
  return f;
}
