// Watch fan-out load generator process: opens N watches on one URL, timestamps every event carrying
// a `bench/sent` annotation, and on `STOP` (stdin) prints a latency histogram as one JSON line.
// argv: <base-url> <watch-path> <n>. Prints `READY` once every watch answered.
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

const [base, path, n] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4])];
const u = new URL(base);
const agent = new Agent({ keepAlive: false, maxSockets: n + 4 });
/** 0.05 ms buckets up to 100 ms, then 1 ms buckets up to 60 s. */
const fine = new Float64Array(2000);
const coarse = new Float64Array(60_000);
let delivered = 0;
const record = (ms: number) => {
  delivered++;
  if (ms < 100) fine[Math.max(0, Math.floor(ms / 0.05))]!++;
  else coarse[Math.min(coarse.length - 1, Math.floor(ms))]!++;
};
const MARK = Buffer.from('"bench/sent":"');
const reqs: ReturnType<typeof request>[] = [];
await Promise.all(
  Array.from(
    { length: n },
    () =>
      new Promise<void>((resolve) => {
        const req = request({ agent, host: u.hostname, port: u.port, path }, (res) => {
          // bytes searched natively for the marker (decoding and a regexp per chunk made the
          // generators, not the server, the bottleneck)
          let tail: Buffer | undefined;
          res.on('data', (chunk: Buffer) => {
            const now = performance.timeOrigin + performance.now();
            const buf = tail ? Buffer.concat([tail, chunk]) : chunk;
            tail = undefined;
            let i = 0;
            for (;;) {
              const j = buf.indexOf(MARK, i);
              if (j < 0) {
                // a marker may be split over two chunks: keep the end
                const keep = Math.max(i, buf.length - MARK.length);
                if (keep < buf.length) tail = buf.subarray(keep);
                break;
              }
              const a = j + MARK.length;
              const b = buf.indexOf(0x22, a);
              if (b < 0) {
                tail = buf.subarray(j);
                break;
              }
              record(now - Number(buf.toString('latin1', a, b)));
              i = b + 1;
            }
          });
          resolve();
        });
        req.on('error', () => resolve());
        req.end();
        reqs.push(req);
      }),
  ),
);
process.stdout.write('READY\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'STOP') return;
  for (const r of reqs) r.destroy();
  agent.destroy();
  process.stdout.write(JSON.stringify({ delivered, fine: Array.from(fine), coarse: Array.from(coarse) }) + '\n', () => process.exit(0));
});
