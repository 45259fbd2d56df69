// TracingConfiguration made real: OpenTelemetry spans for requests and their stages, exported over OTLP gRPC,
// sampled per million with parent-based sampling (upstream k8s.io/component-base/tracing).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, INVALID_SPAN_CONTEXT, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from '../config/types.js';
import type { RevisionedStore } from './storage/types.js';

export const TRACER_NAME = 'k8s.io/apiserver';
/** upstream's default collector address (OTLP gRPC). */
export const DEFAULT_TRACING_ENDPOINT = 'localhost:4317';

export interface Tracing {
  shutdown(): Promise<void>;
}

let current: NodeTracerProvider | undefined;

/** Installs the tracer provider for this server (the process-wide OpenTelemetry globals). */
export function startTracing(cfg: TracingSettings, serviceName = 'apiserver'): Tracing {
  // An unset rate samples nothing of its own but follows a sampled parent (upstream NewProvider).
  const rate = cfg.samplingRatePerMillion;
  const root = rate === undefined || rate <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(Math.min(rate, 1_000_000) / 1_000_000);
  const exporter = new OTLPTraceExporter({ url: `http://${cfg.endpoint || DEFAULT_TRACING_ENDPOINT}` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    sampler: new ParentBasedSampler({ root }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })],
  });
  trace.disable();
  context.disable();
  propagation.disable();
  provider.register({ propagator: new W3CTraceContextPropagator() });
  current = provider;
  return {
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
      if (current === provider) {
        trace.disable();
        context.disable();
        propagation.disable();
        current = undefined;
      }
    },
  };
}

export const tracer = () => trace.getTracer(TRACER_NAME);

/** Whether a tracer provider is installed (spans are recorded or propagated); else spans can be skipped. */
export const tracingEnabled = (): boolean => current !== undefined;

const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Runs fn inside a child span of the active one; errors mark the span and propagate. */
export function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, fn: (span: Span) => Promise<T> | T): Promise<T> {
  // no provider installed: the API's spans would be non-recording no-ops, so skip building them
  // (a write runs a dozen of these: admission plugins, storage calls)
  if (!current) {
    try {
      return Promise.resolve(fn(NOOP_SPAN));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/**
 * An outgoing call (webhooks, OIDC discovery/JWKS, KMS, authorization webhooks) as a CLIENT span; `headers` gets the
 * W3C trace context of that span so the callee can continue the trace.
 */
export async function outgoingCall<T>(name: string, attributes: Record<string, string | number | boolean>, fn: (headers: Record<string, string>) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    try {
      return await fn(headers);
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The server span of one request, parented on the client's `traceparent` (upstream's "KubernetesAPI" otelhttp span). */
export function traceRequest(req: IncomingMessage, res: ServerResponse, path: string, fn: () => Promise<void>): Promise<void> {
  if (!current) return fn();
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(
    'KubernetesAPI',
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? 'GET', 'url.path': path, 'user_agent.original': req.headers['user-agent'] ?? '' } },
    parent,
  );
  const sc = span.spanContext();
  // W3C trace context level 2: tell the client which trace served it (the explorer shows it on failures).
  if (span.isRecording()) res.setHeader('traceresponse', `00-${sc.traceId}-${sc.spanId}-01`);
  res.once('finish', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  res.once('close', () => {
    if (!res.writableFinished) span.end();
  });
  return context.with(trace.setSpan(parent, span), fn);
}

const TRACED_STORE_CALLS = new Set(['create', 'update', 'delete', 'get', 'range']);

/** Storage calls as spans (upstream traces its etcd3 store calls), with the key as an attribute. */
export function tracedStore(store: RevisionedStore): RevisionedStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      if (typeof prop !== 'string' || !TRACED_STORE_CALLS.has(prop)) return v.bind(target);
      return (...args: unknown[]) => {
        if (!current || !trace.getActiveSpan()) return v.apply(target, args);
        const key = typeof args[0] === 'string' ? args[0] : String((args[0] as { prefix?: string })?.prefix ?? '');
        return inSpan(`etcd ${prop}`, { 'db.system.name': store.name, 'db.operation.name': prop, 'storage.key': key }, () => v.apply(target, args));
      };
    },
  });
}
