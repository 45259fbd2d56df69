// `sim.periscope.dev/port-forward` names the loopback process a simulated pod fronts, per container port:
// "80=127.0.0.1:3000,8443=[::1]:9443". Simulated pod and Service IPs exist only inside the simulation, so
// port-forward, webhooks and APIServices backed by simulated pods reach that loopback target or nothing.
// Only numeric loopback addresses are accepted: a name would need DNS, and anything else could leave the machine.
import { isIP } from 'node:net';

export const PORT_FORWARD_ANNOTATION = 'sim.periscope.dev/port-forward';

export interface LoopbackTarget {
  /** numeric loopback address (127.0.0.0/8 or ::1), without brackets */
  readonly host: string;
  readonly port: number;
}

export interface ParsedPortForward {
  readonly targets: ReadonlyMap<number, LoopbackTarget>;
  /** entries that were ignored, each with why */
  readonly errors: readonly string[];
}

/** Longest annotation value read (upstream caps all annotations at 256 KiB; one entry is ~30 bytes). */
const MAX_VALUE = 4096;

export function isLoopbackAddress(host: string): boolean {
  const v = isIP(host);
  if (v === 4) return host.split('.')[0] === '127';
  if (v === 6) return host === '::1' || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(host) || host.toLowerCase() === '0:0:0:0:0:0:0:1';
  return false;
}

function port(s: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(s)) return undefined;
  const n = Number(s);
  return n >= 1 && n <= 65535 ? n : undefined;
}

export function parsePortForwardAnnotation(value: string | undefined): ParsedPortForward {
  const targets = new Map<number, LoopbackTarget>();
  const errors: string[] = [];
  if (value === undefined || value.trim() === '') return { targets, errors };
  if (value.length > MAX_VALUE) return { targets, errors: [`value longer than ${MAX_VALUE} characters`] };
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    const podPort = eq > 0 ? port(entry.slice(0, eq).trim()) : undefined;
    if (podPort === undefined) {
      errors.push(`"${entry}": expected PORT=HOST:PORT`);
      continue;
    }
    const dest = entry.slice(eq + 1).trim();
    const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]+)$/.exec(dest);
    const host = m ? (m[1] ?? m[2])! : '';
    const destPort = m ? port(m[3]!) : undefined;
    if (!m || destPort === undefined) {
      errors.push(`"${entry}": expected PORT=HOST:PORT`);
      continue;
    }
    if (!isLoopbackAddress(host)) {
      errors.push(`"${entry}": ${host} is not a numeric loopback address (127.0.0.0/8 or ::1)`);
      continue;
    }
    targets.set(podPort, { host, port: destPort });
  }
  return { targets, errors };
}

/** The loopback target a pod names for one of its ports, if any. */
export function loopbackTargetFor(annotations: Readonly<Record<string, unknown>> | undefined, podPort: number): LoopbackTarget | undefined {
  const v = annotations?.[PORT_FORWARD_ANNOTATION];
  return typeof v === 'string' ? parsePortForwardAnnotation(v).targets.get(podPort) : undefined;
}
