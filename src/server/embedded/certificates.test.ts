import { describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CertificateAuthority, parsesAsKey } from './certificates.js';

describe('embedded certificates', () => {
  const ca = new CertificateAuthority('test-ca');

  it('issues a CA, a serving and a client certificate node:crypto verifies', () => {
    const caCert = new X509Certificate(ca.cert);
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe('CN=test-ca');
    const serving = new X509Certificate(ca.serving().cert);
    expect(serving.verify(caCert.publicKey)).toBe(true);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkHost('localhost')).toBe('localhost');
    const client = new X509Certificate(ca.client('alice', ['system:masters', 'dev']).cert);
    expect(client.verify(caCert.publicKey)).toBe(true);
    expect(client.subject.split('\n')).toEqual(['O=system:masters', 'O=dev', 'CN=alice']);
    expect(parsesAsKey(ca.key)).toBe(true);
  });

  it('every certificate parses: random serial numbers are always minimal positive DER integers', () => {
    // a leading zero octet (1 serial in 256 before) made OpenSSL refuse the certificate ("illegal padding")
    for (let i = 0; i < 300; i++) {
      const c = new X509Certificate(ca.client(`u${i}`).cert);
      expect(c.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });

  it('serves TLS that a client trusting the CA accepts, with a client certificate the server verifies', async () => {
    const s = ca.serving();
    const c = ca.client('bob', ['g1']);
    const server = createServer({ cert: s.cert, key: s.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.end(String(peer.subject.CN));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, ca: ca.cert, cert: c.cert, key: c.key }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve(b));
      }).on('error', reject).end();
    });
    server.close();
    expect(body).toBe('bob');
  });
});
