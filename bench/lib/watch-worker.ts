// Watch fan-out load generator process: opens N watches on one URL, timestamps every event carrying
// a `bench/sent` annotation, and on `STOP` (stdin) prints a latency histogram as one JSON line.
// argv: <base-url> <watch-path> <n>. Prints `READY` once every watch answered.
//
// The generator must cost far less than the server it measures (one generator process was the
// bottleneck of the first wave): each watch is a plain TCP socket read into one shared buffer
// (`onread`: no per-read allocation, no stream or HTTP-parser machinery per chunk), its chunked
// body de-framed here, and the marker searched natively in the bytes. Every event is stamped with
// the time of the read that completed it.
import { connect, type Socket } from "node:net";
import { createInterface } from "node:readline";

const [base, path, n] = [
  process.argv[2]!,
  process.argv[3]!,
  Number(process.argv[4]),
];
const u = new URL(base);
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
const HEAD_END = Buffer.from("\r\n\r\n");
/** One read buffer for every socket: a read's bytes are consumed before the next read. */
const readBuf = Buffer.allocUnsafe(256 * 1024);

/** One watch: HTTP head, then a chunked body whose payload is scanned for markers. */
class Watch {
  /** Unconsumed bytes carried over to the next read (a split head, chunk size line or marker). */
  private carry: Buffer | undefined;
  private inHead = true;
  /** Payload bytes left in the current chunk (0: a chunk-size line comes next). */
  private left = 0;
  /** CRLF after a chunk's payload still to skip. */
  private skipCrlf = 0;
  /** Payload tail kept for a marker split over reads or chunks. */
  private tail: Buffer | undefined;
  ok!: () => void;

  read(bytes: Buffer): void {
    const now = performance.timeOrigin + performance.now();
    let buf = bytes;
    if (this.carry) {
      buf = Buffer.concat([this.carry, bytes]);
      this.carry = undefined;
    }
    let i = 0;
    if (this.inHead) {
      const e = buf.indexOf(HEAD_END);
      if (e < 0) return void (this.carry = Buffer.from(buf));
      if (!buf.subarray(0, 12).toString("latin1").startsWith("HTTP/1.1 200"))
        throw new Error(
          `watch answered ${buf.subarray(0, e).toString("latin1")}`,
        );
      this.inHead = false;
      i = e + 4;
      this.ok();
    }
    while (i < buf.length) {
      if (this.skipCrlf > 0) {
        const k = Math.min(this.skipCrlf, buf.length - i);
        this.skipCrlf -= k;
        i += k;
        continue;
      }
      if (this.left === 0) {
        const eol = buf.indexOf(0x0a, i);
        if (eol < 0) return void (this.carry = Buffer.from(buf.subarray(i)));
        this.left = parseInt(buf.toString("latin1", i, eol), 16);
        i = eol + 1;
        if (!this.left) return; // last chunk: the watch ended
        continue;
      }
      const end = Math.min(buf.length, i + this.left);
      this.scan(buf.subarray(i, end), now);
      this.left -= end - i;
      i = end;
      if (this.left === 0) this.skipCrlf = 2;
    }
  }

  /** Payload bytes: every complete marker and its timestamp is one delivered event. */
  private scan(payload: Buffer, now: number): void {
    const buf = this.tail ? Buffer.concat([this.tail, payload]) : payload;
    this.tail = undefined;
    let i = 0;
    for (;;) {
      const j = buf.indexOf(MARK, i);
      if (j < 0) {
        // a marker may be split over two reads: keep the end
        const keep = Math.max(i, buf.length - MARK.length);
        if (keep < buf.length) this.tail = Buffer.from(buf.subarray(keep));
        return;
      }
      const a = j + MARK.length;
      const b = buf.indexOf(0x22, a);
      if (b < 0) return void (this.tail = Buffer.from(buf.subarray(j)));
      record(now - Number(buf.toString("latin1", a, b)));
      i = b + 1;
    }
  }
}

const socks: Socket[] = [];
await Promise.all(
  Array.from(
    { length: n },
    () =>
      new Promise<void>((resolve, reject) => {
        const w = new Watch();
        w.ok = resolve;
        const sock = connect({
          host: u.hostname,
          port: Number(u.port),
          onread: {
            buffer: readBuf,
            callback: (len: number, buf: Uint8Array) => {
              w.read(Buffer.from(buf.buffer, buf.byteOffset, len));
              return true;
            },
          },
        });
        sock.setNoDelay(true);
        sock.on("error", reject);
        sock.write(
          `GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n\r\n`,
        );
        socks.push(sock);
      }),
  ),
);
process.stdout.write("READY\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "STOP") return;
  for (const s of socks) s.destroy();
  process.stdout.write(
    JSON.stringify({
      delivered,
      fine: Array.from(fine),
      coarse: Array.from(coarse),
    }) + "\n",
    () => process.exit(0),
  );
});
