// HorizontalPodAutoscalers in autoscaling/v1 and v2 over one storage: each version reads every object, converted
// as upstream does (v1 keeps what it has no fields for in autoscaling.alpha.kubernetes.io/* annotations).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

describe('autoscaling/v1 and v2 HorizontalPodAutoscalers', () => {
  it('serves a v1 object through v2 with its CPU target as a metric', async () => {
    const r = await api.post(V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    const v2 = await api.get(`${V2}/a`);
    expect(v2.body.apiVersion).toBe('autoscaling/v2');
    expect(v2.body.spec).toEqual({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] });
  });

  it('serves a v2 object through v1, keeping other metrics in the annotation, and a v1 update keeps them', async () => {
    const metrics = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
    ];
    expect((await api.post(V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'b' }, spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 4, metrics } })).status).toBe(201);
    const v1 = await api.get(`${V1}/b`);
    expect(v1.body.spec).toEqual({ scaleTargetRef: ref, minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 60 });
    expect(JSON.parse(v1.body.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([metrics[1]]);
    const put = await api.put(`${V1}/b`, { ...v1.body, spec: { ...v1.body.spec, maxReplicas: 8 } });
    expect(put.status).toBe(200);
    const back = await api.get(`${V2}/b`);
    expect(back.body.spec).toEqual({ scaleTargetRef: ref, minReplicas: 2, maxReplicas: 8, metrics });
    expect(back.body.metadata.annotations).toBeUndefined();
  });

  it('lists and watches every object in the version asked for', async () => {
    const list = await api.get(V1);
    expect(list.body.items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec.targetCPUUtilizationPercentage])).toEqual([
      ['autoscaling/v1', 'a', 70],
      ['autoscaling/v1', 'b', 60],
    ]);
    const v2 = await api.get(V2);
    expect(v2.body.items.every((i: any) => i.apiVersion === 'autoscaling/v2' && Array.isArray(i.spec.metrics))).toBe(true);
  });
});
