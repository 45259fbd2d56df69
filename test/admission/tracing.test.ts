// TracingConfiguration: request spans exported over OTLP gRPC to an in-process receiver, parenting of the
// handler-stage and storage spans, trace context propagated to webhooks, parent-based sampling.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ApiClient, ApiError } from '../../src/client/index.js';
import { ErrorState } from '../../src/ui/components/ErrorState.js';
import { client, testServer } from '../helpers/server.js';
import { OtlpReceiver } from '../helpers/otlp.js';
import { AR, hook, makeCert, WebhookServer } from '../helpers/webhook.js';

let dir: string;
let otlp: OtlpReceiver;
let wh: WebhookServer;
let caBundle: string;
let cleanup: () => void;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'periscope-tracing-'));
  otlp = await new OtlpReceiver().start();
  const made = makeCert('IP:127.0.0.1');
  cleanup = made.cleanup;
  caBundle = made.cert.caBundle;
  wh = await new WebhookServer(made.cert).start();
});
afterAll(async () => {
  await wh.close();
  await otlp.close();
  cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function tracingFile(name: string, rate?: number): string {
  const file = join(dir, name);
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:${otlp.port}\n${rate === undefined ? '' : `samplingRatePerMillion: ${rate}\n`}`);
  return file;
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('tracing', () => {
  it('samples every request at one million per million: stages are children of the request span; webhooks get traceparent', async () => {
    const api = await testServer({ tracingConfigFile: tracingFile('all.yaml', 1_000_000) });
    const c = client(api.url);
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    await c.post(`${AR}/validatingwebhookconfigurations`, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [hook('traced.example.com', wh.url('/traced'), caBundle)] });
    const r = await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'traced' } });
    expect(r.status).toBe(201);
    const traceresponse = r.headers.get('traceresponse')!;
    expect(traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceresponse.split('-')[1]!;
    await api.close(); // flushes the batch
    const spans = otlp.spans.filter((s) => s.traceId === traceId);
    const root = spans.find((s) => s.name === 'KubernetesAPI')!;
    expect(root).toBeDefined();
    expect(root.parentSpanId).toBe('');
    expect(root.service).toBe('apiserver');
    expect(root.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/api/v1/namespaces/default/configmaps', 'http.response.status_code': 201 });
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // admission per plugin, then per webhook
    const plugin = spans.find((s) => s.name === 'Validate ValidatingAdmissionWebhook')!;
    expect(plugin.parentSpanId).toBe(root.spanId);
    expect(spans.find((s) => s.name === 'Admit MutatingAdmissionWebhook')?.parentSpanId).toBe(root.spanId);
    const admission = spans.find((s) => s.name === 'Admission webhook traced.example.com')!;
    expect(admission.parentSpanId).toBe(plugin.spanId);
    const call = spans.find((s) => s.name === 'Call validating webhook')!;
    expect(call.parentSpanId).toBe(admission.spanId);
    expect(call.attributes['webhook.name']).toBe('traced.example.com');
    const create = spans.find((s) => s.name === 'etcd create' && String(s.attributes['storage.key']).includes('configmaps'))!;
    expect(byId.get(create.parentSpanId)?.name ?? create.parentSpanId).toBe('KubernetesAPI');
    expect(spans.find((s) => s.name === 'SerializeObject')?.parentSpanId).toBe(root.spanId);
    // W3C trace context reaches the webhook: same trace, parent = the client call span
    const sent = wh.received.find((x) => x.path === '/traced')!;
    expect(sent.headers.traceparent).toBe(`00-${traceId}-${call.spanId}-01`);
  });

  it('an unset rate samples nothing of its own but follows a sampled parent traceparent', async () => {
    const api = await testServer({ tracingConfigFile: tracingFile('parent.yaml') });
    const c = client(api.url);
    const before = otlp.spans.length;
    await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const own = await c.get('/api/v1/namespaces');
    expect(own.headers.get('traceresponse')).toBeNull();
    const unsampled = await c.get('/api/v1/namespaces', { traceparent: `00-${TRACE.replace(/^4/, '5')}-${PARENT}-00` });
    expect(unsampled.headers.get('traceresponse')).toBeNull();
    const sampled = await c.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(sampled.status).toBe(201);
    expect(sampled.headers.get('traceresponse')).toMatch(new RegExp(`^00-${TRACE}-`));
    await api.close();
    const got = otlp.spans.slice(before);
    expect(new Set(got.map((s) => s.traceId))).toEqual(new Set([TRACE]));
    const root = got.find((s) => s.name === 'KubernetesAPI')!;
    expect(root.parentSpanId).toBe(PARENT);
    expect(got.some((s) => s.name === 'etcd create' && s.parentSpanId === root.spanId)).toBe(true);
    expect(got.some((s) => s.name === 'Validate NamespaceLifecycle' && s.parentSpanId === root.spanId)).toBe(true);
  });

  it('a failed call carries the trace id to the explorer client, which shows it', async () => {
    const api = await testServer({ tracingConfigFile: tracingFile('explorer.yaml', 1_000_000) });
    try {
      const err = await new ApiClient({ baseUrl: api.url }).get({ group: '', version: 'v1', resource: 'namespaces', name: 'missing' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      const traceId = (err as ApiError).traceId!;
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const html = renderToStaticMarkup(createElement(ErrorState, { error: err }));
      expect(html).toContain(`Trace ID: <code>${traceId}</code>`);
    } finally {
      await api.close();
    }
    // a server without tracing returns no trace id, and none is shown
    const plain = await testServer();
    try {
      const err = await new ApiClient({ baseUrl: plain.url }).get({ group: '', version: 'v1', resource: 'namespaces', name: 'missing' }).catch((e: unknown) => e);
      expect((err as ApiError).traceId).toBeUndefined();
      expect(renderToStaticMarkup(createElement(ErrorState, { error: err }))).not.toContain('Trace ID');
    } finally {
      await plain.close();
    }
  });
});
