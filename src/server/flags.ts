// Command-line flags. Names mirror kube-apiserver where one exists.
import { parseFeatureGates, type FeatureGates } from './features.js';
import { cidrErrors, parseCIDR } from './registry/ip-cidr.js';
import { DEFAULT_SERVICE_CIDR } from './registry/builtin-service.js';
import { DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT, DEFAULT_MAX_REQUESTS_INFLIGHT } from './http/inflight.js';
import { parseDuration as parseGoDuration } from '../config/formats.js';
import { DEFAULT_ACCEPT_HOSTS, DEFAULT_REJECT_PATHS, isLoopback, parsePatternList } from './http/request-guard.js';

export type StoreKind = 'memory' | 'sqlite' | 'etcd';

export interface ServerFlags {
  port: number;
  bindAddress: string;
  store: StoreKind;
  dataDir: string;
  /** Whether --data-dir was given (with --store memory nothing is written to the default ./.periscope). */
  dataDirGiven?: boolean;
  etcdServers: string[];
  etcdPrefix: string;
  compactionIntervalMs: number;
  demoData: boolean;
  featureGates: FeatureGates;
  kubeconfig?: string;
  context?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  admissionControlConfigFile?: string;
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  authenticationConfig?: string;
  authorizationConfig?: string;
  /** --authorization-mode: ordered authorizers (AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook). */
  authorizationMode?: string[];
  authorizationWebhookConfigFile?: string;
  authorizationWebhookVersion?: string;
  authorizationWebhookCacheAuthorizedTtl?: string;
  authorizationWebhookCacheUnauthorizedTtl?: string;
  encryptionProviderConfig?: string;
  encryptionProviderConfigAutomaticReload?: boolean;
  tracingConfigFile?: string;
  anonymousAuth?: boolean;
  clientCaFile?: string;
  tokenAuthFile?: string;
  serviceAccountIssuer?: string;
  serviceAccountKeyFiles?: string[];
  serviceAccountSigningKeyFile?: string;
  apiAudiences?: string[];
  /** Directory of the built explorer (index.html); empty = do not serve it. */
  staticDir: string;
  /** Log one line per request. */
  requestLog: boolean;
  /** Regular expressions a request's Host name must match (kubectl proxy's flag). */
  acceptHosts: string;
  /** Proxy mode: paths and methods never forwarded (kubectl proxy's flags). */
  rejectPaths: string;
  rejectMethods: string;
  /** kubectl proxy's --disable-filter: no Host, path or method filtering (dangerous). */
  disableFilter: boolean;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** Deadline of requests other than watches (kube-apiserver --request-timeout). */
  requestTimeoutMs: number;
  /** Serve a non-loopback --bind-address without any authentication configured. */
  allowUnauthenticatedRemote: boolean;
  /** --service-cluster-ip-range: the CIDR (or an IPv4,IPv6 pair) of Service cluster IPs; the default ServiceCIDR's. */
  serviceClusterIPRange: string[];
  /** kube-controller-manager's --controllers: '*', 'name', '-name'; empty = none (a bare API server). */
  controllers: string[];
  /**
   * Simulated nodes with a scheduler and kubelets. The command line defaults to 3 whatever --no-demo-data says
   * (--simulated-nodes 0 is the bare, envtest-like server); when startServer is called without it (tests), 3 with
   * demo data, else 0.
   */
  simulatedNodes?: number;
  /** kube-controller-manager --horizontal-pod-autoscaler-sync-period (default 15s). */
  hpaSyncPeriodMs?: number;
  /** kube-apiserver --event-ttl. */
  eventTtlMs: number;
  /** Simulated kubelet delays (ms): bound → Running, Running → Ready (readiness probes), run-to-completion run time. */
  simulatedPodStartMs?: number;
  simulatedPodReadyMs?: number;
  simulatedPodRunMs?: number;
  /** kubelet --streaming-connection-idle-timeout: exec/attach/port-forward connections idle this long are closed. */
  streamingConnectionIdleTimeoutMs: number;
  /** What `kubectl exec` into a simulated container runs: the built-in shell, or (opt-in) a local process. */
  simulatedExec: 'builtin' | 'host';
  /** kube-controller-manager --leader-elect: run the controllers and the scheduler only while holding their Leases. */
  leaderElect: boolean;
  /**
   * kube-controller-manager --use-service-account-credentials (kubeadm sets it; default true here): each controller
   * writes as system:serviceaccount:kube-system:<controller>; false = all as system:kube-controller-manager.
   */
  useServiceAccountCredentials: boolean;
  /** --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period. */
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  /**
   * --disable-controller-manager (k3s's name): the workload controllers, the scheduler and the simulated nodes
   * run in a separate `npm run controller-manager -- --kubeconfig F`; the server keeps its storage-side ones.
   */
  disableControllerManager: boolean;
}

export class FlagError extends Error {}

type Kind = 'string' | 'int' | 'bool' | 'duration';
interface FlagDef {
  kind: Kind;
  set(f: ServerFlags, v: string): void;
  help: string;
}

const def = (kind: Kind, help: string, set: (f: ServerFlags, v: string) => void): FlagDef => ({ kind, help, set });

const FLAGS: Record<string, FlagDef> = {
  port: def('int', 'port to listen on (default 8080)', (f, v) => (f.port = parsePort(v))),
  'secure-port': def('int', 'alias of --port', (f, v) => (f.port = parsePort(v))),
  'bind-address': def('string', 'address to listen on (default 127.0.0.1)', (f, v) => (f.bindAddress = v)),
  store: def('string', 'memory | sqlite | etcd (default sqlite)', (f, v) => {
    if (v !== 'memory' && v !== 'sqlite' && v !== 'etcd') throw new FlagError(`invalid value "${v}" for flag --store: must be memory, sqlite or etcd`);
    f.store = v;
  }),
  'data-dir': def('string', 'directory of the sqlite store (default ./.periscope)', (f, v) => {
    f.dataDir = v;
    f.dataDirGiven = true;
  }),
  'etcd-servers': def('string', 'comma-separated etcd URLs', (f, v) => (f.etcdServers = v.split(',').map((s) => s.trim()).filter(Boolean))),
  'etcd-prefix': def('string', 'key prefix in etcd (default /registry)', (f, v) => (f.etcdPrefix = v)),
  'compaction-interval': def('duration', 'how often history is compacted (default 5m; 0 disables)', (f, v) => (f.compactionIntervalMs = parseDuration(v, 'compaction-interval'))),
  'no-demo-data': def('bool', 'do not seed demo objects into an empty store (simulated nodes stay)', (f, v) => (f.demoData = !parseBool(v, 'no-demo-data'))),
  'feature-gates': def('string', 'A=true,B=false', (f, v) => {
    try {
      f.featureGates = parseFeatureGates(v);
    } catch (e) {
      throw new FlagError(`invalid argument "${v}" for "--feature-gates" flag: ${(e as Error).message}`);
    }
  }),
  kubeconfig: def('string', 'explorer proxy mode: forward API calls to this cluster', (f, v) => (f.kubeconfig = v)),
  context: def('string', 'kubeconfig context (proxy mode)', (f, v) => (f.context = v)),
  'tls-cert-file': def('string', 'serve HTTPS with this certificate', (f, v) => (f.tlsCertFile = v)),
  'tls-private-key-file': def('string', 'private key for --tls-cert-file', (f, v) => (f.tlsPrivateKeyFile = v)),
  'admission-control-config-file': def('string', 'AdmissionConfiguration file', (f, v) => (f.admissionControlConfigFile = v)),
  'enable-admission-plugins': def('string', 'admission plugins to enable besides the default ones (comma-separated)', (f, v) => (f.enableAdmissionPlugins = v.split(',').map((s) => s.trim()).filter(Boolean))),
  'disable-admission-plugins': def('string', 'admission plugins to disable (comma-separated)', (f, v) => (f.disableAdmissionPlugins = v.split(',').map((s) => s.trim()).filter(Boolean))),
  'authentication-config': def('string', 'AuthenticationConfiguration file', (f, v) => (f.authenticationConfig = v)),
  'authorization-config': def('string', 'AuthorizationConfiguration file', (f, v) => (f.authorizationConfig = v)),
  'authorization-mode': def('string', 'comma-separated authorizers in order: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook (default: AlwaysAllow for the local admin, Node,RBAC once authentication is configured, as kubeadm)', (f, v) => (f.authorizationMode = v.split(',').map((s) => s.trim()).filter(Boolean))),
  'authorization-webhook-config-file': def('string', 'kubeconfig of the Webhook authorization mode', (f, v) => (f.authorizationWebhookConfigFile = v)),
  'authorization-webhook-version': def('string', 'SubjectAccessReview version of the Webhook mode: v1 or v1beta1 (default v1beta1)', (f, v) => (f.authorizationWebhookVersion = v)),
  'authorization-webhook-cache-authorized-ttl': def('string', 'how long the Webhook mode caches allowed answers (default 5m)', (f, v) => (f.authorizationWebhookCacheAuthorizedTtl = v)),
  'authorization-webhook-cache-unauthorized-ttl': def('string', 'how long the Webhook mode caches other answers (default 30s)', (f, v) => (f.authorizationWebhookCacheUnauthorizedTtl = v)),
  'encryption-provider-config': def('string', 'EncryptionConfiguration file', (f, v) => (f.encryptionProviderConfig = v)),
  'encryption-provider-config-automatic-reload': def('bool', 'reload --encryption-provider-config when the file changes', (f, v) => (f.encryptionProviderConfigAutomaticReload = parseBool(v, 'encryption-provider-config-automatic-reload'))),
  'tracing-config-file': def('string', 'TracingConfiguration file', (f, v) => (f.tracingConfigFile = v)),
  'anonymous-auth': def('bool', 'allow anonymous requests', (f, v) => (f.anonymousAuth = parseBool(v, 'anonymous-auth'))),
  'client-ca-file': def('string', 'CA bundle: a client certificate it verifies authenticates as CN with groups O (needs TLS)', (f, v) => (f.clientCaFile = v)),
  'token-auth-file': def('string', 'static bearer tokens, CSV: token,user,uid,"group1,group2"', (f, v) => (f.tokenAuthFile = v)),
  'service-account-issuer': def('string', 'iss of service account tokens (default https://kubernetes.default.svc.cluster.local)', (f, v) => (f.serviceAccountIssuer = v)),
  'service-account-key-file': def('string', 'PEM public (or private) keys also accepted for service account tokens; repeatable', (f, v) => (f.serviceAccountKeyFiles = [...(f.serviceAccountKeyFiles ?? []), v])),
  'service-account-signing-key-file': def('string', 'PEM private key signing service account tokens (default: generated, kept in the data dir)', (f, v) => (f.serviceAccountSigningKeyFile = v)),
  'api-audiences': def('string', 'comma-separated audiences of API tokens (default: the service account issuer)', (f, v) => (f.apiAudiences = v.split(',').map((s) => s.trim()).filter(Boolean))),
  'static-dir': def('string', 'directory of the built explorer (default ./dist)', (f, v) => (f.staticDir = v)),
  'request-log': def('bool', 'log one line per request (default true)', (f, v) => (f.requestLog = parseBool(v, 'request-log'))),
  'accept-hosts': def('string', `comma-separated regular expressions of accepted Host names (default ${DEFAULT_ACCEPT_HOSTS}, plus the bind address)`, (f, v) => (f.acceptHosts = patterns(v, 'accept-hosts'))),
  'reject-paths': def('string', `proxy mode: comma-separated regular expressions of paths never forwarded (default ${DEFAULT_REJECT_PATHS})`, (f, v) => (f.rejectPaths = patterns(v, 'reject-paths'))),
  'reject-methods': def('string', "proxy mode: comma-separated regular expressions of methods never forwarded (default ^$)", (f, v) => (f.rejectMethods = patterns(v, 'reject-methods'))),
  'disable-filter': def('bool', 'turn off the Host, path and method filters (dangerous: any web page can then reach the API)', (f, v) => (f.disableFilter = parseBool(v, 'disable-filter'))),
  'max-requests-inflight': def('int', `most non-mutating requests served at once; 0 = no limit (default ${DEFAULT_MAX_REQUESTS_INFLIGHT})`, (f, v) => (f.maxRequestsInflight = parseCount(v, 'max-requests-inflight'))),
  'max-mutating-requests-inflight': def('int', `most mutating requests served at once; 0 = no limit (default ${DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT})`, (f, v) => (f.maxMutatingRequestsInflight = parseCount(v, 'max-mutating-requests-inflight'))),
  'request-timeout': def('duration', 'deadline of requests other than watches (default 1m)', (f, v) => (f.requestTimeoutMs = parseDuration(v, 'request-timeout'))),
  controllers: def('string', "controllers to run, as kube-controller-manager: '*' all (default), 'foo' enables, '-foo' disables; empty = none", (f, v) => (f.controllers = v.split(',').map((x) => x.trim()).filter(Boolean))),
  'simulated-nodes': def('int', 'simulated nodes with a scheduler and kubelets (default 3; 0 = a bare API server)', (f, v) => (f.simulatedNodes = parseCount(v, 'simulated-nodes'))),
  'event-ttl': def('duration', 'how long events are kept (default 1h)', (f, v) => (f.eventTtlMs = parseDuration(v, 'event-ttl'))),
  'horizontal-pod-autoscaler-sync-period': def('duration', 'how often HorizontalPodAutoscalers are re-evaluated (default 15s)', (f, v) => {
    const ms = parseDuration(v, 'horizontal-pod-autoscaler-sync-period');
    if (ms === 0) throw new FlagError('--horizontal-pod-autoscaler-sync-period must be greater than 0');
    f.hpaSyncPeriodMs = ms;
  }),
  'simulated-pod-start-time': def('duration', 'simulated kubelet: bound pod to Running (default 1s)', (f, v) => (f.simulatedPodStartMs = parseDuration(v, 'simulated-pod-start-time'))),
  'simulated-pod-run-time': def('duration', 'simulated kubelet: run time of run-to-completion pods (default 5s)', (f, v) => (f.simulatedPodRunMs = parseDuration(v, 'simulated-pod-run-time'))),
  'streaming-connection-idle-timeout': def('duration', 'exec, attach and port-forward connections idle this long are closed (default 4h; 0 = never)', (f, v) => (f.streamingConnectionIdleTimeoutMs = parseDuration(v, 'streaming-connection-idle-timeout'))),
  'simulated-exec': def('string', "what exec into a simulated container runs: 'builtin' (default: a small shell over the pod's spec) or 'host' (DANGEROUS: a real local process with the container's environment, for local development)", (f, v) => {
    if (v !== 'builtin' && v !== 'host') throw new FlagError(`invalid value "${v}" for flag --simulated-exec: must be builtin or host`);
    f.simulatedExec = v;
  }),
  'use-service-account-credentials': def('bool', 'each controller writes as its own service account in kube-system, bound to system:controller:<name> (default true); false: every controller as system:kube-controller-manager, whose role the admin must then bind broadly', (f, v) => (f.useServiceAccountCredentials = parseBool(v, 'use-service-account-credentials'))),
  'leader-elect': def('bool', 'run the controllers and the scheduler only while this replica holds their Leases in kube-system (default true)', (f, v) => (f.leaderElect = parseBool(v, 'leader-elect'))),
  'leader-elect-lease-duration': def('duration', 'how long other candidates wait after the last renewal they saw before taking the lease over (default 15s)', (f, v) => (f.leaderElectLeaseDurationMs = parseDuration(v, 'leader-elect-lease-duration'))),
  'leader-elect-renew-deadline': def('duration', 'how long the leader keeps acting without renewing before it stops (default 10s)', (f, v) => (f.leaderElectRenewDeadlineMs = parseDuration(v, 'leader-elect-renew-deadline'))),
  'leader-elect-retry-period': def('duration', 'time between attempts to acquire or renew the lease (default 2s)', (f, v) => (f.leaderElectRetryPeriodMs = parseDuration(v, 'leader-elect-retry-period'))),
  'service-cluster-ip-range': def('string', 'CIDR of Service cluster IPs, or an IPv4,IPv6 pair (default 10.96.0.0/12); the default ServiceCIDR `kubernetes` holds it', (f, v) => (f.serviceClusterIPRange = parseServiceRange(v))),
  'disable-controller-manager': def('bool', 'run no workload controllers, scheduler or simulated nodes here: they run in `npm run controller-manager -- --kubeconfig F` (the garbage collector, namespace and disruption controllers stay in the server)', (f, v) => (f.disableControllerManager = parseBool(v, 'disable-controller-manager'))),
  'allow-unauthenticated-remote': def('bool', 'serve a non-loopback --bind-address although no authentication is configured', (f, v) => (f.allowUnauthenticatedRemote = parseBool(v, 'allow-unauthenticated-remote'))),
};

/**
 * kube-apiserver's checks of --service-cluster-ip-range: one CIDR, or two of different families. Cluster IPs are
 * handed out from the first, which must be IPv4 here (the simulated network is IPv4).
 */
function parseServiceRange(v: string): string[] {
  const cidrs = v.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = (why: string) => new FlagError(`invalid value "${v}" for flag --service-cluster-ip-range: ${why}`);
  if (cidrs.length === 0 || cidrs.length > 2) throw bad('must be one CIDR or a pair of CIDRs of different IP families');
  for (const c of cidrs) if (cidrErrors(c).length) throw bad(`${c}: ${cidrErrors(c).join(', ')}`);
  const fams = cidrs.map((c) => parseCIDR(c)!.family);
  if (fams.length === 2 && fams[0] === fams[1]) throw bad('must be one CIDR or a pair of CIDRs of different IP families');
  if (fams[0] !== 4) throw bad('the primary range must be IPv4');
  const bits = parseCIDR(cidrs[0]!)!.bits;
  // upstream refuses ranges larger than /12 for IPv4 (2^20 addresses); at least two usable addresses are needed
  if (bits < 12 || bits > 30) throw bad('the IPv4 range must be between /12 and /30');
  return cidrs;
}

export function defaultFlags(): ServerFlags {
  return {
    port: 8080,
    bindAddress: '127.0.0.1',
    store: 'sqlite',
    dataDir: './.periscope',
    etcdServers: [],
    etcdPrefix: '/registry',
    compactionIntervalMs: 5 * 60_000,
    demoData: true,
    featureGates: parseFeatureGates(undefined),
    staticDir: 'dist',
    requestLog: true,
    acceptHosts: DEFAULT_ACCEPT_HOSTS,
    rejectPaths: DEFAULT_REJECT_PATHS,
    rejectMethods: '^$',
    disableFilter: false,
    maxRequestsInflight: DEFAULT_MAX_REQUESTS_INFLIGHT,
    maxMutatingRequestsInflight: DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
    requestTimeoutMs: 60_000,
    allowUnauthenticatedRemote: false,
    serviceClusterIPRange: [DEFAULT_SERVICE_CIDR],
    controllers: ['*'],
    eventTtlMs: 3_600_000,
    streamingConnectionIdleTimeoutMs: 4 * 3600_000,
    simulatedExec: 'builtin',
    leaderElect: true,
    useServiceAccountCredentials: true,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
    disableControllerManager: false,
  };
}

/** Parses `--name value`, `--name=value` and bare boolean flags. Throws FlagError on anything unknown or malformed. */
export function parseFlags(argv: string[]): ServerFlags {
  const f = defaultFlags();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const flag = FLAGS[name];
    if (!flag) throw new FlagError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (flag.kind === 'bool') value = 'true';
    else {
      const next = argv[++i];
      if (next === undefined) throw new FlagError(`flag needs an argument: --${name}`);
      value = next;
    }
    flag.set(f, value);
  }
  // --no-demo-data drops only the demo objects: Deployments still need nodes to become Available
  f.simulatedNodes ??= 3;
  if (f.store === 'etcd' && f.etcdServers.length === 0) throw new FlagError('--store etcd needs --etcd-servers');
  if ((f.tlsCertFile === undefined) !== (f.tlsPrivateKeyFile === undefined))
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  if (f.authorizationMode?.length && f.authorizationConfig !== undefined) throw new FlagError('--authorization-config cannot be used with --authorization-mode');
  for (const m of f.authorizationMode ?? []) {
    // upstream modes; ABAC is not served here
    if (!['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'].includes(m)) throw new FlagError(`--authorization-mode: "${m}" is not a valid mode (valid: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook)`);
  }
  if (f.authorizationMode?.includes('Webhook') && !f.authorizationWebhookConfigFile) throw new FlagError('--authorization-mode Webhook needs --authorization-webhook-config-file');
  if (f.authorizationWebhookVersion !== undefined && f.authorizationWebhookVersion !== 'v1' && f.authorizationWebhookVersion !== 'v1beta1')
    throw new FlagError('--authorization-webhook-version must be v1 or v1beta1');
  if (f.clientCaFile !== undefined && f.tlsCertFile === undefined) throw new FlagError('--client-ca-file needs --tls-cert-file: client certificates need TLS');
  const remote = remoteBindProblem(f);
  if (remote) throw new FlagError(remote);
  const hostExec = hostExecProblem(f);
  if (hostExec) throw new FlagError(hostExec);
  const lease = leaderElectionProblem(f);
  if (lease) throw new FlagError(lease);
  return f;
}

/**
 * Serving other machines without authentication must be a conscious choice: otherwise anyone on the
 * network is cluster admin (or, in proxy mode, holds the kubeconfig's credentials).
 */
export function remoteBindProblem(f: ServerFlags): string | undefined {
  if (isLoopback(f.bindAddress) || f.allowUnauthenticatedRemote) return undefined;
  if (f.kubeconfig)
    return `refusing to serve proxy mode on --bind-address ${f.bindAddress}: every client on the network would act with the kubeconfig's credentials; bind a loopback address or pass --allow-unauthenticated-remote`;
  if (f.authenticationConfig || f.tokenAuthFile || f.clientCaFile) return undefined;
  return `refusing to serve --bind-address ${f.bindAddress} without authentication: configure --authentication-config, --token-auth-file or --client-ca-file, or pass --allow-unauthenticated-remote to serve every client on the network as an administrator`;
}

/** Whether authentication other than the local admin token is configured. */
function authenticationConfigured(f: ServerFlags): boolean {
  return !!(f.authenticationConfig || f.tokenAuthFile || f.clientCaFile);
}

/**
 * --simulated-exec=host runs commands as local processes: on a non-loopback address only with authentication
 * on (--allow-unauthenticated-remote does not cover it), or anyone on the network could run programs here.
 */
export function hostExecProblem(f: Pick<ServerFlags, 'simulatedExec' | 'bindAddress' | 'authenticationConfig' | 'tokenAuthFile' | 'clientCaFile'>): string | undefined {
  if (f.simulatedExec !== 'host' || isLoopback(f.bindAddress) || authenticationConfigured(f as ServerFlags)) return undefined;
  return `refusing --simulated-exec=host on --bind-address ${f.bindAddress} without authentication: anyone on the network could run programs on this machine; bind a loopback address or configure --authentication-config, --token-auth-file or --client-ca-file`;
}

/** client-go leaderelection.NewLeaderElector's checks (JitterFactor 1.2), with component-base's flag names. */
export function leaderElectionProblem(f: Pick<ServerFlags, 'leaderElect' | 'leaderElectLeaseDurationMs' | 'leaderElectRenewDeadlineMs' | 'leaderElectRetryPeriodMs'>): string | undefined {
  if (!f.leaderElect) return undefined;
  if (f.leaderElectRetryPeriodMs < 1) return '--leader-elect-retry-period must be greater than zero';
  if (f.leaderElectLeaseDurationMs <= f.leaderElectRenewDeadlineMs) return '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline';
  if (f.leaderElectRenewDeadlineMs <= 1.2 * f.leaderElectRetryPeriodMs) return '--leader-elect-renew-deadline must be greater than --leader-elect-retry-period*1.2';
  return undefined;
}

export function flagsHelp(): string {
  return Object.entries(FLAGS)
    .map(([n, d]) => `  --${n}${d.kind === 'bool' ? '' : ' ' + d.kind.toUpperCase()}\t${d.help}`)
    .join('\n');
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 0 || n > 65535) throw new FlagError(`invalid port "${v}": must be 0-65535`);
  return n;
}

function parseCount(v: string, name: string): number {
  if (!/^\d+$/.test(v)) throw new FlagError(`invalid value "${v}" for --${name}: must be a whole number`);
  return Number(v);
}

function patterns(v: string, name: string): string {
  try {
    parsePatternList(v, name);
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
  return v;
}

function parseBool(v: string, name: string): boolean {
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new FlagError(`invalid boolean "${v}" for --${name}`);
}

/** Go-style durations: 300ms, 5s, 5m, 1h30m; a bare 0 is allowed. */
export function parseDuration(v: string, name = 'duration'): number {
  const ms = parseGoDuration(v);
  if (ms === undefined || ms < 0) throw new FlagError(`invalid duration "${v}" for --${name}`);
  return ms;
}
