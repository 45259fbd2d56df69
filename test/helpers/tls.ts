// Test certificates made with the openssl CLI: a CA, and server/client certificates it signs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertFiles {
  cert: string;
  key: string;
  /** PEM text of the certificate. */
  pem: string;
}

export class TestCA {
  readonly dir = mkdtempSync(join(tmpdir(), 'periscope-tls-'));
  readonly ca: CertFiles;

  constructor(name = 'test-ca') {
    this.ca = this.files('ca');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', this.ca.key, '-out', this.ca.cert, '-days', '2', '-subj', `/CN=${name}`], { stdio: 'ignore' });
    this.ca.pem = readFileSync(this.ca.cert, 'utf8');
  }

  private files(name: string): CertFiles {
    return { cert: join(this.dir, `${name}.crt`), key: join(this.dir, `${name}.key`), pem: '' };
  }

  /** A certificate signed by this CA: subject CN and O values, optional subjectAltName (e.g. IP:127.0.0.1). */
  issue(name: string, cn: string, orgs: string[] = [], san?: string): CertFiles {
    const f = this.files(name);
    const csr = join(this.dir, `${name}.csr`);
    const subj = orgs.map((o) => `/O=${o}`).join('') + `/CN=${cn}`;
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f.key, '-out', csr, '-subj', subj], { stdio: 'ignore' });
    const ext = join(this.dir, `${name}.ext`);
    writeFileSync(ext, san ? `subjectAltName=${san}\n` : 'basicConstraints=CA:FALSE\n');
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', this.ca.cert, '-CAkey', this.ca.key, '-CAcreateserial', '-out', f.cert, '-days', '1', '-extfile', ext], { stdio: 'ignore' });
    f.pem = readFileSync(f.cert, 'utf8');
    return f;
  }

  /** A file in the CA's temporary directory. */
  file(name: string, text: string): string {
    const p = join(this.dir, name);
    writeFileSync(p, text);
    return p;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
