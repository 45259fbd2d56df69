// The address ranges the simulation hands out: Service cluster IPs (the service range, 10.96.0.0/12) and pod IPs
// (the simulated nodes' podCIDRs, 10.244.0.0/16). They exist only inside the simulation; dialling one would reach
// whatever owns that address on a real network, so no outgoing call may target them.
import { isIPv4 } from 'node:net';

const RANGES: readonly [number, number][] = [cidr('10.96.0.0/12'), cidr('10.244.0.0/16')];

function toInt(ip: string): number {
  return ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
}

function cidr(c: string): [number, number] {
  const [ip, bits] = c.split('/') as [string, string];
  const size = 2 ** (32 - Number(bits));
  const base = toInt(ip);
  return [base, base + size];
}

/** Whether a host is one the simulation hands out: an IP of its ranges or a cluster DNS name (`*.svc`, `*.svc.cluster.local`), whose lookup would go to the real resolver. */
export function isSimulatedAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (/\.svc(\.cluster\.local)?\.?$/i.test(h)) return true;
  if (!isIPv4(h)) return false;
  const n = toInt(h);
  return RANGES.some(([lo, hi]) => n >= lo && n < hi);
}
