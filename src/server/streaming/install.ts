// Wires the connect sub-resources into the server: the simulated kubelet's runtime (built-in shell, or
// local processes with --simulated-exec=host) and the idle timeout. app.ts calls only this module.
import type { ServerFlags } from '../flags.js';
import { hostExecProblem } from '../flags.js';
import type { ApiDeps } from '../http/api-handler.js';
import { SimulatedRuntime } from '../sim/container-runtime.js';
import { PodStreams } from './pod-streams.js';

export { connectKind } from './pod-streams.js';

export function createPodStreams(deps: ApiDeps, flags: ServerFlags, log: (l: string) => void, now?: () => number): PodStreams {
  let mode = flags.simulatedExec ?? 'builtin';
  if (mode === 'host') {
    const problem = hostExecProblem(flags);
    if (problem) {
      // parseFlags refuses this; a server started in-process gets the safe mode instead
      log(`WARNING: ${problem}; using the built-in exec runtime`);
      mode = 'builtin';
    } else
      log(
        'WARNING: --simulated-exec=host: `kubectl exec` into a simulated pod runs the command as a LOCAL PROCESS on this machine, as the user running this server, with the container\'s environment and mounted files in a scratch directory. For local development only.',
      );
  }
  const runtime = new SimulatedRuntime(PodStreams.reader(deps), mode, now);
  return new PodStreams(deps, { runtime, idleTimeoutMs: flags.streamingConnectionIdleTimeoutMs ?? 4 * 3600_000, now, log });
}
