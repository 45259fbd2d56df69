// Kubeconfig reading for proxy mode: the chosen context's cluster and user, with file references resolved
// relative to the kubeconfig and the *-data forms decoded. Credentials stay on the server side.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

export interface ClusterCredentials {
  /** The cluster's API URL, e.g. https://10.0.0.1:6443 (may carry a path prefix). */
  server: string;
  context: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  username?: string;
  password?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
}

export class KubeconfigError extends Error {}

interface Named<T> {
  name: string;
  [k: string]: unknown;
  value?: T;
}

type Dict = Record<string, unknown>;

function pick(list: unknown, name: string, field: string, what: string): Dict {
  const arr = Array.isArray(list) ? (list as Named<unknown>[]) : [];
  const found = arr.find((e) => e && e.name === name);
  if (!found) throw new KubeconfigError(`${what} "${name}" not found in kubeconfig`);
  return (found[field] as Dict) ?? {};
}

function str(d: Dict, k: string): string | undefined {
  const v = d[k];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function loadKubeconfig(path: string, contextName?: string): ClusterCredentials {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(e as Error).message}`);
  }
  let doc: Dict;
  try {
    doc = (parse(text) ?? {}) as Dict;
  } catch (e) {
    throw new KubeconfigError(`kubeconfig ${path} is not valid YAML: ${(e as Error).message}`);
  }
  const base = dirname(resolve(path));
  const file = (p: string) => {
    const full = isAbsolute(p) ? p : resolve(base, p);
    try {
      return readFileSync(full);
    } catch (e) {
      throw new KubeconfigError(`cannot read ${full} (referenced by the kubeconfig): ${(e as Error).message}`);
    }
  };
  const dataOrFile = (d: Dict, dataKey: string, fileKey: string): Buffer | undefined => {
    const data = str(d, dataKey);
    if (data) return Buffer.from(data, 'base64');
    const f = str(d, fileKey);
    return f ? file(f) : undefined;
  };

  const ctxName = contextName || str(doc, 'current-context');
  if (!ctxName) throw new KubeconfigError('the kubeconfig has no current-context; pass --context');
  const ctx = pick(doc.contexts, ctxName, 'context', 'context');
  const clusterName = str(ctx, 'cluster');
  if (!clusterName) throw new KubeconfigError(`context "${ctxName}" names no cluster`);
  const cluster = pick(doc.clusters, clusterName, 'cluster', 'cluster');
  const server = str(cluster, 'server');
  if (!server) throw new KubeconfigError(`cluster "${clusterName}" has no server`);
  const userName = str(ctx, 'user');
  const user = userName ? pick(doc.users, userName, 'user', 'user') : {};
  if (user.exec || user['auth-provider'])
    throw new KubeconfigError(`user "${userName}" uses an exec or auth-provider plugin, which proxy mode does not run; use a token or client certificate`);

  let token = str(user, 'token');
  const tokenFile = str(user, 'tokenFile');
  if (!token && tokenFile) token = file(tokenFile).toString('utf8').trim();
  return {
    server: server.replace(/\/+$/, ''),
    context: ctxName,
    ca: dataOrFile(cluster, 'certificate-authority-data', 'certificate-authority'),
    cert: dataOrFile(user, 'client-certificate-data', 'client-certificate'),
    key: dataOrFile(user, 'client-key-data', 'client-key'),
    token,
    username: str(user, 'username'),
    password: str(user, 'password'),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster, 'tls-server-name'),
  };
}
