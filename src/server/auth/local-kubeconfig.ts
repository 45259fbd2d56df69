// The data directory's admin credentials (as k3s writes /etc/rancher/k3s/k3s.yaml): a random admin
// token kept in <data-dir>/admin-token and a kubeconfig using it, so kubectl works once
// authentication is turned on.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ADMIN_TOKEN_FILE = 'admin-token';
export const KUBECONFIG_FILE = 'kubeconfig';

/** A fresh random admin token (kept in memory when nothing is written to disk). */
export function newAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

export function loadOrCreateAdminToken(dataDir: string): string {
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  mkdirSync(dataDir, { recursive: true });
  const token = newAdminToken();
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** The admin kubeconfig's text for the server URL and token; the serving certificate is its CA. */
export function localKubeconfigText(serverUrl: string, token: string, servingCertFile?: string): string {
  const ca = servingCertFile ? `    certificate-authority-data: ${readFileSync(servingCertFile).toString('base64')}\n` : '';
  return (
    'apiVersion: v1\nkind: Config\nclusters:\n- name: periscope\n  cluster:\n' +
    `    server: ${serverUrl}\n${ca}` +
    'contexts:\n- name: periscope\n  context:\n    cluster: periscope\n    user: admin\ncurrent-context: periscope\n' +
    `users:\n- name: admin\n  user:\n    token: ${token}\n`
  );
}

/** Writes <data-dir>/kubeconfig (mode 0600) for the admin token; the serving certificate is its CA. Returns its absolute path. */
export function writeLocalKubeconfig(dataDir: string, serverUrl: string, token: string, servingCertFile?: string): string {
  const file = resolve(dataDir, KUBECONFIG_FILE);
  const text = localKubeconfigText(serverUrl, token, servingCertFile);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
