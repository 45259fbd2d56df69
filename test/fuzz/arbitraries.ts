// fast-check generators for every decoder and parameter of the HTTP API: bodies in each encoding
// (valid, mutated, wrong-typed, random bytes, deep, huge), each patch type, selectors, continue tokens,
// list/watch/write query parameters, Accept/Content-Type headers and hostile names in paths.
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import { encodeCbor } from '../../src/api/cbor.js';
import { encodeProtobufObject } from '../../src/api/protobuf/index.js';
import { utf8, type FuzzCase } from './case.js';
import { collectionPath, FUZZ_NS, SERVICES, TARGETS, type Target } from './targets.js';

type Json = unknown;

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
/** `a` with probability 1/n, else undefined (fc.option's freq is the other way round). */
const rarely = <T>(n: number, a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof(w(n - 1, fc.constant(undefined)), w(1, a));

// ---------- names and namespaces in paths ----------

const HOSTILE_SEGMENTS = ['..', '%2e%2e', '%2E%2e', '.', '%2e', '%2F', 'a%2Fb', '..%2F..', '%00', '%', '%zz', '%C3%BC', '%F0%9F%92%A9', '%E2%80%AE', 'a%20b', 'A', '-a', 'a-', '%252e%252e', 'fz-0%00', 'fz-0;x', 'fz-0?', '~'];

const validName = fc.integer({ min: 0, max: 19 }).map((i) => `fz-${i}`);
const hostileName = fc.oneof(
  fc.constantFrom(...HOSTILE_SEGMENTS),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => encodeURIComponent(s)),
  fc.integer({ min: 250, max: 300 }).map((n) => 'a'.repeat(n)),
);
export const nameArb = fc.oneof(w(8, validName), w(2, hostileName));
const namespaceArb = fc.oneof(w(12, fc.constant(FUZZ_NS)), w(1, fc.constantFrom('default', 'kube-system', 'missing-ns')), w(2, hostileName));

// ---------- query parameters ----------

const anyString = fc.string({ maxLength: 40 });
const intLike = fc.oneof(fc.constantFrom('0', '1', '-1', '500', '1.5', '1e3', 'abc', '', '99999999999999999999', '9007199254740993', '0x10', ' 1'), fc.integer().map(String));

const labelSelector = fc.oneof(
  fc.constantFrom('app=fuzz', 'app in (fuzz,web)', '!app', 'app!=x', 'tier', 'app=fuzz,tier=a', 'app notin (a)', 'a==b', 'app in ()', '((((', 'a=b=c', '=', ',', 'app in (', `a=${'b'.repeat(100)}`, 'example.com/x=y', '-a=b', 'a=b,'.repeat(200)),
  anyString,
);
const fieldSelector = fc.oneof(
  fc.constantFrom('metadata.name=fz-1', 'metadata.namespace!=x', 'metadata.name==fz-2', 'spec.nodeName=', 'status.phase=Running', 'bogus.field=1', 'metadata.name', 'metadata.name=a,metadata.name=b', '=', 'metadata.name=\\', 'type=Opaque'),
  anyString,
);

function b64url(s: string): string {
  return Buffer.from(s).toString('base64url');
}
const continueToken = fc.oneof(
  fc.record({ rv: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.constantFrom(0, 1e20, -1e20, 1.5)), start: fc.oneof(fc.constantFrom('fz-1\u0000', '../../secrets/', '/', '', '\u0000', 'fuzz/fz-1\u0000', '..'), anyString), v: fc.constantFrom('meta.k8s.io/v1', 'meta.service.io/v1', 'v2') }).map((t) =>
    b64url(JSON.stringify(t)),
  ),
  fc.constantFrom(b64url('{'), b64url('null'), b64url('[]'), b64url('{"rv":"1","start":{}}'), '====', '%%%', 'a'.repeat(5000)),
  anyString,
);

const queryParam = {
  labelSelector,
  fieldSelector,
  continue: continueToken,
  limit: intLike,
  // a too-large resourceVersion makes a read wait (3 s upstream) before its 504, so those are rare
  resourceVersion: fc.oneof(w(100, fc.constantFrom('', '0', '1', '-1', 'abc', '1.5', '9999999999999999999999', '1e3', ' 1')), w(100, fc.nat(40).map(String)), w(1, fc.nat().map(String))),
  resourceVersionMatch: fc.constantFrom('NotOlderThan', 'Exact', '', 'bogus', 'exact'),
  timeoutSeconds: fc.oneof(fc.constantFrom('0', '1', '-1', '3000000', '99999999999', '1.5', 'abc', '2147484'), intLike),
  allowWatchBookmarks: fc.constantFrom('true', 'false', 'abc'),
  sendInitialEvents: fc.constantFrom('true', 'false', '1', 'abc'),
  dryRun: fc.oneof(fc.constantFrom('All', '', 'all', 'bogus', 'All,All'), anyString),
  fieldManager: fc.oneof(fc.constantFrom('fuzz', 'kubectl', '', 'a'.repeat(129), 'a'.repeat(128), 'x\u0001y', '\u00fc', ' '), anyString),
  fieldValidation: fc.constantFrom('Strict', 'Warn', 'Ignore', '', 'strict', 'bogus'),
  propagationPolicy: fc.constantFrom('Orphan', 'Background', 'Foreground', '', 'bogus'),
  gracePeriodSeconds: fc.oneof(fc.constantFrom('0', '-1', '30', 'abc', '99999999999', '1.5', '9223372036854775808'), intLike),
  orphanDependents: fc.constantFrom('true', 'false', 'abc'),
  force: fc.constantFrom('true', 'false', 'abc'),
  pretty: fc.constantFrom('true', 'false', '1'),
  includeObject: fc.constantFrom('Object', 'Metadata', 'None', 'bogus'),
  follow: fc.constantFrom('true', 'false'),
  container: anyString,
};
const watchParam = fc.constantFrom('true', 'false', '1', 'abc', '');

/** A random subset of the query parameters (each present with low probability), plus a junk one sometimes. */
const queryArb = fc
  .record(
    {
      ...Object.fromEntries(Object.entries(queryParam).map(([k, a]) => [k, rarely(10, a as fc.Arbitrary<string>)])),
      watch: rarely(25, watchParam),
      junk: rarely(10, fc.tuple(anyString, anyString)),
    },
    { requiredKeys: [] },
  )
  .map((r) => {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(r)) {
      if (v === undefined) continue;
      if (k === 'junk') {
        const [jk, jv] = v as [string, string];
        parts.push(`${encodeURIComponent(jk)}=${encodeURIComponent(jv)}`);
      } else parts.push(`${k}=${encodeURIComponent(v as string)}`);
    }
    // a raw (undecoded) junk string now and then: broken percent escapes, repeated keys
    return parts.join('&');
  });
const rawQueryJunk = fc.constantFrom('', '', '', '', '&&&', '=', '%', 'limit=1&limit=2', 'watch=%ZZ', 'a[]=1&a[]=2', 'labelSelector=%E0%A4%A');

// ---------- headers ----------

const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/cbor',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.service.protobuf',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/cbor-seq',
  'text/plain',
  '*/*',
  'application/*',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'json',
  ';',
  '',
];
const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/cbor',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.service.protobuf',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1;g=meta.service.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io',
  'application/json;stream=watch',
  'application/json;as=Bogus;v=v9;g=x',
  'application/json;q=0',
  'text/html',
  '*/*',
  '*/*;q=0.1, application/json;q=oops',
  'application/*',
  ',,,',
  '',
];
export const contentTypeArb = fc.oneof(w(4, fc.constantFrom(...CONTENT_TYPES)), w(1, anyString));
const acceptArb = fc.option(fc.oneof(w(6, fc.constantFrom(...ACCEPTS)), w(1, anyString)), { nil: undefined, freq: 5 });
const extraHeaders = rarely(
  8,
  fc.constantFrom<Record<string, string>>(
    { Host: 'evil.example' },
    { Origin: 'http://evil.example' },
    { 'Accept-Encoding': 'gzip, deflate, br' },
    { 'Accept-Encoding': 'bogus;q=oops' },
    { 'Content-Encoding': 'gzip' },
    { 'Transfer-Encoding': 'chunked' },
    { 'X-Forwarded-For': '1.2.3.4' },
    { Upgrade: 'websocket', Connection: 'Upgrade' },
    { 'Impersonate-User': 'system:admin' },
    { Authorization: 'Bearer x' },
  ),
);

// ---------- bodies ----------

const WELL_KNOWN_PATHS = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'generateName'],
  ['metadata', 'labels'],
  ['metadata', 'labels', 'app'],
  ['metadata', 'annotations'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'uid'],
  ['metadata', 'generation'],
  ['metadata', 'ownerReferences'],
  ['metadata', 'finalizers'],
  ['metadata', 'managedFields'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'deletionGracePeriodSeconds'],
  ['data'],
  ['data', 'a'],
  ['stringData'],
  ['type'],
  ['spec'],
  ['spec', 'replicas'],
  ['spec', 'selector'],
  ['spec', 'template'],
  ['spec', 'containers'],
  ['spec', 'containers', '0'],
  ['spec', 'containers', '0', 'name'],
  ['spec', 'containers', '0', 'ports'],
  ['spec', 'ports'],
  ['spec', 'finalizers'],
  ['status'],
  ['items'],
  ['unknownField'],
];
const WRONG_VALUES: Json[] = [null, true, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', 'x', '\u0000', '2024-13-45T99:99:99Z', [], [null], {}, { '': 1 }, [{}], { $patch: 'delete' }, 'a'.repeat(70_000)];
const wrongValue = fc.oneof(fc.constantFrom(...WRONG_VALUES), fc.jsonValue({ maxDepth: 3 }));

function setPath(obj: Json, path: string[], value: Json | undefined): Json {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  const base: Record<string, unknown> = obj !== null && typeof obj === 'object' ? (Array.isArray(obj) ? { ...obj } : { ...(obj as Record<string, unknown>) }) : {};
  if (rest.length === 0 && value === undefined) delete base[head];
  else base[head] = setPath(base[head], rest, value);
  return base;
}

const mutation = fc.record({ path: fc.constantFrom(...WELL_KNOWN_PATHS), value: fc.option(wrongValue, { nil: undefined, freq: 8 }) });

function deep(levels: number, kind: 'obj' | 'arr'): Json {
  let v: Json = 1;
  for (let i = 0; i < levels; i++) v = kind === 'obj' ? { a: v } : [v];
  return v;
}

/** An object for the target: valid, mutated in a few well-known fields, deep, or huge. */
function objectArb(t: Target, name: string, ns: string): fc.Arbitrary<Json> {
  const valid = t.make(name, ns);
  return fc.oneof(
    w(5, fc.constant(valid)),
    w(5, fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => ms.reduce<Json>((o, m) => setPath(o, m.path, m.value), valid))),
    w(2, fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }).map((extra) => ({ ...valid, ...extra }))),
    w(1, fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.constantFrom<'obj' | 'arr'>('obj', 'arr')).map(([n, k]) => setPath(valid, ['spec', 'deep'], deep(n, k)))),
    w(1, fc.integer({ min: 100_000, max: 1_400_000 }).map((n) => setPath(valid, ['metadata', 'annotations', 'big'], 'h'.repeat(n)))),
    w(1, fc.jsonValue({ maxDepth: 4 })),
  );
}

type Encoding = 'json' | 'yaml' | 'cbor' | 'protobuf';

function encode(value: Json, e: Encoding): Uint8Array {
  try {
    switch (e) {
      case 'json':
        return utf8(JSON.stringify(value) ?? 'null');
      case 'yaml':
        return utf8(yamlStringify(value, { aliasDuplicateObjects: false }));
      case 'cbor':
        return encodeCbor(value);
      case 'protobuf':
        return encodeProtobufObject(value as never);
    }
  } catch {
    // not encodable in this format (e.g. protobuf of a wrong-typed object): send it as JSON instead
    return utf8(JSON.stringify(value) ?? 'null');
  }
}

const ENCODING_TYPES: Record<Encoding, string> = { json: 'application/json', yaml: 'application/yaml', cbor: 'application/cbor', protobuf: 'application/vnd.kubernetes.protobuf' };

/** Bytes that are not a well-formed document: random, truncated or bit-flipped encodings. */
function damaged(bytes: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, bytes.length - 1) }).map((n) => bytes.slice(0, n)),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
      const out = bytes.slice();
      for (const [at, v] of flips) if (out.length) out[at % out.length] = v;
      return out;
    }),
    fc.uint8Array({ maxLength: 256 }).map((r) => new Uint8Array([...bytes.slice(0, 4), ...r])),
    fc.uint8Array({ maxLength: 512 }),
  );
}

// ---------- patches ----------

const PATCH_PATHS = ['/metadata/labels/x', '/metadata/labels', '/data/a', '/data/~1x', '/data/~2', '/spec', '/spec/containers/0/image', '/spec/containers/-', '/spec/replicas', '/metadata', '/metadata/name', '/metadata/resourceVersion', '/metadata/finalizers/-', '', '/', '/-', '/a/b/c', '/spec/containers/999', '/spec/containers/-1', '/spec/containers/01'];
const patchPath = fc.oneof(w(5, fc.constantFrom(...PATCH_PATHS)), w(1, anyString));
const jsonPatchOp = fc.record(
  { op: fc.oneof(w(6, fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test')), w(1, fc.constantFrom('bogus', '', 'ADD')), w(1, fc.jsonValue({ maxDepth: 1 }))), path: patchPath, from: patchPath, value: wrongValue },
  { requiredKeys: ['op', 'path'] },
);
const jsonPatchArb = fc.oneof(w(6, fc.array(jsonPatchOp, { maxLength: 8 })), w(1, fc.jsonValue({ maxDepth: 3 })));
const mergePatchArb = fc.oneof(
  w(3, fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => ms.reduce<Json>((o, m) => setPath(o, m.path, m.value === undefined ? null : m.value), {}))),
  w(1, fc.jsonValue({ maxDepth: 4 })),
);
const SMP_DIRECTIVES: Json[] = [
  { $patch: 'delete' },
  { $patch: 'replace' },
  { $patch: 'bogus' },
  { spec: { containers: [{ name: 'c', $patch: 'delete' }] } },
  { spec: { containers: [{ image: 'no-name' }] } },
  { spec: { containers: { $patch: 'replace' } } },
  { spec: { $retainKeys: ['replicas'], replicas: 2 } },
  { spec: { $retainKeys: 'not-a-list' } },
  { spec: { $setElementOrder$containers: [{ name: 'c' }, { name: 'zz' }] } },
  { 'spec/$setElementOrder/containers': [{ name: 'c' }] },
  { metadata: { $deleteFromPrimitiveList$finalizers: ['x'] } },
  { metadata: { 'labels': { $patch: 'delete' } } },
  { metadata: { finalizers: [{ $patch: 'replace' }] } },
];
const smpArb = fc.oneof(w(2, fc.constantFrom(...SMP_DIRECTIVES)), w(2, mergePatchArb));

// ---------- whole requests ----------

const targetArb = fc.oneof(w(30, fc.constantFrom(...TARGETS)), w(1, fc.constant(SERVICES)));

interface Shape {
  t: Target;
  ns: string;
  name: string;
  sub: string;
  query: string;
  rawJunk: string;
  accept: string | undefined;
  extra: Record<string, string> | undefined;
}

const shapeArb: fc.Arbitrary<Shape> = fc
  .record({ t: targetArb, ns: namespaceArb, name: nameArb, subPick: fc.nat(20), query: queryArb, rawJunk: rawQueryJunk, accept: acceptArb, extra: extraHeaders })
  .map(({ t, subPick, ...r }) => ({ t, ...r, sub: subPick < t.subresources.length && subPick % 3 === 0 ? `/${t.subresources[subPick]}` : subPick === 20 ? '/bogus' : '' }));

function url(path: string, s: Shape): string {
  const q = [s.query, s.rawJunk].filter(Boolean).join('&');
  return q ? `${path}?${q}` : path;
}

function headers(s: Shape, contentType?: string): Record<string, string> {
  const h: Record<string, string> = {};
  if (s.accept !== undefined) h.Accept = s.accept;
  if (contentType !== undefined) h['Content-Type'] = contentType;
  return { ...h, ...s.extra };
}

/** Request families, each generating a FuzzCase from a request shape. */
function bodyCase(s: Shape, method: 'POST' | 'PUT', collection: boolean): fc.Arbitrary<FuzzCase> {
  const path = collection ? collectionPath(s.t, s.ns) : `${collectionPath(s.t, s.ns)}/${s.name}${s.sub}`;
  const name = collection ? `fz-${Math.abs(hash(s.query)) % 40}` : safeDecode(s.name);
  const encodings: Encoding[] = s.t.protobuf ? ['json', 'yaml', 'cbor', 'protobuf'] : ['json', 'yaml', 'cbor'];
  return fc
    .record({
      value: objectArb(s.t, name, s.ns),
      encoding: fc.constantFrom(...encodings),
      ctPick: fc.oneof(w(4, fc.constant<string | null>(null)), w(1, contentTypeArb), w(1, fc.constant<string | undefined>(undefined))),
      damage: fc.nat(9),
      junk: fc.uint8Array({ maxLength: 64 }),
    })
    .chain(({ value, encoding, ctPick, damage, junk }) => {
      const bytes = encode(value, encoding);
      const ct = ctPick === null ? ENCODING_TYPES[encoding] : ctPick;
      const label = `${method} ${s.t.plural} ${encoding}${damage === 0 ? ' damaged' : ''} as ${ct ?? '(none)'}`;
      const body = damage === 0 ? damaged(bytes) : fc.constant(damage === 1 ? junk : bytes);
      return body.map((b): FuzzCase => ({ label, method, path: url(path, s), headers: headers(s, ct), body: b, guard: s.t.storePrefix }));
    });
}

function patchCase(s: Shape): fc.Arbitrary<FuzzCase> {
  const path = `${collectionPath(s.t, s.ns)}/${s.name}${s.sub}`;
  const encodings: Encoding[] = ['json', 'yaml', 'cbor'];
  const kinds = ['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-yaml', 'apply-cbor'] as const;
  return fc.record({ kind: fc.constantFrom(...kinds), jp: jsonPatchArb, mp: mergePatchArb, smp: smpArb, apply: objectArb(s.t, safeDecode(s.name), s.ns), ct: rarely(6, contentTypeArb), enc: fc.constantFrom(...encodings), damage: fc.nat(9) }).chain((r) => {
    let value: Json;
    let ct: string;
    let encoding: Encoding = 'json';
    switch (r.kind) {
      case 'json-patch':
        value = r.jp;
        ct = 'application/json-patch+json';
        break;
      case 'merge-patch':
        value = r.mp;
        ct = 'application/merge-patch+json';
        break;
      case 'strategic-merge-patch':
        value = r.smp;
        ct = 'application/strategic-merge-patch+json';
        break;
      case 'apply-yaml':
        value = r.apply;
        ct = 'application/apply-patch+yaml';
        encoding = r.enc === 'cbor' ? 'yaml' : r.enc;
        break;
      case 'apply-cbor':
        value = r.apply;
        ct = 'application/apply-patch+cbor';
        encoding = 'cbor';
        break;
    }
    const bytes = encode(value, encoding);
    const contentType = r.ct ?? ct;
    const label = `PATCH ${s.t.plural} ${r.kind}${r.damage === 0 ? ' damaged' : ''} as ${contentType}`;
    return (r.damage === 0 ? damaged(bytes) : fc.constant(bytes)).map((b): FuzzCase => ({ label, method: 'PATCH', path: url(path, s), headers: headers(s, contentType), body: b, guard: s.t.storePrefix }));
  });
}

function readCase(s: Shape, collection: boolean): FuzzCase {
  const path = collection ? collectionPath(s.t, s.ns) : `${collectionPath(s.t, s.ns)}/${s.name}${s.sub}`;
  return { label: `GET ${s.t.plural} ${collection ? 'list' : 'one'}`, method: 'GET', path: url(path, s), headers: headers(s), guard: s.t.storePrefix };
}

function deleteCase(s: Shape, collection: boolean): fc.Arbitrary<FuzzCase> {
  const path = collection ? collectionPath(s.t, s.ns) : `${collectionPath(s.t, s.ns)}/${s.name}${s.sub}`;
  // DeleteOptions body: none, valid, wrong-typed or junk
  const opts = fc.option(
    fc.oneof(
      fc.constant<Json>({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }),
      fc.record({ gracePeriodSeconds: wrongValue, preconditions: fc.oneof(fc.constant<Json>({ uid: 'nope' }), wrongValue), propagationPolicy: wrongValue, dryRun: wrongValue }, { requiredKeys: [] }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { nil: undefined, freq: 2 },
  );
  return fc.tuple(opts, rarely(4, contentTypeArb)).map(([o, ct]): FuzzCase => ({
    label: `DELETE ${s.t.plural} ${collection ? 'collection' : 'one'}`,
    method: 'DELETE',
    path: url(path, s),
    headers: headers(s, o === undefined ? undefined : (ct ?? 'application/json')),
    ...(o === undefined ? {} : { body: utf8(JSON.stringify(o) ?? 'null') }),
    guard: s.t.storePrefix,
  }));
}

/** Paths outside the resource tree: discovery, OpenAPI, health, and junk, with the same headers and query. */
const OTHER_PATHS = ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/apis/fuzz.example.com/v1', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/version', '/healthz', '/livez/ping', '/readyz/x', '/metrics', '/apis/bogus/v1/things', '/api/v2', '/api/v1/bogus', '/api/v1/namespaces/fuzz/bogus/x', '//api//v1', '/api/v1/../v1/namespaces', '/api/v1/namespaces/fuzz/configmaps/fz-1/../fz-2', '/%2e%2e/%2e%2e/etc/passwd', '/api/v1/watch/namespaces/fuzz/configmaps', '/api/v1/proxy', '/index.html'];
function otherCase(s: Shape): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(...OTHER_PATHS), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PATCH')).map(([p, m]): FuzzCase => ({ label: `${m} other`, method: m, path: url(p, s), headers: headers(s), guard: '/registry/' }));
}

export const caseArb: fc.Arbitrary<FuzzCase> = shapeArb.chain((s) =>
  fc.oneof(
    w(6, bodyCase(s, 'POST', true)),
    w(4, bodyCase(s, 'PUT', false)),
    w(6, patchCase(s)),
    w(3, fc.constant(readCase(s, true))),
    w(3, fc.constant(readCase(s, false))),
    w(2, deleteCase(s, false)),
    // deletecollection of namespaces would take the fuzz namespace (and everything in it) away
    w(s.t.namespaced ? 1 : 0, deleteCase(s, true)),
    w(1, otherCase(s)),
  ),
);

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
