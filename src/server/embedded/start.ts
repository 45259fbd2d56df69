// `startPeriscope()`: an API server other projects start from their tests, as Go projects start
// envtest (a real kube-apiserver + etcd). Memory store, no controllers and no simulated nodes by
// default (envtest's bare API server); a free port; stop() frees everything it made.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { startServer, type ApiServer } from '../app.js';
import { defaultFlags, type ServerFlags, type StoreKind } from '../flags.js';
import { parseFeatureGates } from '../features.js';
import { CertificateAuthority } from './certificates.js';
import { requestJson } from './loopback-request.js';

export interface PeriscopeOptions {
  /** Listen port; 0 (default) picks a free one, so instances can run side by side. */
  port?: number;
  /** Storage backend (default `memory`). */
  store?: StoreKind;
  /** SQLite directory for `store: 'sqlite'` (default: a temporary directory removed by stop()). */
  dataDir?: string;
  /** etcd client URLs for `store: 'etcd'`. */
  etcdServers?: string[];
  /**
   * Controllers as kube-controller-manager's `--controllers` (`['*']`, `['*', '-deployment']`, …);
   * `true` = all, `false` (default) = none: a bare API server, as envtest.
   */
  controllers?: boolean | string[];
  /** Simulated nodes with a scheduler and kubelets (default 0). */
  simulatedNodes?: number;
  /** Feature gates, as `--feature-gates`. */
  featureGates?: Record<string, boolean>;
  /**
   * `none` (default): a loopback development server, requests without credentials act as the admin.
   * `token`: HTTPS with a generated CA; only the admin bearer token (or other credentials) authenticates.
   * `certificate`: HTTPS; the admin authenticates with a client certificate (CN=periscope-admin, O=system:masters), as envtest's admin user.
   */
  authentication?: 'none' | 'token' | 'certificate';
  /** CustomResourceDefinitions (file paths of YAML/JSON, possibly several documents, or objects) created before start returns; it waits until each is Established. */
  crds?: (string | Record<string, unknown>)[];
  /** How long to wait for the CRDs to be Established (default 30 s). */
  crdTimeoutMs?: number;
  /** Other server flags (as the CLI's, e.g. `{ requestTimeoutMs: 5000 }`). */
  flags?: Partial<ServerFlags>;
  /** Server log lines (default: dropped). */
  log?: (line: string) => void;
}

export interface Periscope {
  /** The server's URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** A kubeconfig (YAML) for the admin: server URL, CA and credentials. */
  readonly kubeconfig: string;
  /** The same kubeconfig in a file (removed by stop()), for `KUBECONFIG=` and kubectl. */
  readonly kubeconfigPath: string;
  /** The admin bearer token (`authentication: 'token'`). */
  readonly token?: string;
  /** The CA that signed the serving certificate (HTTPS only). */
  readonly caCert?: string;
  /** The underlying server, for in-process access. */
  readonly server: ApiServer;
  /** A `@kubernetes/client-node` KubeConfig loaded with the admin kubeconfig (needs `@kubernetes/client-node` installed). */
  client(): import('@kubernetes/client-node').KubeConfig;
  /** Stops the server and removes what start made (temporary files, data directory unless given). */
  stop(): Promise<void>;
}

const ADMIN_USER = 'periscope-admin';

export async function startPeriscope(opts: PeriscopeOptions = {}): Promise<Periscope> {
  // loaded beside the server's start, so client() can be synchronous; absent when the project does not use client-node
  const clientNodeLoad = import('@kubernetes/client-node').catch(() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'periscope-'));
  const auth = opts.authentication ?? 'none';
  const flags: Partial<ServerFlags> = {
    port: opts.port ?? 0,
    store: opts.store ?? 'memory',
    dataDir: opts.dataDir ?? join(dir, 'data'),
    etcdServers: opts.etcdServers ?? [],
    demoData: false,
    simulatedNodes: opts.simulatedNodes ?? 0,
    controllers: opts.controllers === true ? ['*'] : opts.controllers === false || opts.controllers === undefined ? [] : opts.controllers,
    staticDir: '',
    requestLog: false,
    ...opts.flags,
  };
  if (opts.featureGates) flags.featureGates = parseFeatureGates(Object.entries(opts.featureGates).map(([k, v]) => `${k}=${v}`).join(','));

  let ca: CertificateAuthority | undefined;
  let token: string | undefined;
  let clientPair: { cert: string; key: string } | undefined;
  if (auth !== 'none') {
    ca = new CertificateAuthority('periscope-ca');
    const serving = ca.serving();
    writeFileSync(join(dir, 'serving.crt'), serving.cert);
    writeFileSync(join(dir, 'serving.key'), serving.key, { mode: 0o600 });
    writeFileSync(join(dir, 'ca.crt'), ca.cert);
    flags.tlsCertFile = join(dir, 'serving.crt');
    flags.tlsPrivateKeyFile = join(dir, 'serving.key');
    flags.anonymousAuth = false;
    if (auth === 'token') token = randomBytes(32).toString('base64url');
    else {
      flags.clientCaFile = join(dir, 'ca.crt');
      clientPair = ca.client(ADMIN_USER, ['system:masters']);
    }
  }

  let server: ApiServer;
  try {
    server = await startServer({ ...defaultFlags(), ...flags }, { log: opts.log ?? (() => {}), adminToken: token });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const kubeconfig = kubeconfigText(server.url, ca?.cert, token, clientPair);
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= server.close().finally(() => rmSync(dir, { recursive: true, force: true })));

  const call = { url: server.url, ca: ca?.cert, token, cert: clientPair?.cert, key: clientPair?.key };
  let clientNode: Awaited<typeof clientNodeLoad>;
  try {
    await waitReady(call);
    clientNode = await clientNodeLoad;
    if (opts.crds?.length) await installCrds(call, opts.crds, opts.crdTimeoutMs ?? 30_000);
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    url: server.url,
    kubeconfig,
    kubeconfigPath,
    token,
    caCert: ca?.cert,
    server,
    client() {
      if (!clientNode) throw new Error('client() needs @kubernetes/client-node: npm install --save-dev @kubernetes/client-node');
      const kc = new clientNode.KubeConfig();
      kc.loadFromString(kubeconfig);
      // client-node refuses plain http unless told TLS is not verified (there is no TLS to verify)
      if (server.url.startsWith('http:')) kc.loadFromOptions({ clusters: kc.clusters.map((c) => ({ ...c, skipTLSVerify: true })), users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
      return kc;
    },
    stop,
  };
}

function kubeconfigText(url: string, ca: string | undefined, token: string | undefined, client: { cert: string; key: string } | undefined): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const user = token
    ? `  user:\n    token: ${token}\n`
    : client
      ? `  user:\n    client-certificate-data: ${b64(client.cert)}\n    client-key-data: ${b64(client.key)}\n`
      : '  user: {}\n';
  return (
    'apiVersion: v1\nkind: Config\nclusters:\n- name: periscope\n  cluster:\n' +
    `    server: ${url}\n` +
    (ca ? `    certificate-authority-data: ${b64(ca)}\n` : '') +
    'contexts:\n- name: periscope\n  context:\n    cluster: periscope\n    user: admin\ncurrent-context: periscope\n' +
    `users:\n- name: admin\n${user}`
  );
}

type Call = Parameters<typeof requestJson>[0];

async function waitReady(call: Call): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await requestJson(call, 'GET', '/readyz').catch(() => undefined);
    if (r?.status === 200) return;
    if (i > 600) throw new Error('periscope: the server did not become ready');
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** Creates each CRD and waits for its Established condition, as envtest's CRDInstallOptions do. */
async function installCrds(call: Call, crds: (string | Record<string, unknown>)[], timeoutMs: number): Promise<void> {
  const objects: Record<string, unknown>[] = [];
  for (const c of crds) {
    if (typeof c !== 'string') objects.push(c);
    else for (const doc of parseAllDocuments(readFileSync(c, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`periscope: ${c}: ${doc.errors[0]!.message}`);
      const o = doc.toJS() as Record<string, unknown> | null;
      if (o && typeof o === 'object') objects.push(o);
    }
  }
  const names: string[] = [];
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') throw new Error(`periscope: crds: expected CustomResourceDefinition objects, got kind ${String(o.kind)}`);
    const r = await requestJson(call, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', o);
    if (r.status !== 201) throw new Error(`periscope: creating CRD ${String((o.metadata as { name?: string } | undefined)?.name)}: ${r.status} ${(r.body as { message?: string })?.message ?? ''}`);
    names.push((r.body as { metadata: { name: string } }).metadata.name);
  }
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const r = await requestJson(call, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      const conds = ((r.body as { status?: { conditions?: { type: string; status: string }[] } })?.status?.conditions ?? []);
      if (conds.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`periscope: CRD ${name} was not Established within ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }
}
