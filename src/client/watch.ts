// One watch connection: fetch + ReadableStream, decoded as NDJSON or a CBOR sequence, abortable.
// (Resuming, backoff and relisting live in the informer, which owns the resourceVersion.)
import { ApiError, NetworkError, isAbort } from './errors.js';
import type { ApiClient } from './http.js';
import { acceptFor, type Representation } from './media.js';
import { resourcePath, type ResourceRef } from './paths.js';
import { decodeStream, decoderFor } from './stream-decoders.js';
import type { KubeObject, WatchEvent } from './types.js';
import { UpgradeFailed, openWebSocketWatch, watchProtocols, webSocketUrl } from './websocket-watch.js';

export interface WatchOptions {
  representation?: Representation;
  /** Ask for CBOR sequences (falls back to JSON when the server does not offer them). */
  encoding?: 'json' | 'cbor';
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Streaming list: the current state as ADDED events, then an initial-events-end bookmark. */
  sendInitialEvents?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  timeoutSeconds?: number;
  includeObject?: 'None' | 'Metadata' | 'Object';
  signal?: AbortSignal;
}

export interface WatchConnection {
  /** Content type the server answered with (tells JSON from CBOR, Table from objects). */
  contentType: string;
  warnings: string[];
  events: AsyncGenerator<WatchEvent>;
  /** How the events arrive; everything above the transport is the same. */
  transport: 'websocket' | 'stream';
}

/** After an upgrade failed where a plain request worked, streams are used for a while before trying again. */
const WEBSOCKET_RETRY_MS = 60_000;
const webSocketBroken = new WeakMap<ApiClient, number>();

function useWebSocket(client: ApiClient, opts: WatchOptions): boolean {
  if (!client.options.webSocketWatches || typeof WebSocket === 'undefined' || opts.encoding === 'cbor') return false;
  return (webSocketBroken.get(client) ?? 0) <= Date.now();
}

export const INITIAL_EVENTS_END = ['service.io/initial-events-end', 'k8s.io/initial-events-end'];

export function isInitialEventsEnd(ev: WatchEvent): boolean {
  if (ev.type !== 'BOOKMARK') return false;
  const ann = (ev.object as KubeObject)?.metadata?.annotations;
  return !!ann && INITIAL_EVENTS_END.some((k) => ann[k] === 'true');
}

/** resourceVersion carried by an event's object (Table, object or bookmark alike). */
export function eventResourceVersion(ev: WatchEvent): string | undefined {
  const o = ev.object as KubeObject | undefined;
  return o?.metadata?.resourceVersion || undefined;
}

function acceptHeader(opts: WatchOptions): string {
  const base = acceptFor(opts.representation ?? 'object', { watch: true });
  if (opts.encoding !== 'cbor') return base;
  // CBOR only makes sense for whole objects here; Table and metadata forms stay JSON
  return opts.representation && opts.representation !== 'object' ? base : 'application/cbor-seq,application/json;q=0.9';
}

export async function openWatch(client: ApiClient, ref: ResourceRef, opts: WatchOptions = {}): Promise<WatchConnection> {
  const query = {
    watch: '1',
    resourceVersion: opts.resourceVersion,
    allowWatchBookmarks: opts.allowWatchBookmarks === false ? undefined : 'true',
    sendInitialEvents: opts.sendInitialEvents ? 'true' : undefined,
    resourceVersionMatch: opts.sendInitialEvents ? 'NotOlderThan' : undefined,
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    timeoutSeconds: opts.timeoutSeconds,
    includeObject: opts.representation === 'table' ? opts.includeObject : undefined,
  };
  const path = resourcePath({ ...ref, name: undefined });
  let upgradeFailed = false;
  if (useWebSocket(client, opts)) {
    const origin = typeof location !== 'undefined' ? location.href : undefined;
    try {
      const events = await openWebSocketWatch(webSocketUrl(client.url(path, query), origin), watchProtocols(acceptHeader(opts), await client.bearerToken()), opts.signal);
      return { contentType: 'application/json', warnings: [], events, transport: 'websocket' };
    } catch (e) {
      if (!(e instanceof UpgradeFailed)) throw e;
      // a browser learns no status from a refused upgrade: the streamed request below tells (401, 410…)
      upgradeFailed = true;
    }
  }
  const res = await client.open('GET', path, { accept: acceptHeader(opts), query, signal: opts.signal });
  // the same request worked as a stream: WebSocket itself is what fails here (a proxy on the way)
  if (upgradeFailed) webSocketBroken.set(client, Date.now() + WEBSOCKET_RETRY_MS);
  const contentType = res.headers.get('content-type') ?? '';
  if (!res.body) throw new NetworkError('watch response has no body');
  const body = res.body;
  async function* events(): AsyncGenerator<WatchEvent> {
    try {
      for await (const v of decodeStream(body, decoderFor(contentType), opts.signal)) {
        const ev = v as WatchEvent;
        if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') throw new ApiError(500, 'malformed watch event', { reason: 'InternalError' });
        yield ev;
      }
    } catch (e) {
      if (isAbort(e) || e instanceof ApiError) throw e;
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      throw new NetworkError(`watch stream broke off: ${(e as Error)?.message ?? e}`, e);
    }
  }
  return { contentType, warnings: [], events: events(), transport: 'stream' };
}
