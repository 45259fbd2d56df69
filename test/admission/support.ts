// Real local HTTPS admission webhook servers for tests (openssl-made certificates).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
