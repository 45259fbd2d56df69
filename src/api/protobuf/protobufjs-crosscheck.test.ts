// Checks our wire bytes against an independent protobuf implementation (protobufjs) loaded with
// the same .proto-derived descriptor.
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import descriptors from './descriptors.json' with { type: 'json' };
import {
  PROTOBUF_PREFIX, decodeProtobufObject, decodeProtobufRaw, encodeProtobufObject, encodeProtobufRaw, encodeProtobufWatchFrame,
} from './index.js';
import { configMap, crd, pod, service } from './testdata.js';

const root = protobuf.Root.fromJSON(descriptors as protobuf.INamespace);
root.resolveAll();
const type = (name: string) => root.lookupType(name);
const toObject = (t: protobuf.Type, bytes: Uint8Array) =>
  t.toObject(t.decode(bytes), { longs: Number, bytes: String, defaults: false, arrays: false, objects: false }) as Record<string, any>;

describe('protobufjs reads our bytes', () => {
  it('ConfigMap', () => {
    const m = toObject(type('k8s.io.api.core.v1.ConfigMap'), encodeProtobufRaw(configMap));
    expect(m.metadata.name).toBe('web-config');
    expect(m.metadata.namespace).toBe('team-a');
    expect(m.metadata.generation).toBe(2);
    expect(m.metadata.creationTimestamp).toEqual({ seconds: 1704164645 });
    expect(m.metadata.labels).toEqual({ app: 'web-config', 'app.kubernetes.io/part-of': 'shop', empty: '' });
    expect(m.data).toEqual(configMap.data);
    expect(m.binaryData).toEqual(configMap.binaryData); // bytes rendered back to base64 by protobufjs
  });

  it('Pod: containers, quantities, IntOrString, probes, inline embedded structs', () => {
    const m = toObject(type('k8s.io.api.core.v1.Pod'), encodeProtobufRaw(pod));
    const c = m.spec.containers[0];
    expect(c.name).toBe('nginx');
    expect(c.ports[0]).toEqual({ name: 'http', containerPort: 8080, protocol: 'TCP' });
    expect(c.resources.limits.cpu).toEqual({ string: '500m' });
    expect(c.livenessProbe.handler.httpGet.port).toEqual({ type: 1, strVal: 'http' });
    expect(c.readinessProbe.handler.tcpSocket.port).toEqual({ intVal: 8080 });
    expect(c.livenessProbe.initialDelaySeconds).toBe(10);
    expect(c.startupProbe.terminationGracePeriodSeconds).toBe(0);
    expect(c.env[2].valueFrom.secretKeyRef).toEqual({ localObjectReference: { name: 'web-creds' }, key: 'key' });
    expect(m.spec.volumes[0].volumeSource.configMap.localObjectReference).toEqual({ name: 'web-config' });
    expect(m.spec.securityContext.supplementalGroups).toEqual([1000, 3000]);
    expect(m.metadata.managedFields[0].fieldsV1.Raw).toBe(
      Buffer.from(JSON.stringify({ 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } })).toString('base64'),
    );
  });

  it('Service targetPort forms', () => {
    const m = toObject(type('k8s.io.api.core.v1.Service'), encodeProtobufRaw(service));
    expect(m.spec.ports.map((p: any) => p.targetPort)).toEqual([{ type: 1, strVal: 'http' }, { intVal: 9090 }]);
  });

  it('CRD schema: recursive JSONSchemaProps, JSON values, OrBool/OrArray wrappers', () => {
    const m = toObject(type('k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'), encodeProtobufRaw(crd));
    const spec = m.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.properties.size.maximum).toBe(100);
    expect(spec.properties.size.default.raw).toBe(Buffer.from('1').toString('base64'));
    expect(spec.properties.tags.items.schema.type).toBe('string');
    expect(spec.properties.pair.items.jSONSchemas.map((s: any) => s.type)).toEqual(['string', 'integer']);
    expect(spec.properties.free.additionalProperties).toEqual({ allows: true });
    expect(spec.properties.closed.additionalProperties).toEqual({ allows: false });
    expect(spec.properties.labels.additionalProperties.schema.type).toBe('string');
    expect(spec.properties.both.dependencies.a.property).toEqual(['b', 'c']);
    expect(spec.xKubernetesValidations[0].rule).toBe('self.size <= self.max');
    expect(m.spec.versions[1].served).toBe(false);
  });

  it('the envelope is a runtime.Unknown after the prefix', () => {
    const bytes = encodeProtobufObject(configMap);
    expect(Array.from(bytes.subarray(0, 4))).toEqual(Array.from(PROTOBUF_PREFIX));
    const u = toObject(type('k8s.io.apimachinery.pkg.runtime.Unknown'), bytes.subarray(4));
    expect(u.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(u.raw).toBe(Buffer.from(encodeProtobufRaw(configMap)).toString('base64'));
  });

  it('a watch frame holds a raw WatchEvent whose object is a full envelope', () => {
    const obj = encodeProtobufObject(configMap);
    const frame = encodeProtobufWatchFrame('ADDED', obj);
    const ev = type('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(frame.subarray(4)) as any;
    expect(ev.type).toBe('ADDED');
    expect(Buffer.from(ev.object.raw).equals(Buffer.from(obj))).toBe(true);
  });
});

describe('we read protobufjs bytes', () => {
  it('Deployment written by protobufjs', () => {
    const t = type('k8s.io.api.apps.v1.Deployment');
    const bytes = t.encode(t.fromObject({
      metadata: { name: 'd', namespace: 'ns', labels: { a: 'b' }, creationTimestamp: { seconds: 1704164645, nanos: 5 } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { memory: { string: '64Mi' } } } }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: { type: 1, strVal: '10%' }, maxUnavailable: { type: 0, intVal: 0 } } },
        paused: false,
      },
    })).finish();
    expect(decodeProtobufRaw('apps/v1', 'Deployment', bytes)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'ns', labels: { a: 'b' }, creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: {
        replicas: 0, // pointer: explicit zero survives
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { memory: '64Mi' } } }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: 0 } },
        // paused=false is a Go value field with omitempty: not shown
      },
    });
  });

  it('packed repeated scalars are accepted', () => {
    const t = type('k8s.io.api.core.v1.PodSecurityContext');
    const w = protobuf.Writer.create();
    w.uint32((4 << 3) | 2).fork().int64(1000).int64(3000).ldelim();
    expect(decodeProtobufRaw('v1', 'Pod', protobuf.Writer.create().uint32((2 << 3) | 2).fork()
      .uint32((14 << 3) | 2).bytes(w.finish()).ldelim().finish())).toEqual({
      apiVersion: 'v1', kind: 'Pod', spec: { securityContext: { supplementalGroups: [1000, 3000] } },
    });
    expect(t.decode(w.finish())).toBeTruthy();
  });

  it('an envelope written by protobufjs decodes', () => {
    const unknown = type('k8s.io.apimachinery.pkg.runtime.Unknown');
    const raw = type('k8s.io.api.core.v1.Namespace').encode({ metadata: { name: 'ns1' }, spec: {}, status: {} }).finish();
    const body = unknown.encode({ typeMeta: { apiVersion: 'v1', kind: 'Namespace' }, raw, contentEncoding: '', contentType: '' }).finish();
    const full = new Uint8Array(4 + body.length);
    full.set(PROTOBUF_PREFIX);
    full.set(body, 4);
    expect(decodeProtobufObject(full)).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {}, status: {} });
  });
});
