// certificates.k8s.io/v1 CertificateSigningRequests: upstream's create validation (request, signerName, usages,
// expirationSeconds), the requester recorded from the caller, and the /approval and /status sub-resources
// (kubectl certificate approve / deny through the stock kubectl).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
let kc: string;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
  kc = kubeconfigFor(server.url);
});
afterAll(() => server.close());

// an ECDSA P-256 PKCS#10 request (CN=alice, O=dev) and a self-signed certificate, both made with openssl
const REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIWk1JR0FBZ0VBTUI0eERqQU1CZ05WQkFNTUJXRnNhV05sTVF3d0NnWURWUVFLREFOa1pYWXdXVEFUQmdjcQpoa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVRlYlM0dkFzSlM0UDNSUWIwVWxWQmlzYWxOaFZxRW8zNm83Z0N0CkxJbUZ3N1hsUTdRdzR5U0RqaFNxeE5hUTZRZ0V6SXViRTZ0RUk0YmhFOVhZVms4OW9BQXdDZ1lJS29aSXpqMEUKQXdJRFNBQXdSUUlnWTkrWFk1bHdrLzA5Q1B3NEVaczU0dENiUElWellxZU04MERNWkN4RkVZNENJUUNoWE5rMgpsSEJHZGdXcHptQ3JzSVhhWEJPS0NkRExNaWlQOW5hdHB2MWtpUT09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
const CERT = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkakNDQVIyZ0F3SUJBZ0lVRUdPY2h2ZWVpYnk0SjRNMzk0RE1rNXg0V1pJd0NnWUlLb1pJemowRUF3SXcKRVRFUE1BMEdBMVVFQXd3R2FYTnpkV1ZrTUI0WERUSTJNVEV5TlRBd05ERXlNRm9YRFRNMk1URXlNakF3TkRFeQpNRm93RVRFUE1BMEdBMVVFQXd3R2FYTnpkV1ZrTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFCnhBVmtCZFAybjcydVNYVDZXb1h4WDcyTTJsR3VLdEg3a0FtN2E4SWZaT05OMUwrR3RxUVNlRXFUUTVob3UxSkQKSFI3T0wrNE9aeU1SQ1Q3SitTOUlRYU5UTUZFd0hRWURWUjBPQkJZRUZBVHNpckd5NlArZ2lVSlY3cDkrZGw4bQo1YWQrTUI4R0ExVWRJd1FZTUJhQUZBVHNpckd5NlArZ2lVSlY3cDkrZGw4bTVhZCtNQThHQTFVZEV3RUIvd1FGCk1BTUJBZjh3Q2dZSUtvWkl6ajBFQXdJRFJ3QXdSQUlnVW4zdkt1cVNVRDhhT05oVnMxU3dnaytZTS9ZYTc1emcKb3Z4Mit6MnlUeEFDSUFOQS9uY3p3SEowOFpaSGJ3SWRWaDlMUzVUb3dMcUJ2bmMzZlI0UkNLYW4KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

function csr(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: REQUEST, signerName: 'example.com/signer', usages: ['client auth'], ...spec },
  };
}

function causes(body: any): string[] {
  return (body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
}

describe('CertificateSigningRequest create', () => {
  it('stores a valid request with the requester from the caller and a dropped status', async () => {
    const r = await api.post(CSRS, { ...csr('ok', { username: 'mallory', groups: ['x'] }), status: { conditions: [{ type: 'Approved', status: 'True' }] } });
    expect(r.status).toBe(201);
    expect(r.body.apiVersion).toBe('certificates.k8s.io/v1');
    expect(r.body.spec.username).not.toBe('mallory');
    expect(r.body.spec.groups).not.toEqual(['x']);
    expect(r.body.status ?? {}).toEqual({});
    const canon = await api.get('/apis/certificates.service.io/v1/certificatesigningrequests/ok');
    expect(canon.body.apiVersion).toBe('certificates.service.io/v1');
  });

  it('rejects a request that is not a PEM CERTIFICATE REQUEST, or whose signature does not verify', async () => {
    const notPem = await api.post(CSRS, csr('bad1', { request: Buffer.from('hello').toString('base64') }));
    expect(notPem.status).toBe(422);
    expect(causes(notPem.body).join('\n')).toContain('spec.request: Invalid value');
    expect(causes(notPem.body).join('\n')).toContain('PEM block type must be CERTIFICATE REQUEST');
    const wrongType = await api.post(CSRS, csr('bad2', { request: CERT }));
    expect(causes(wrongType.body).join('\n')).toContain('PEM block type must be CERTIFICATE REQUEST');
    // flip one byte of the signature
    const pem = Buffer.from(REQUEST, 'base64').toString();
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 5] ^= 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const sig = await api.post(CSRS, csr('bad3', { request: Buffer.from(tampered).toString('base64') }));
    expect(sig.status).toBe(422);
    expect(causes(sig.body).join('\n')).toMatch(/spec\.request: .*(verification failure|asn1|x509)/);
  });

  it('checks signerName, usages and expirationSeconds as upstream', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ signerName: 'nodomain' }, "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'"],
      [{ signerName: 'example/signer' }, 'spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots'],
      [{ signerName: 'kubernetes.io/legacy-unknown' }, 'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version'],
      [{ usages: [] }, 'spec.usages: Required value'],
      [{ usages: ['client auth', 'client auth'] }, 'spec.usages[1]: Duplicate value: "client auth"'],
      [{ usages: ['flying'] }, 'spec.usages[0]: Unsupported value: "flying"'],
      [{ expirationSeconds: 599 }, 'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)'],
    ];
    for (const [spec, want] of cases) {
      const r = await api.post(CSRS, csr('v', spec));
      expect(r.status, JSON.stringify(spec)).toBe(422);
      expect(causes(r.body).some((c) => c.startsWith(want)), `${JSON.stringify(spec)} -> ${causes(r.body).join(' | ')}`).toBe(true);
    }
  });
});

describe('CertificateSigningRequest sub-resources', () => {
  it('approves through /approval only; the spec never changes; the certificate is set through /status only', async () => {
    expect((await api.post(CSRS, csr('flow', { expirationSeconds: 3600 }))).status).toBe(201);
    const cur = (await api.get(`${CSRS}/flow`)).body;
    const approved = { ...cur, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] } };
    // the main resource and /status may not add an approval condition
    const viaStatus = await api.put(`${CSRS}/flow/status`, approved);
    expect(viaStatus.status).toBe(422);
    expect(causes(viaStatus.body).join('\n')).toContain('updates may not add a condition of type "Approved"');
    // the main resource keeps the stored status and spec
    const main = await api.put(`${CSRS}/flow`, { ...approved, spec: { ...cur.spec, signerName: 'other.io/x' } });
    expect(main.status).toBe(200);
    expect(main.body.status ?? {}).toEqual({});
    expect(main.body.spec.signerName).toBe('example.com/signer');
    // a certificate through /approval is dropped (only conditions change there)
    const r = await api.put(`${CSRS}/flow/approval`, { ...main.body, status: { ...approved.status, certificate: CERT } });
    expect(r.status).toBe(200);
    expect(r.body.status.conditions).toHaveLength(1);
    expect(r.body.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True' });
    expect(r.body.status.conditions[0].lastUpdateTime).toBeTruthy();
    expect(r.body.status.certificate).toBeUndefined();
    // Denied next to Approved is refused
    const both = await api.put(`${CSRS}/flow/approval`, { ...r.body, status: { conditions: [...r.body.status.conditions, { type: 'Denied', status: 'True' }] } });
    expect(both.status).toBe(422);
    expect(causes(both.body).join('\n')).toContain('Approved and Denied conditions are mutually exclusive');
    // removing the approval is refused
    const removed = await api.put(`${CSRS}/flow/approval`, { ...r.body, status: { conditions: [] } });
    expect(removed.status).toBe(422);
    expect(causes(removed.body).join('\n')).toContain('updates may not remove a condition of type "Approved"');
    // the signer issues through /status; garbage is refused and a set certificate may not change
    const junk = await api.put(`${CSRS}/flow/status`, { ...r.body, status: { ...r.body.status, certificate: Buffer.from('nope').toString('base64') } });
    expect(junk.status).toBe(422);
    expect(causes(junk.body).join('\n')).toContain('must contain at least one CERTIFICATE PEM block');
    const issued = await api.put(`${CSRS}/flow/status`, { ...r.body, status: { ...r.body.status, certificate: CERT } });
    expect(issued.status).toBe(200);
    expect(issued.body.status.certificate).toBe(CERT);
    const viaMain = await api.put(`${CSRS}/flow`, { ...issued.body, metadata: { ...issued.body.metadata, labels: { a: 'b' } } });
    expect(viaMain.status).toBe(200);
    expect(viaMain.body.status.certificate).toBe(CERT);
  });

  it('kubectl certificate approve and deny, and get csr prints the condition column', async () => {
    for (const n of ['k-approve', 'k-deny']) expect((await api.post(CSRS, csr(n, { expirationSeconds: 86400 }))).status).toBe(201);
    // by file, in the upstream spelling: kubectl maps certificates.k8s.io/v1 and re-reads the object through that group
    // (by bare name: test/kubectl/discovery-spelling.test.ts)
    const file = (n: string) => {
      const f = join(mkdtempSync(join(tmpdir(), 'csr-')), 'csr.yaml');
      writeFileSync(f, `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${n}\n`);
      return f;
    };
    const ok = await kubectl(kc, ['certificate', 'approve', '-f', file('k-approve')]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('certificatesigningrequest.certificates.k8s.io/k-approve approved');
    const no = await kubectl(kc, ['certificate', 'deny', '-f', file('k-deny')]);
    expect(no.stdout).toContain('certificatesigningrequest.certificates.k8s.io/k-deny denied');
    const a = (await api.get(`${CSRS}/k-approve`)).body;
    expect(a.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'KubectlApprove' });
    const get = await kubectl(kc, ['get', 'csr', 'k-approve', 'k-deny']);
    expect(get.code).toBe(0);
    const lines = get.stdout.trim().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    expect(lines[1]).toMatch(/^k-approve\s+\S+\s+example\.com\/signer\s+\S+\s+24h\s+Approved$/);
    expect(lines[2]).toMatch(/^k-deny\s+.*\s+Denied$/);
  });
});
