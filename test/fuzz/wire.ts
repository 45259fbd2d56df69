// Raw HTTP for the fuzz suite: node:http over a keep-alive agent, headers exactly as given (no implicit
// Content-Type, no Accept), so hostile header combinations reach the server unchanged.
import { Agent, request } from 'node:http';

export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface WireResponse {
  /** 0 when no response arrived (socket error before the status line). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body did not end within the read window (a watch or a hung request); the socket was dropped. */
  cut: boolean;
  /** Socket error seen before the response completed. */
  error?: string;
}

/** Bodies larger than this are not kept (only their length matters to the properties). */
const KEEP_BYTES = 16 * 1024 * 1024;

export class Wire {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    base: string,
    /** How long a response body may stream before it is cut (watches stream until their timeout). */
    private readonly readWindowMs = 5000,
  ) {
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  send(r: WireRequest): Promise<WireResponse> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let done = false;
      let status = 0;
      let headers: WireResponse['headers'] = {};
      const finish = (extra: Partial<WireResponse>) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ status, headers, body: Buffer.concat(chunks), cut: false, ...extra });
      };
      const hdrs: Record<string, string | number> = { ...r.headers };
      // with Transfer-Encoding given, node:http sends the body chunked (both headers at once would be a framing error)
      if (r.body !== undefined && !hasHeader(r.headers, 'transfer-encoding')) hdrs['Content-Length'] = r.body.byteLength;
      const req = request({ agent: this.agent, host: this.host, port: this.port, method: r.method, path: r.path, headers: hdrs, setHost: !hasHeader(r.headers, 'host') }, (res) => {
        status = res.statusCode ?? 0;
        headers = res.headers;
        // an accepted watch streams until its timeout: its status and headers are all the properties need
        if (status < 300 && r.method === 'GET' && /watch/i.test(r.path)) {
          req.destroy();
          finish({ cut: true });
          return;
        }
        res.on('data', (d: Buffer) => {
          if (kept < KEEP_BYTES) chunks.push(d);
          kept += d.length;
        });
        res.on('end', () => finish({}));
        res.on('error', (e) => finish({ error: e.message }));
      });
      // Not an assertion on timing: a streaming response (watch) is read for a while, then dropped.
      const timer = setTimeout(() => {
        req.destroy();
        finish({ cut: true });
      }, this.readWindowMs);
      req.on('error', (e) => finish({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
      req.end(r.body === undefined ? undefined : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function hasHeader(h: Record<string, string>, name: string): boolean {
  return Object.keys(h).some((k) => k.toLowerCase() === name);
}
