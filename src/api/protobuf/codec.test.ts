import { describe, expect, it } from 'vitest';
import {
  PROTOBUF_PREFIX, ProtobufError, decodeProtobufEnvelope, decodeProtobufObject, decodeProtobufRaw, encodeListFromItems,
  encodeProtobufEnvelope, encodeProtobufObject, encodeProtobufRaw, hasProtobufPrefix, hasProtobufType, type JsonObject,
} from './index.js';
import { configMap, crd, deployment, pod, roundTripFixtures, secret } from './testdata.js';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('protobuf codec round trips', () => {
  for (const [name, obj] of Object.entries(roundTripFixtures)) {
    it(`${name}: JSON -> protobuf -> JSON is unchanged`, () => {
      const before = clone(obj);
      const bytes = encodeProtobufObject(obj);
      expect(obj).toEqual(before); // the encoder does not touch its input
      expect(hasProtobufPrefix(bytes)).toBe(true);
      expect(decodeProtobufObject(bytes)).toEqual(obj);
    });
  }

  it('puts apiVersion and kind first, as written on the object', () => {
    const out = decodeProtobufObject(encodeProtobufObject(roundTripFixtures.roleBinding));
    expect(Object.keys(out).slice(0, 2)).toEqual(['apiVersion', 'kind']);
    expect(out.apiVersion).toBe('rbac.authorization.service.io/v1');
    const env = decodeProtobufEnvelope(encodeProtobufObject(roundTripFixtures.roleBinding));
    expect(env).toMatchObject({ apiVersion: 'rbac.authorization.service.io/v1', kind: 'RoleBinding', contentType: '', contentEncoding: '' });
  });

  it('accepts the upstream group spellings as aliases', () => {
    const upstream = { ...roundTripFixtures.lease, apiVersion: 'coordination.k8s.io/v1' };
    expect(decodeProtobufObject(encodeProtobufObject(upstream))).toEqual(upstream);
    const crdUpstream = { ...crd, apiVersion: 'apiextensions.k8s.io/v1' };
    expect(decodeProtobufObject(encodeProtobufObject(crdUpstream))).toEqual(crdUpstream);
  });

  it('keeps secret bytes exact, including non-UTF-8 data', () => {
    const out = decodeProtobufObject(encodeProtobufObject(secret)) as { data: Record<string, string> };
    expect(out.data.binary).toBe('/wD+AQID');
    const raw = encodeProtobufRaw(secret);
    // the binary value travels as raw bytes, not as its base64 text
    const needle = [0xff, 0x00, 0xfe, 0x01, 0x02, 0x03];
    const hay = Array.from(raw);
    expect(hay.some((_, i) => needle.every((b, j) => hay[i + j] === b))).toBe(true);
  });

  it('normalises JSON forms the way the JSON API shows them', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        creationTimestamp: '2024-01-02T05:04:05.999+02:00', // offset and fraction -> UTC, whole seconds
        deletionTimestamp: null,
        labels: {},
      },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: 2 } }, ports: [{ containerPort: '80' }] }], hostNetwork: false },
    };
    expect(decodeProtobufObject(encodeProtobufObject(obj))).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '2' } }, ports: [{ containerPort: 80 }] }] },
    });
  });

  it('drops JSON keys the message does not have', () => {
    const out = decodeProtobufObject(encodeProtobufObject({ ...configMap, unknownTopLevel: 1, metadata: { name: 'x', bogus: true } }));
    expect(out).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: configMap.data, binaryData: configMap.binaryData });
  });

  it('encodes IntOrString with the upstream type discriminator', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] } };
    const out = decodeProtobufObject(encodeProtobufObject(svc));
    expect(out.spec).toEqual({ ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] });
  });

  it('keeps fields in declaration order when decoding', () => {
    const out = decodeProtobufObject(encodeProtobufObject(configMap));
    // ConfigMap declares immutable(4) before data(2): JSON follows the Go struct order, not field numbers
    expect(Object.keys(out)).toEqual(['apiVersion', 'kind', 'metadata', 'data', 'binaryData']);
    expect(Object.keys((decodeProtobufObject(encodeProtobufObject(deployment)) as { spec: JsonObject }).spec)).toEqual([
      'replicas', 'selector', 'template', 'strategy', 'revisionHistoryLimit', 'progressDeadlineSeconds',
    ]);
  });
});

describe('lists', () => {
  const items = [pod, { ...pod, metadata: { ...(pod.metadata as JsonObject), name: 'web-1', uid: 'uid-web-1' } }];
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '4800', continue: 'tok', remainingItemCount: 0 }, items };

  it('encodeListFromItems writes the same bytes as encoding the whole list', () => {
    const whole = encodeProtobufObject(list);
    const fromItems = encodeListFromItems('v1', 'PodList', list.metadata, items.map((i) => encodeProtobufRaw(i)));
    expect(Buffer.from(fromItems).equals(Buffer.from(whole))).toBe(true);
  });

  it('decodes list items without their own apiVersion/kind, like upstream lists', () => {
    const out = decodeProtobufObject(encodeProtobufObject(list)) as { metadata: JsonObject; items: JsonObject[] };
    expect(out.metadata).toEqual({ resourceVersion: '4800', continue: 'tok', remainingItemCount: 0 });
    const strip = ({ apiVersion: _a, kind: _k, ...rest }: JsonObject) => rest;
    expect(out.items).toEqual(items.map(strip));
  });

  it('writes an empty list with empty ListMeta', () => {
    const bytes = encodeListFromItems('apps/v1', 'DeploymentList', undefined, []);
    expect(decodeProtobufObject(bytes)).toEqual({ apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: {} });
    expect(() => encodeListFromItems('v1', 'Pod', {}, [])).toThrow(/not a list type/);
  });

  it('handles metadata-only lists', () => {
    const l = {
      apiVersion: 'meta.service.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '9' },
      items: [{ metadata: { name: 'a', namespace: 'n', resourceVersion: '3' } }],
    };
    const raw = encodeProtobufRaw({ apiVersion: 'meta.service.io/v1', kind: 'PartialObjectMetadata', ...l.items[0] });
    const bytes = encodeListFromItems(l.apiVersion, l.kind, l.metadata, [raw]);
    expect(decodeProtobufObject(bytes)).toEqual(l);
  });

  it('handles large lists (multi-byte lengths at every level)', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ ...configMap, metadata: { name: `cm-${i}`, namespace: 'x' }, data: { blob: 'x'.repeat(i * 7) } }));
    const big = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: many };
    const out = decodeProtobufObject(encodeProtobufObject(big)) as { items: JsonObject[] };
    expect(out.items).toHaveLength(300);
    expect(out.items[299]).toEqual({ metadata: { name: 'cm-299', namespace: 'x' }, data: { blob: 'x'.repeat(299 * 7) }, binaryData: configMap.binaryData });
  });
});

describe('types and errors', () => {
  it('knows which types have a protobuf form', () => {
    expect(hasProtobufType('v1', 'ConfigMap')).toBe(true);
    expect(hasProtobufType('v1', 'ConfigMapList')).toBe(true);
    expect(hasProtobufType('apps/v1', 'Deployment')).toBe(true);
    expect(hasProtobufType('rbac.authorization.service.io/v1', 'ClusterRoleBinding')).toBe(true);
    expect(hasProtobufType('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding')).toBe(true);
    expect(hasProtobufType('apiextensions.service.io/v1', 'CustomResourceDefinitionList')).toBe(true);
    expect(hasProtobufType('policy/v1', 'Eviction')).toBe(true);
    expect(hasProtobufType('autoscaling/v1', 'Scale')).toBe(true);
    expect(hasProtobufType('apps/v1', 'Status')).toBe(true);
    expect(hasProtobufType('meta.service.io/v1', 'PartialObjectMetadataList')).toBe(true);
    // custom resources and types upstream marks +protobuf=false
    expect(hasProtobufType('example.com/v1', 'Widget')).toBe(false);
    expect(hasProtobufType('meta.service.io/v1', 'Table')).toBe(false);
    expect(hasProtobufType('v1', 'Deployment')).toBe(false);
    expect(hasProtobufType('apps/v1beta1', 'Deployment')).toBe(false);
  });

  it('rejects bodies without the prefix', () => {
    const json = new TextEncoder().encode('{"apiVersion":"v1","kind":"ConfigMap"}');
    expect(() => decodeProtobufObject(json)).toThrow(ProtobufError);
    expect(() => decodeProtobufObject(json)).toThrow(/expected prefix/);
    expect(() => decodeProtobufObject(new Uint8Array([0x6b, 0x38]))).toThrow(/expected prefix/);
  });

  it('rejects truncated and unknown-type bodies with clear errors', () => {
    const bytes = encodeProtobufObject(configMap);
    expect(() => decodeProtobufObject(bytes.subarray(0, bytes.length - 3))).toThrow(ProtobufError);
    const alien = encodeProtobufEnvelope('example.com/v1', 'Widget', new Uint8Array([0x0a, 0x00]));
    expect(() => decodeProtobufObject(alien)).toThrow(/no protobuf serialization for Widget in example\.com\/v1/);
    expect(() => encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Widget', spec: {} })).toThrow(/Widget/);
    expect(() => encodeProtobufObject({ kind: 'Pod' })).toThrow(/apiVersion/);
  });

  it('reports wrongly typed JSON values', () => {
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'Pod', spec: { containers: { name: 'x' } } })).toThrow(/containers/);
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'Pod', spec: { priority: 'high' } })).toThrow(/priority/);
  });

  it('decodes envelopes carrying JSON content', () => {
    const raw = new TextEncoder().encode(JSON.stringify({ metadata: { name: 'j' } }));
    const w = [...PROTOBUF_PREFIX, 0x0a, 0x0d, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x07, ...new TextEncoder().encode('Example'),
      0x12, raw.length, ...raw, 0x22, 0x10, ...new TextEncoder().encode('application/json')];
    expect(decodeProtobufObject(Uint8Array.from(w))).toEqual({ apiVersion: 'v1', kind: 'Example', metadata: { name: 'j' } });
  });

  it('decodeProtobufRaw decodes a bare message', () => {
    expect(decodeProtobufRaw('v1', 'ConfigMap', encodeProtobufRaw(configMap))).toEqual(configMap);
  });
});
