// CLI entry point: `periscope [flags]` (see --help).
import { startServer } from './app.js';
import { FlagError, flagsHelp, parseFlags, type ServerFlags } from './flags.js';
import { loadOrCreateAdminToken, localKubeconfigText, newAdminToken, writeLocalKubeconfig } from './auth/local-kubeconfig.js';
import { describeAuthentication } from './http/authentication.js';
import { ConfigLoadError, describeLoadedConfigs, loadServerConfigs } from '../config/load.js';

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`Usage: npm start -- [flags]\n\nFlags:\n${flagsHelp()}\n`);
    return;
  }
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\nRun with --help for the list of flags.\n`);
      process.exit(2);
    }
    throw e;
  }
  if (flags.kubeconfig) {
    await runProxy(flags);
    return;
  }
  let configs;
  try {
    configs = await loadServerConfigs({ ...flags, anonymousAuthFlagSet: flags.anonymousAuth !== undefined });
    for (const line of describeLoadedConfigs(configs)) process.stderr.write(`${line}\n`);
  } catch (e) {
    if (e instanceof ConfigLoadError) {
      process.stderr.write(`Error: invalid configuration:\n${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  let server;
  let adminToken: string;
  // --store memory without --data-dir keeps nothing on disk: not the store, nor the admin credentials
  const onDisk = flags.store !== 'memory' || flags.dataDirGiven === true;
  try {
    adminToken = onDisk ? loadOrCreateAdminToken(flags.dataDir) : newAdminToken();
    server = await startServer(flags, { adminToken, configs });
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Periscope API server and explorer listening on ${server.url} (store: ${flags.store})\n`);
  for (const line of describeAuthentication(server.deps.authentication!, flags)) process.stderr.write(`${line}\n`);
  process.stderr.write(`${server.deps.authorization!.description}\n`);
  if (onDisk) process.stderr.write(`admin kubeconfig: ${writeLocalKubeconfig(flags.dataDir, server.url, adminToken, flags.tlsCertFile)}\n`);
  else process.stderr.write(`admin kubeconfig (this run only; --store memory writes no files, pass --data-dir to keep one):\n${localKubeconfigText(server.url, adminToken, flags.tlsCertFile)}`);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`${sig}: shutting down\n`);
    server.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`shutdown failed: ${e}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Proxy mode (--kubeconfig): serve the explorer and forward the API to that cluster. */
async function runProxy(flags: ServerFlags): Promise<void> {
  const { startProxyServer } = await import('./proxy/proxy.js');
  let proxy;
  try {
    proxy = await startProxyServer(flags);
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Periscope explorer listening on ${proxy.url}, proxying the API to ${proxy.target} (context ${proxy.context})\n`);
  const stop = (sig: string) => {
    process.stderr.write(`${sig}: shutting down\n`);
    void proxy.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`fatal: ${e?.stack ?? e}\n`);
  process.exit(1);
});
