// Certificates for an embedded server started from a test (as envtest generates its own CA, serving
// certificate and admin client certificate): a CA, a serving certificate for 127.0.0.1/localhost and
// client certificates (CN = user, O = groups). The ASN.1 structures come from @peculiar/asn1-x509;
// keys and signatures from node:crypto (ECDSA P-256, SHA-256).
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier, AttributeTypeAndValue, AttributeValue, BasicConstraints, Certificate, ExtendedKeyUsage, Extension, Extensions,
  GeneralName, KeyUsage, KeyUsageFlags, Name, RelativeDistinguishedName, SubjectAlternativeName, SubjectPublicKeyInfo, TBSCertificate, Validity,
  id_ce_basicConstraints, id_ce_extKeyUsage, id_ce_keyUsage, id_ce_subjectAltName, id_kp_clientAuth, id_kp_serverAuth,
} from '@peculiar/asn1-x509';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';

export interface KeyPair {
  /** PEM certificate */
  readonly cert: string;
  /** PEM PKCS#8 private key */
  readonly key: string;
}

interface Issuer {
  readonly name: Name;
  readonly key: KeyObject;
}

function name(cn: string, orgs: readonly string[] = []): Name {
  const rdn = (type: string, v: string) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: v }) })]);
  return new Name([...orgs.map((o) => rdn(OID_O, o)), rdn(OID_CN, cn)]);
}

function ext(id: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID: id, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function pem(label: string, der: Buffer | ArrayBuffer): string {
  const b64 = Buffer.from(der as ArrayBuffer).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function issue(subject: Name, issuer: Issuer | undefined, extensions: Extension[], validDays: number): KeyPair & { issuer: Issuer } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = issuer ?? { name: subject, key: privateKey };
  const now = Date.now();
  const serial = randomBytes(16);
  // a positive DER INTEGER with no leading zero octet (0x00 before a byte < 0x80 is "illegal padding")
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const tbs = new TBSCertificate({
    version: 2, // v3
    serialNumber: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.length),
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    issuer: signer.name,
    validity: new Validity({ notBefore: new Date(now - 60_000), notAfter: new Date(now + validDays * 86_400_000) }),
    subject,
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions(extensions),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const signature = sign('sha256', tbsDer, signer.key); // DER ECDSA-Sig-Value, as X.509 wants
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }), signatureValue: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.length) });
  return {
    cert: pem('CERTIFICATE', AsnConvert.serialize(cert)),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    issuer: { name: subject, key: privateKey },
  };
}

export class CertificateAuthority {
  readonly cert: string;
  readonly key: string;
  private readonly self: Issuer;

  constructor(commonName = 'periscope-ca', validDays = 365) {
    const keyUsage = new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature);
    const ca = issue(name(commonName), undefined, [ext(id_ce_basicConstraints, true, new BasicConstraints({ cA: true })), ext(id_ce_keyUsage, true, keyUsage)], validDays);
    this.cert = ca.cert;
    this.key = ca.key;
    this.self = ca.issuer;
  }

  /** A serving certificate for the given IP addresses and DNS names. */
  serving(ips: readonly string[] = ['127.0.0.1', '::1'], dnsNames: readonly string[] = ['localhost'], validDays = 365): KeyPair {
    const san = new SubjectAlternativeName([...ips.map((ip) => new GeneralName({ iPAddress: ip })), ...dnsNames.map((d) => new GeneralName({ dNSName: d }))]);
    return this.leaf(name(dnsNames[0] ?? ips[0] ?? 'periscope'), [ext(id_ce_subjectAltName, false, san), ext(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth]))], validDays);
  }

  /** A client certificate: the API server reads user = CN, groups = O (upstream's x509 authenticator). */
  client(user: string, groups: readonly string[] = [], validDays = 365): KeyPair {
    return this.leaf(name(user, groups), [ext(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_clientAuth]))], validDays);
  }

  private leaf(subject: Name, extensions: Extension[], validDays: number): KeyPair {
    const usage = new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment);
    const { cert, key } = issue(subject, this.self, [ext(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })), ext(id_ce_keyUsage, true, usage), ...extensions], validDays);
    return { cert, key };
  }
}

/** For tests: the private key in a PEM parses. */
export function parsesAsKey(pemKey: string): boolean {
  try {
    createPrivateKey(pemKey);
    return true;
  } catch {
    return false;
  }
}
