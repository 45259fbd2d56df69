// Incremental decoders for watch streams: newline-delimited JSON and CBOR sequences (RFC 8742).
import { Decoder } from 'cbor-x';

/** Splits bytes into text lines across chunk boundaries. */
export class LineSplitter {
  private buf = '';
  private readonly dec = new TextDecoder();

  push(chunk: Uint8Array): string[] {
    this.buf += this.dec.decode(chunk, { stream: true });
    const out: string[] = [];
    let start = 0;
    for (let nl = this.buf.indexOf('\n', start); nl >= 0; nl = this.buf.indexOf('\n', start)) {
      const line = this.buf.slice(start, nl).trim();
      if (line) out.push(line);
      start = nl + 1;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  /** Whatever is left at the end of the stream (a last line without a newline). */
  end(): string[] {
    const rest = (this.buf + this.dec.decode()).trim();
    this.buf = '';
    return rest ? [rest] : [];
  }
}

/** Newline-delimited JSON values. */
export class NdjsonDecoder {
  private readonly lines = new LineSplitter();
  push(chunk: Uint8Array): unknown[] {
    return this.lines.push(chunk).map((l) => JSON.parse(l));
  }
  end(): unknown[] {
    return this.lines.end().map((l) => JSON.parse(l));
  }
}

interface IncompleteError {
  incomplete?: boolean;
  lastPosition?: number;
}

/** A CBOR sequence: concatenated data items, any of which may be split across chunks. */
export class CborSequenceDecoder {
  private pending: Uint8Array = new Uint8Array(0);
  private readonly decoder = new Decoder({ mapsAsObjects: true, useRecords: false });

  push(chunk: Uint8Array): unknown[] {
    let buf: Uint8Array;
    if (this.pending.length === 0) buf = chunk;
    else {
      buf = new Uint8Array(this.pending.length + chunk.length);
      buf.set(this.pending, 0);
      buf.set(chunk, this.pending.length);
    }
    const out: unknown[] = [];
    if (buf.length === 0) return out;
    try {
      this.decoder.decodeMultiple(buf, (v: unknown) => {
        out.push(v);
      });
      this.pending = new Uint8Array(0);
    } catch (e) {
      const err = e as IncompleteError;
      if (!err || !err.incomplete) throw e;
      // keep the unfinished item; the complete ones before it were delivered
      this.pending = buf.slice(err.lastPosition ?? 0);
    }
    return out;
  }

  end(): unknown[] {
    if (this.pending.length) throw new Error(`CBOR sequence ended inside a data item (${this.pending.length} bytes left)`);
    return [];
  }
}

export type StreamDecoder = { push(chunk: Uint8Array): unknown[]; end(): unknown[] };

export function decoderFor(contentType: string): StreamDecoder {
  const e = contentType.split(';')[0]!.trim().toLowerCase();
  if (e === 'application/cbor-seq' || e === 'application/cbor') return new CborSequenceDecoder();
  return new NdjsonDecoder();
}

/** Decoded values of a byte stream, as they complete. */
export async function* decodeStream(body: ReadableStream<Uint8Array>, decoder: StreamDecoder, signal?: AbortSignal): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const v of decoder.push(value)) yield v;
    }
    finished = true;
    for (const v of decoder.end()) yield v;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // the consumer stopped early: close the connection rather than leave it open
    if (!finished) void reader.cancel().catch(() => {});
    try {
      reader.releaseLock();
    } catch {
      /* already released */
    }
  }
}
