// Wraps a store so values pass through a ValueTransformer (encryption at rest):
// toStorage on the way in, fromStorage on the way out, for reads and watches.
//
// A value that cannot be transformed back surfaces as StoreError('Corrupt')
// carrying the key on get and range, except where failing would hide a change that
// already happened: a delete (the returned kv and delete events) and the prevKv of an
// event then carry an empty value instead, so a corrupt object can still be
// removed and watchers still learn it is gone. A watch skips past an undecryptable
// put as upstream does: the event carries an empty value, which every decoder
// reports as corrupt (the watch cache marks the key corrupt, watchers never see it).
// A transformer may mark a value stale (read with an older key): kv.stale says so.
//
// `inner` is the raw store: tests write undecodable bytes through it.
import {
  StoreError,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type RevisionedStore,
  type StoreEvent,
  type StoreWatch,
  type TransformedValue,
  type ValueTransformer,
  type WatchHandlers,
} from './types.js';

const EMPTY = new Uint8Array(0);

export class TransformingStore implements RevisionedStore {
  constructor(
    readonly inner: RevisionedStore,
    readonly transformer?: ValueTransformer,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  open(): Promise<void> {
    return this.inner.open();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    if (!this.transformer) return this.inner.create(key, value);
    const kv = await this.inner.create(key, await this.transformer.toStorage(key, value));
    return { ...kv, value };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    if (!this.transformer) return this.inner.update(key, value, expectedModRevision);
    const kv = await this.inner.update(key, await this.transformer.toStorage(key, value), expectedModRevision);
    return { ...kv, value };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const kv = await this.inner.delete(key, expectedModRevision);
    return this.decodeLenient(kv);
  }

  async get(key: string, revision?: number): Promise<GetResult> {
    const result = await this.inner.get(key, revision);
    if (!this.transformer || !result.kv) return result;
    return { ...result, kv: await this.decode(result.kv) };
  }

  async range(opts: RangeOptions): Promise<RangeResult> {
    const result = await this.inner.range(opts);
    if (!this.transformer) return result;
    const kvs: KeyValue[] = new Array(result.kvs.length);
    const corrupt: StoreError[] = [];
    for (let i = 0; i < kvs.length; i++) {
      if (opts.lenient) {
        kvs[i] = await this.decodeLenient(result.kvs[i]!);
        continue;
      }
      try {
        kvs[i] = await this.decode(result.kvs[i]!);
      } catch (err) {
        const e = asCorrupt(err, result.kvs[i]!.key);
        if (e.code !== 'Corrupt') throw e;
        corrupt.push(e);
      }
    }
    // upstream aggregates the corrupt objects of a list into one error naming them all
    if (corrupt.length === 1) throw corrupt[0]!;
    if (corrupt.length > 1) {
      const keys = corrupt.map((e) => e.key!).join(', ');
      throw new StoreError('Corrupt', `failed to read ${corrupt.length} corrupt objects: [${corrupt.map((e) => e.message).join('; ')}]`, undefined, keys);
    }
    return { ...result, kvs };
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): StoreWatch {
    if (!this.transformer) return this.inner.watch(prefix, afterRevision, handlers);
    return this.inner.watch(prefix, afterRevision, {
      // Returning the promise makes the store wait, which keeps batches in order.
      onEvents: async (events) => {
        const out: StoreEvent[] = new Array(events.length);
        for (let i = 0; i < events.length; i++) out[i] = await this.decodeEvent(events[i]!);
        await handlers.onEvents(out);
      },
      onError: (err) => handlers.onError(err),
      onProgress: handlers.onProgress && ((rev) => handlers.onProgress!(rev)),
    });
  }

  private async decode(kv: KeyValue): Promise<KeyValue> {
    let out: Uint8Array | TransformedValue;
    try {
      out = await this.transformer!.fromStorage(kv.key, kv.value);
    } catch (err) {
      throw asCorrupt(err, kv.key);
    }
    if (out instanceof Uint8Array) return { ...kv, value: out };
    return out.stale ? { ...kv, value: out.value, stale: true } : { ...kv, value: out.value };
  }

  private async decodeLenient(kv: KeyValue): Promise<KeyValue> {
    if (!this.transformer) return kv;
    try {
      return await this.decode(kv);
    } catch {
      return { ...kv, value: EMPTY };
    }
  }

  private async decodeEvent(event: StoreEvent): Promise<StoreEvent> {
    const prevKv = event.prevKv && (await this.decodeLenient(event.prevKv));
    const kv = await this.decodeLenient(event.kv);
    return { ...event, kv, prevKv };
  }
}

/** A transform failure as Corrupt naming the key; Unavailable (e.g. a KMS plugin outage) stays what it is. */
function asCorrupt(err: unknown, key: string): StoreError {
  if (err instanceof StoreError && err.code === 'Unavailable') return err;
  if (err instanceof StoreError && err.code === 'Corrupt') {
    return err.key === undefined ? new StoreError('Corrupt', err.message, err.revision, key) : err;
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError('Corrupt', `cannot read stored value of ${key}: ${message}`, undefined, key);
}
