// Write paths on a realistic Deployment: PUT, merge patch, strategic merge patch and server-side apply,
// each as p50/p99 latency and ops/s, with PUT as the floor (apply should cost a small multiple of it).
import { stringify } from 'yaml';
import { startChild } from './lib/child.js';

const OPS = Number(process.env.BENCH_WRITES ?? 2000);
const CONCURRENCY = 16;

function deployment(i: number, replicas: number): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${i}`, namespace: 'bench', labels: { app: 'web', tier: 'frontend' }, annotations: { 'example.com/owner': 'team-a' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web', idx: String(i) } },
      template: {
        metadata: { labels: { app: 'web', idx: String(i) } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'registry.example.com/web:2.1',
              ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
              env: [{ name: 'MODE', value: 'prod' }, { name: 'LOG', value: 'info' }],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
              readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
            },
            { name: 'sidecar', image: 'registry.example.com/proxy:1.0', ports: [{ containerPort: 15001, protocol: 'TCP' }] },
          ],
        },
      },
    },
  };
}

interface Stats {
  ops: number;
  p50: number;
  p99: number;
}

async function run(n: number, op: (i: number) => Promise<Response>): Promise<Stats> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) {
        const s = performance.now();
        const r = await op(i);
        await r.arrayBuffer();
        if (r.status >= 400) throw new Error(`status ${r.status}`);
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { ops: n / secs, p50: lat[Math.floor(lat.length / 2)]!, p99: lat[Math.floor(lat.length * 0.99)]! };
}

export async function benchWrites(): Promise<void> {
  const srv = await startChild('serve-api.ts');
  const base = `${srv.url}/apis/apps/v1/namespaces/bench/deployments`;
  const json = { 'Content-Type': 'application/json' };
  await fetch(`${srv.url}/api/v1/namespaces`, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) });
  const objects = 50;
  for (let i = 0; i < objects; i++) await fetch(base, { method: 'POST', headers: json, body: JSON.stringify(deployment(i, 1)) });
  try {
    // the deployment controller writes status meanwhile: a 409 is read again and retried, as
    // client-go's RetryOnConflict does (the bench used to stop on the first conflict)
    const put = await run(OPS, async (i) => {
      for (let attempt = 0; ; attempt++) {
        const cur = (await (await fetch(`${base}/web-${i % objects}`)).json()) as { metadata: { resourceVersion: string } };
        const body = deployment(i % objects, (i % 5) + 1) as { metadata: Record<string, unknown> };
        body.metadata.resourceVersion = cur.metadata.resourceVersion;
        const r = await fetch(`${base}/web-${i % objects}?fieldManager=bench-put`, { method: 'PUT', headers: json, body: JSON.stringify(body) });
        if (r.status !== 409 || attempt >= 5) return r;
        await r.arrayBuffer();
      }
    });
    // PUT needs a GET for the resourceVersion; measure that GET alone so the floor is the PUT itself
    const get = await run(OPS, (i) => fetch(`${base}/web-${i % objects}`));
    const putOnly: Stats = { ops: 1 / (1 / put.ops - 1 / get.ops), p50: put.p50 - get.p50, p99: put.p99 - get.p99 };
    const merge = await run(OPS, (i) =>
      fetch(`${base}/web-${i % objects}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { replicas: (i % 7) + 1 } }) }),
    );
    const smp = await run(OPS, (i) =>
      fetch(`${base}/web-${i % objects}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
        body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image: `registry.example.com/web:2.${i % 9}` }] } } } }),
      }),
    );
    const apply = await run(OPS, (i) =>
      fetch(`${base}/web-${i % objects}?fieldManager=bench-apply&force=true`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
        body: stringify(deployment(i % objects, (i % 3) + 1)),
      }),
    );
    const line = (name: string, s: Stats) =>
      console.log(
        `writes ${name} ops/s ${Math.round(s.ops)} p50 ${s.p50.toFixed(2)}ms p99 ${s.p99.toFixed(2)}ms (floor PUT ops/s ${Math.round(putOnly.ops)} p50 ${putOnly.p50.toFixed(2)}ms; cost ratio p50 ${(s.p50 / putOnly.p50).toFixed(2)}, ops ${(putOnly.ops / s.ops).toFixed(2)})`,
      );
    line('put', putOnly);
    line('merge-patch', merge);
    line('strategic-patch', smp);
    line('server-side-apply', apply);
  } finally {
    await srv.stop();
  }
}
