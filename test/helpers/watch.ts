// Reads a watch stream (newline-delimited JSON events) in tests.
export interface WatchEvent {
  type: string;
  object: any;
}

export class WatchStream {
  readonly events: WatchEvent[] = [];
  status = 0;
  headers?: Headers;
  ended = false;
  private waiters: (() => void)[] = [];
  private ac = new AbortController();

  static async open(url: string, headers: Record<string, string> = {}): Promise<WatchStream> {
    const w = new WatchStream();
    const r = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal: w.ac.signal });
    w.status = r.status;
    w.headers = r.headers;
    if (r.status !== 200) {
      w.events.push({ type: 'HTTP', object: await r.json() });
      w.ended = true;
      return w;
    }
    void w.pump(r.body!);
    return w;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const dec = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buf += dec.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) this.events.push(JSON.parse(line));
        }
        this.notify();
      }
    } catch {
      /* aborted */
    }
    this.ended = true;
    this.notify();
  }

  private notify() {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  /** Waits until `pred` holds over the events so far. */
  async until(pred: (evs: WatchEvent[]) => boolean, timeoutMs = 5000): Promise<WatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.events)) {
      if (this.ended) throw new Error(`watch ended; events: ${JSON.stringify(this.events.map((e) => e.type))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; events: ${JSON.stringify(this.events.map((e) => [e.type, e.object?.metadata?.name]))}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
    return this.events;
  }

  async waitEnd(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('stream did not end');
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  close() {
    this.ac.abort();
  }
}
