// Known-bad inputs from issue 14's findings: every fuzz run sends these before the generated cases.
import { cbor, utf8, type FuzzCase } from './case.js';
import { CRD_GROUP, FUZZ_NS } from './targets.js';

const CM = `/api/v1/namespaces/${FUZZ_NS}/configmaps`;
const CM_GUARD = '/registry/core/configmaps/';
const WIDGET = `/apis/${CRD_GROUP}/v1/namespaces/${FUZZ_NS}/widgets`;
const WIDGET_GUARD = `/registry/${CRD_GROUP}/widgets/`;
const json = { 'Content-Type': 'application/json', Accept: 'application/json' };
const yamlCt = { 'Content-Type': 'application/yaml', Accept: 'application/json' };

function post(label: string, body: Uint8Array | string, headers: Record<string, string> = json, path = CM, guard = CM_GUARD): FuzzCase {
  return { label, method: 'POST', path, headers, body: typeof body === 'string' ? utf8(body) : body, guard };
}

/** Past an upstream limit: must be answered 4xx. */
const over = (c: FuzzCase): FuzzCase => ({ ...c, expectReject: true });

function nestedJson(levels: number, open: string, close: string): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${open.repeat(levels)}1${close.repeat(levels)}}`;
}

function manyFields(n: number, nameLen = 1): string {
  const pad = 'f'.repeat(Math.max(0, nameLen - 1));
  const fields = Array.from({ length: n }, (_, i) => `"${pad}${i}":1`).join(',');
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many-fields"},${fields}}`;
}

function billionLaughs(): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: laughs}', 'x:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const letters = 'abcdefghi';
  for (let i = 1; i < letters.length; i++) {
    const prev = letters[i - 1]!;
    lines.push(`  ${letters[i]}: &${letters[i]} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  lines.push('data: {k: *i}');
  return lines.join('\n') + '\n';
}

/** Shared-value tags 28 (shareable) / 29 (reference): each level is nine references to the level before. */
function cborSharedRefs(levels: number): Uint8Array {
  const out: number[] = [...cbor.selfDescribed, ...cbor.head(5, 4)];
  out.push(...cbor.text('apiVersion'), ...cbor.text('v1'), ...cbor.text('kind'), ...cbor.text('ConfigMap'));
  out.push(...cbor.text('metadata'), ...cbor.head(5, 1), ...cbor.text('name'), ...cbor.text('shared-refs'));
  out.push(...cbor.text('data'), ...cbor.head(5, levels));
  for (let l = 0; l < levels; l++) {
    out.push(...cbor.text(`l${l}`), 0xd8, 28, ...cbor.head(4, 9));
    for (let j = 0; j < 9; j++) {
      if (l === 0) out.push(...cbor.text('lol'));
      else out.push(0xd8, 29, ...cbor.head(0, l - 1));
    }
  }
  return new Uint8Array(out);
}

function chainedCopyPatch(ops: number): string {
  const patch: unknown[] = [{ op: 'add', path: '/spec/x', value: ['y'.repeat(1024)] }];
  while (patch.length < ops) patch.push({ op: 'copy', from: '/spec/x', path: '/spec/x/-' });
  return JSON.stringify(patch);
}

export function seedCases(opts: { cbor: boolean }): FuzzCase[] {
  const jsonPatch = { 'Content-Type': 'application/json-patch+json', Accept: 'application/json' };
  const seeds: FuzzCase[] = [
    post('yaml 1000 nested flow sequences', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flows}\ndata: {k: ${'['.repeat(1000)}${']'.repeat(1000)}}\n`, yamlCt),
    post('yaml 10001 nested block maps', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: blocks}\nx:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} 1\n`, yamlCt),
    over(post('yaml billion laughs', billionLaughs(), yamlCt)),
    post('yaml multi-document', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: multi}\n---\nkind: Secret\n', yamlCt),
    post('yaml custom tags', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: !!binary aGk=}\ndata: !!set {a, b}\n', yamlCt),
    post('yaml duplicate keys', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup, name: dup2}\n', yamlCt),
    post('json nested 10k objects', nestedJson(10_000, '{"a":', '}')),
    over(post('json nested 100k objects', nestedJson(100_000, '{"a":', '}'))),
    over(post('json nested 100k arrays', nestedJson(100_000, '[', ']'))),
    over(post('yaml nested 100k flow maps', nestedJson(100_000, '{"a":', '}'), yamlCt)),
    post('json 200k unknown fields', manyFields(200_000)),
    post('json 200k unknown fields strict', manyFields(200_000), json, `${CM}?fieldValidation=Strict`),
    post('json 5000 unknown fields Warn (warning header size)', manyFields(5000, 40), json, `${CM}?fieldValidation=Warn`),
    over(post('json 2.6 MB object', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(2_600_000) } }))),
    over(post('json 3.2 MB object', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bigger' }, data: { a: 'x'.repeat(3_200_000) } }))),
    post('body without Content-Type', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-ct' } }), { Accept: 'application/json' }),
    post('empty body', '', json),
    post('json null', 'null', json),
    post('json top-level array', '[1,2,3]', json),
    over(post('json duplicate keys', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d1","name":"d2"}}', json, `${CM}?fieldValidation=Strict`)),
    post('json invalid utf-8', new Uint8Array([...utf8('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'), 0xff, 0xfe, ...utf8('"}}')])),
    post('json lone surrogate', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"\\ud800"}}'),
    post('json huge number', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","generation":1e400}}'),
    post('protobuf prefix only', new Uint8Array([0x6b, 0x38, 0x73, 0x00]), { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' }),
    post('protobuf huge length varint', new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a]), { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' }),
    {
      label: 'json patch 41-op chained copy',
      expectReject: true,
      method: 'PATCH',
      path: `${WIDGET}/fz-0`,
      headers: jsonPatch,
      body: utf8(chainedCopyPatch(41)),
      guard: WIDGET_GUARD,
    },
    {
      label: 'json patch 10001 ops',
      expectReject: true,
      method: 'PATCH',
      path: `${CM}/fz-0`,
      headers: jsonPatch,
      body: utf8(JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/metadata/name', value: 'fz-0' })))),
      guard: CM_GUARD,
    },
    {
      label: 'merge patch nested 100k',
      expectReject: true,
      method: 'PATCH',
      path: `${CM}/fz-0`,
      headers: { 'Content-Type': 'application/merge-patch+json', Accept: 'application/json' },
      body: utf8(`{"metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`),
      guard: CM_GUARD,
    },
    {
      label: 'apply yaml billion laughs',
      expectReject: true,
      method: 'PATCH',
      path: `${CM}/laughs?fieldManager=fuzz`,
      headers: { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json' },
      body: utf8(billionLaughs()),
      guard: CM_GUARD,
    },
    ...['..', '%2e%2e', '%2E%2E', '.', '%2e', 'a%2Fb', '%2F', '..%2F..%2Fsecrets', '%00', '%', '%zz', '%C3%BC', '%F0%9F%92%A9'].flatMap((name): FuzzCase[] => [
      { label: `name ${name}`, method: 'GET', path: `${CM}/${name}`, headers: { Accept: 'application/json' }, guard: CM_GUARD },
      { label: `name ${name}`, expectReject: true, method: 'PUT', path: `${CM}/${name}`, headers: json, body: utf8(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: decodeSafe(name), namespace: FUZZ_NS } })), guard: CM_GUARD },
      { label: `name ${name}`, method: 'DELETE', path: `${CM}/${name}`, headers: { Accept: 'application/json' }, guard: CM_GUARD },
      { label: `namespace ${name}`, method: 'POST', path: `/api/v1/namespaces/${name}/configmaps`, headers: json, body: utf8(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nsx' } })), guard: CM_GUARD },
      { label: `namespace ${name}`, method: 'GET', path: `/api/v1/namespaces/${name}`, headers: { Accept: 'application/json' } },
    ]),
    ...['3000000', '-1', '-3000000', '99999999999999999999', '1e9', 'abc'].map((t): FuzzCase => ({ label: `watch timeoutSeconds=${t}`, method: 'GET', path: `${CM}?watch=true&timeoutSeconds=${t}`, headers: { Accept: 'application/json' } })),
    { label: 'Host evil.example', method: 'GET', path: '/api/v1/namespaces', headers: { Host: 'evil.example', Accept: 'application/json' } },
    { label: 'Host evil.example write', method: 'POST', path: CM, headers: { Host: 'evil.example', Origin: 'http://evil.example', ...json }, body: utf8(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'evil' } })), guard: CM_GUARD },
    { label: 'HEAD collection', method: 'HEAD', path: CM, headers: {} },
    { label: 'OPTIONS collection', method: 'OPTIONS', path: CM, headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'DELETE' } },
    { label: 'unknown method', method: 'PROPFIND', path: CM, headers: {} },
  ];
  if (opts.cbor) {
    const cborCt = { 'Content-Type': 'application/cbor', Accept: 'application/json' };
    seeds.push(
      over(post('cbor shared-ref tags 28/29 (9 levels)', cborSharedRefs(9), cborCt)),
      over(post('cbor shared-ref tags 28/29 (2 levels)', cborSharedRefs(2), cborCt)),
      over(post('cbor nested 100k arrays', new Uint8Array([...cbor.selfDescribed, ...Array(100_000).fill(0x81), 0x01]), cborCt)),
      // found by the fuzz bench: a top-level byte string is not an object (was a 500)
      post('cbor top-level byte string', new Uint8Array([0x45, ...utf8('.RqD.')]), cborCt),
      post('cbor indefinite map never closed', new Uint8Array([...cbor.selfDescribed, 0xbf, ...cbor.text('a')]), cborCt),
      post('cbor 4 GiB string length', new Uint8Array([...cbor.selfDescribed, 0x7b, 0, 0, 0, 1, 0, 0, 0, 0]), cborCt),
      over(post('cbor record extension tag', new Uint8Array([...cbor.selfDescribed, 0xd9, 0xdf, 0xff, 0x80]), cborCt)),
      {
        label: 'apply cbor shared-ref tags',
      expectReject: true,
        method: 'PATCH',
        path: `${CM}/shared-refs?fieldManager=fuzz`,
        headers: { 'Content-Type': 'application/apply-patch+cbor', Accept: 'application/json' },
        body: cborSharedRefs(9),
        guard: CM_GUARD,
      },
    );
  }
  return seeds;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
