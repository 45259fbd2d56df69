// Client certificates (--client-ca-file): a certificate verified against the client CA gives
// user = subject CN and groups = subject O values (upstream pkg/authentication/request/x509).
// The TLS handshake does the verification (requestCert, rejectUnauthorized: false, ca = client CA).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { CREDENTIAL_ID_KEY, type UserInfo } from './user.js';

export type CertResult = { user: UserInfo } | { error: string } | undefined;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The user of the request's verified client certificate; an error for a presented but unverified one; undefined when none. */
export function authenticateClientCert(req: IncomingMessage): CertResult {
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  if (!socket.authorized) return { error: `verifying certificate: ${String(socket.authorizationError ?? 'unknown authority')}` };
  const cn = list(cert.subject?.CN)[0] ?? '';
  if (cn === '') return { error: 'the client certificate has no common name' };
  const fingerprint = (cert.fingerprint256 ?? '').replace(/:/g, '').toLowerCase();
  return { user: { name: cn, uid: '', groups: list(cert.subject?.O), extra: fingerprint ? { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } : {} } };
}
