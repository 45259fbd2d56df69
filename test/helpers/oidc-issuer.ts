// A real local HTTPS OIDC issuer for tests: discovery documents per issuer path, a JWKS that can be
// rotated, tokens signed with jose. Serves with a certificate of a test CA.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import type { CertFiles } from './tls.js';
import { readFileSync } from 'node:fs';

export interface IssuerKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: jose.JWK;
}

export async function makeKey(kid: string, alg = 'RS256'): Promise<IssuerKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey: privateKey as CryptoKey, jwk: { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export class OidcIssuer {
  private server?: Server;
  port = 0;
  keys: IssuerKey[] = [];
  /** Discovery documents served: issuer path -> issuer value written into the document (defaults to the URL itself). */
  issuerOverride = new Map<string, string>();
  jwksFetches = 0;
  discoveryFetches = 0;
  /** When set, discovery documents are answered with this status (an issuer whose discovery is down). */
  discoveryDown?: number;

  constructor(private readonly cert: CertFiles) {}

  get base(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  url(path = ''): string {
    return this.base + path;
  }

  async start(port = 0): Promise<void> {
    const server = createServer({ cert: readFileSync(this.cert.cert), key: readFileSync(this.cert.key) }, (req, res) => {
      const path = new URL(req.url ?? '/', this.base).pathname;
      if (path.endsWith('/.well-known/openid-configuration')) {
        this.discoveryFetches++;
        if (this.discoveryDown) {
          res.writeHead(this.discoveryDown).end();
          return;
        }
        const issuerPath = path.slice(0, -'/.well-known/openid-configuration'.length);
        const doc = { issuer: this.issuerOverride.get(issuerPath) ?? this.url(issuerPath), jwks_uri: this.url('/jwks') };
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(doc));
        return;
      }
      if (path === '/jwks') {
        this.jwksFetches++;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Signs claims with a key (default: the first); iat/exp default to now and now + 1h. */
  async sign(claims: Record<string, unknown>, key: IssuerKey = this.keys[0]!): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({ iat: now, exp: now + 3600, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  }
}
