// PKCS#10 certificate signing requests as upstream's certificates validation reads them (validateCSR:
// certificates.ParseCSR then CheckSignature): one PEM "CERTIFICATE REQUEST" block, a DER
// CertificationRequest, and a signature that verifies with the request's own public key.
// Also the PEM CERTIFICATE check for status.certificate (validateCertificate).
import { X509Certificate, createPublicKey, verify } from 'node:crypto';

interface Tlv {
  tag: number;
  /** the whole element (tag, length and content) */
  full: Buffer;
  content: Buffer;
}

/** One DER element at `at`; throws on truncation or indefinite/overlong lengths. */
function readTlv(buf: Buffer, at: number): Tlv & { end: number } {
  if (at + 2 > buf.length) throw new Error('asn1: syntax error: data truncated');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('asn1: syntax error: indefinite length found (not DER)');
    if (p + n > buf.length) throw new Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    p += n;
  }
  if (p + len > buf.length) throw new Error('asn1: syntax error: data truncated');
  return { tag, full: buf.subarray(at, p + len), content: buf.subarray(p, p + len), end: p + len };
}

function children(t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < t.content.length; ) {
    const c = readTlv(t.content, at);
    out.push(c);
    at = c.end;
  }
  return out;
}

function oidString(b: Buffer): string {
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if (!(b[i]! & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

// signature algorithm OID -> node digest name (null: the key type implies it, Ed25519)
const SIG_ALGS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** PEM blocks in order (type, headers present, DER bytes). */
function pemBlocks(text: string): { type: string; headers: boolean; der: Buffer }[] {
  const out: { type: string; headers: boolean; der: Buffer }[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const body = m[2]!;
    const headers = /^[^\n]*:/.test(body);
    out.push({ type: m[1]!, headers, der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return out;
}

/** Error text upstream reports for spec.request, or undefined when the request parses and its signature verifies. */
export function csrRequestError(request: Buffer): string | undefined {
  const block = pemBlocks(request.toString('latin1'))[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  try {
    const top = readTlv(block.der, 0);
    if (top.tag !== 0x30 || top.end !== block.der.length) throw new Error('x509: malformed certificate request');
    const [info, alg, sig] = children(top);
    if (!info || !alg || !sig || info.tag !== 0x30 || alg.tag !== 0x30 || sig.tag !== 0x03) throw new Error('x509: malformed certificate request');
    const infoParts = children(info);
    const spki = infoParts[2];
    if (!spki || spki.tag !== 0x30) throw new Error('x509: malformed certificate request');
    const oid = children(alg)[0];
    if (!oid || oid.tag !== 0x06) throw new Error('x509: malformed certificate request');
    const algName = oidString(oid.content);
    if (!(algName in SIG_ALGS)) return 'x509: cannot verify signature: algorithm unimplemented';
    const key = createPublicKey({ key: spki.full, format: 'der', type: 'spki' });
    const signature = sig.content.subarray(1); // BIT STRING: leading unused-bits octet
    if (!verify(SIG_ALGS[algName] ?? null, info.full, key, signature)) {
      return key.asymmetricKeyType === 'rsa' ? 'crypto/rsa: verification error' : `x509: ${key.asymmetricKeyType === 'ec' ? 'ECDSA' : 'Ed25519'} verification failure`;
    }
    return undefined;
  } catch (e) {
    const msg = (e as Error).message;
    return msg.startsWith('asn1:') || msg.startsWith('x509:') ? msg : `x509: malformed certificate request`;
  }
}

/** Error text upstream reports for a non-empty status.certificate, or undefined when it holds CERTIFICATE blocks only. */
export function certificateError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem.toString('latin1'));
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (b.headers) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(b.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}
