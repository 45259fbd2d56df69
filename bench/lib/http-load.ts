// A small keep-alive HTTP load generator: C concurrent connections, each issuing requests back to back.
import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  body?: (i: number) => string;
  headers?: Record<string, string>;
  concurrency: number;
  seconds: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const u = new URL(spec.url);
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const end = performance.now() + spec.seconds * 1000;
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const body = spec.body?.(i);
      const t0 = performance.now();
      const req = request(
        { agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method: spec.method, headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}), ...spec.headers } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if ((res.statusCode ?? 0) >= 400) errors++;
            latencies.push(performance.now() - t0);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (performance.now() < end) await one(n++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99) };
}
