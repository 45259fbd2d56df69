// Starts an in-process API server on a free port for integration tests.
import { startServer, type ApiServer } from '../../src/server/app.js';
import type { ServerFlags } from '../../src/server/flags.js';

/**
 * The deletion controllers only, by default: API-level tests see a plain API server whose objects no workload
 * controller touches; tests of the living cluster pass `controllers: ['*']`.
 */
export const API_SERVER_CONTROLLERS = ['garbage-collector-controller', 'namespace-controller', 'disruption-controller'];

export async function testServer(flags: Partial<ServerFlags> = {}, opts: { adminToken?: string } = {}): Promise<ApiServer> {
  return startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, controllers: API_SERVER_CONTROLLERS, ...flags }, opts);
}

export interface Resp<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small JSON request helper bound to a server URL. */
export function client(base: string) {
  const call = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Resp<T>> => {
    const init: RequestInit = { method, headers: { Accept: 'application/json', ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
      (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
    }
    const r = await fetch(base + path, init);
    const text = await r.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, headers: r.headers, body: parsed as T, text };
  };
  return {
    get: <T = any>(p: string, h?: Record<string, string>) => call<T>('GET', p, undefined, h),
    post: <T = any>(p: string, b: unknown, h?: Record<string, string>) => call<T>('POST', p, b, h),
    put: <T = any>(p: string, b: unknown, h?: Record<string, string>) => call<T>('PUT', p, b, h),
    patch: <T = any>(p: string, b: unknown, contentType: string, h?: Record<string, string>) => call<T>('PATCH', p, b, { 'Content-Type': contentType, ...h }),
    del: <T = any>(p: string, b?: unknown, h?: Record<string, string>) => call<T>('DELETE', p, b, h),
    call,
  };
}
