// `npm run controller-manager -- --kubeconfig F [flags]`: the simulated cluster's workload controllers, the
// scheduler and the simulated nodes with their kubelets in a process of their own, as upstream's
// kube-controller-manager: an API client of a running server (started with --disable-controller-manager),
// through src/client over HTTP with the kubeconfig's credentials, so every write passes the server's
// authentication, authorization and admission as the kubeconfig's user. Leader election as in the server
// (Leases kube-system/kube-controller-manager and kube-scheduler), so several may run.
import { setMaxListeners } from 'node:events';
import { ApiClient } from '../client/index.js';
import { runManager } from './controllers/controller-manager.js';
import { startClusterWith, type ClusterOptions } from './controllers/cluster.js';
import { ClusterCache } from './controllers/cluster-cache.js';
import { kubeconfigFetch } from './controllers/kubeconfig-fetch.js';
import { RemoteClient, RemoteDiscovery } from './controllers/remote-client.js';
import { RemoteFeed } from './controllers/remote-feed.js';
import { ServiceAccountClients } from './controllers/remote-credentials.js';
import { DEFAULT_LEASE_TIMINGS } from './controllers/leader-election.js';
import { FlagError, leaderElectionProblem, parseDuration } from './flags.js';
import { loadKubeconfig } from './proxy/kubeconfig.js';

interface CmFlags {
  kubeconfig?: string;
  context?: string;
  controllers: string[];
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  simulatedNodes: number;
  simulatedPodStartMs?: number;
  simulatedPodReadyMs?: number;
  simulatedPodRunMs?: number;
  eventTtlMs: number;
  hpaSyncPeriodMs?: number;
  useServiceAccountCredentials: boolean;
}

const bool = (v: string, n: string) => {
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new FlagError(`invalid boolean "${v}" for --${n}`);
};

const FLAGS: Record<string, { help: string; bool?: boolean; set: (f: CmFlags, v: string, n: string) => void }> = {
  kubeconfig: { help: 'kubeconfig of the API server to run against (its user is the one the writes are authorized as)', set: (f, v) => (f.kubeconfig = v) },
  context: { help: 'kubeconfig context (default: current-context)', set: (f, v) => (f.context = v) },
  controllers: { help: "controllers to run: '*' all (default), 'foo' enables, '-foo' disables", set: (f, v) => (f.controllers = v.split(',').map((x) => x.trim()).filter(Boolean)) },
  'use-service-account-credentials': {
    help: "each controller writes with its own service account's token (TokenRequest with this process's credential), as kubeadm runs kube-controller-manager (default false, as upstream's flag)",
    bool: true,
    set: (f, v, n) => (f.useServiceAccountCredentials = bool(v, n)),
  },
  'leader-elect': { help: 'run only while holding the Leases kube-system/kube-controller-manager and kube-scheduler (default true)', bool: true, set: (f, v, n) => (f.leaderElect = bool(v, n)) },
  'leader-elect-lease-duration': { help: 'default 15s', set: (f, v, n) => (f.leaderElectLeaseDurationMs = parseDuration(v, n)) },
  'leader-elect-renew-deadline': { help: 'default 10s', set: (f, v, n) => (f.leaderElectRenewDeadlineMs = parseDuration(v, n)) },
  'leader-elect-retry-period': { help: 'default 2s', set: (f, v, n) => (f.leaderElectRetryPeriodMs = parseDuration(v, n)) },
  'simulated-nodes': {
    help: 'simulated nodes (with the scheduler and their kubelets) this process runs (default 3)',
    set: (f, v, n) => {
      if (!/^\d+$/.test(v)) throw new FlagError(`invalid value "${v}" for --${n}: must be a whole number`);
      f.simulatedNodes = Number(v);
    },
  },
  'simulated-pod-start-time': { help: 'bound pod to Running (default 1s)', set: (f, v, n) => (f.simulatedPodStartMs = parseDuration(v, n)) },
  'simulated-pod-ready-time': { help: 'Running to Ready', set: (f, v, n) => (f.simulatedPodReadyMs = parseDuration(v, n)) },
  'simulated-pod-run-time': { help: 'run time of run-to-completion pods (default 5s)', set: (f, v, n) => (f.simulatedPodRunMs = parseDuration(v, n)) },
  'event-ttl': { help: 'how long events are kept (default 1h)', set: (f, v, n) => (f.eventTtlMs = parseDuration(v, n)) },
  'horizontal-pod-autoscaler-sync-period': { help: 'default 15s', set: (f, v, n) => (f.hpaSyncPeriodMs = parseDuration(v, n)) },
};

export function parseControllerManagerFlags(argv: string[]): CmFlags {
  const f: CmFlags = {
    controllers: ['*'],
    leaderElect: true,
    leaderElectLeaseDurationMs: DEFAULT_LEASE_TIMINGS.leaseDurationMs,
    leaderElectRenewDeadlineMs: DEFAULT_LEASE_TIMINGS.renewDeadlineMs,
    leaderElectRetryPeriodMs: DEFAULT_LEASE_TIMINGS.retryPeriodMs,
    simulatedNodes: 3,
    eventTtlMs: 3_600_000,
    useServiceAccountCredentials: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new FlagError(`unexpected argument "${a}"`);
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const def = FLAGS[name];
    if (!def) throw new FlagError(`unknown flag: --${name}`);
    let v: string;
    if (eq >= 0) v = a.slice(eq + 1);
    else if (def.bool) v = 'true';
    else if (i + 1 < argv.length) v = argv[++i]!;
    else throw new FlagError(`flag needs an argument: --${name}`);
    def.set(f, v, name);
  }
  f.kubeconfig ??= process.env['KUBECONFIG']?.split(':')[0] || undefined;
  if (!f.kubeconfig) throw new FlagError('--kubeconfig is required: the API server to run against');
  const problem = leaderElectionProblem(f);
  if (problem) throw new FlagError(problem);
  return f;
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    const lines = Object.entries(FLAGS).map(([n, d]) => `  --${n}${d.bool ? '' : ' VALUE'}\t${d.help}`);
    process.stdout.write(`Usage: npm run controller-manager -- --kubeconfig FILE [flags]\n\nFlags:\n${lines.join('\n')}\n`);
    return;
  }
  let flags: CmFlags;
  try {
    flags = parseControllerManagerFlags(argv);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const creds = loadKubeconfig(flags.kubeconfig!, flags.context);
  // the global fetch unless the kubeconfig brings TLS material or basic auth it cannot take
  const custom = creds.ca || creds.cert || creds.insecureSkipTlsVerify || creds.tlsServerName || creds.username !== undefined;
  const transport = { baseUrl: creds.server, ...(custom ? { fetch: kubeconfigFetch(creds) } : {}) };
  const api = new ApiClient({ ...transport, token: creds.token });
  const discovery = new RemoteDiscovery(api);
  await discovery.refresh();
  const log = (l: string) => void process.stderr.write(`${l}\n`);
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // each term's signal and requests listen on it
  const cluster: ClusterOptions = {
    controllers: flags.controllers,
    simulatedNodes: flags.simulatedNodes,
    eventTtlMs: flags.eventTtlMs,
    hpaSyncPeriodMs: flags.hpaSyncPeriodMs,
    kubelet: { startMs: flags.simulatedPodStartMs, readyMs: flags.simulatedPodReadyMs, runMs: flags.simulatedPodRunMs },
    useServiceAccountCredentials: flags.useServiceAccountCredentials,
  };
  // with --use-service-account-credentials each controller's client carries its service account's token; the
  // scheduler and the kubelets use the kubeconfig's credential (this process has no node credentials)
  const accounts = new ServiceAccountClients(api, transport, log);
  const manager = runManager(
    {
      log,
      signal: shutdown.signal,
      leaseClient: (c) => new RemoteClient(api, discovery, c),
      startCluster: (roles, signal) =>
        startClusterWith(
          {
            log,
            signal,
            client: (c) => new RemoteClient(accounts.clientFor(c.user), discovery, c, signal),
            feed: (cache: ClusterCache) => {
              const feed = new RemoteFeed(api, discovery, () => cache.kinds(), log, signal);
              feed.subscribe(cache);
              return feed;
            },
          },
          { ...cluster, roles },
        ),
    },
    {
      cluster,
      leaderElect: flags.leaderElect,
      timings: { leaseDurationMs: flags.leaderElectLeaseDurationMs, renewDeadlineMs: flags.leaderElectRenewDeadlineMs, retryPeriodMs: flags.leaderElectRetryPeriodMs },
      exclusive: false,
    },
  );
  log(`controller manager ${manager.identity} running against ${creds.server} (context ${creds.context})`);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${sig}: shutting down`);
    shutdown.abort();
    manager.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

await main(process.argv.slice(2));
