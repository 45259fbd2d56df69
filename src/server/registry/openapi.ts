// OpenAPI v2 and v3 documents built from the resource-type table and the schema registry.
// kubectl reads them: explain (schemas by x-kubernetes-group-version-kind), server-side field
// validation support (a `fieldValidation` query parameter on the PATCH operation of the kind's
// path), and client-side validation. Output is deterministic; hashes are content hashes.
import { VERSION_INFO } from '../version.js';
import { createHash } from 'node:crypto';
import { crdDefinitionName } from './crd.js';
import { canonicalGroup, groupSpellings, isAliasGroup, upstreamGroup, PROTOBUF_MEDIA_TYPE } from './names.js';
import { LIST_META, META_V1, OBJECT_META, SchemaRegistry, builtinSchemas } from './schema/registry.js';
import type { SchemaNode } from './schema/types.js';
import type { ResourceType } from './types.js';

export interface OpenAPIOptions {
  title?: string;
  version?: string;
}

type Flavor = 'v2' | 'v3';
type Json = Record<string, unknown>;

const DELETE_OPTIONS = META_V1 + 'DeleteOptions';
const STATUS = META_V1 + 'Status';
const PATCH = META_V1 + 'Patch';
const WATCH_EVENT = META_V1 + 'WatchEvent';
const API_RESOURCE_LIST = META_V1 + 'APIResourceList';
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

const JSON_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];
const WATCH_TYPES = ['application/json;stream=watch', `${PROTOBUF_MEDIA_TYPE};stream=watch`];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

// ---- public API ----

/** The whole API as one Swagger 2.0 document. */
export function buildOpenAPIV2(types: ResourceType[], reg: SchemaRegistry = builtinSchemas, opts: OpenAPIOptions = {}): Json {
  const served = sortTypes(types.filter((t) => t.served));
  return memo(`v2|${opts.title ?? ''}|${opts.version ?? ''}|${fingerprint(served, reg)}`, () => {
    const paths: Json = {};
    const byGV = groupByGV(served);
    for (const [key, gvTypes] of byGV) {
      const [group, version] = splitGV(key);
      for (const spelling of groupSpellings(group)) addGroupVersionPaths(paths, spelling, version, gvTypes, reg, 'v2', spelling !== group);
    }
    const { defs } = definitionsFor(served, reg, 'v2');
    return {
      swagger: '2.0',
      info: { title: opts.title ?? 'Periscope', version: opts.version ?? VERSION_INFO.gitVersion },
      paths,
      definitions: defs,
      securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
      security: [{ BearerToken: [] }],
    };
  });
}

/**
 * The /openapi/v3 discovery index: one entry per group-version path (both spellings for alias
 * groups), each pointing at the document with a content hash query.
 */
export function buildOpenAPIV3Index(types: ResourceType[], reg: SchemaRegistry = builtinSchemas): { paths: Record<string, { serverRelativeURL: string }> } {
  const served = sortTypes(types.filter((t) => t.served));
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const entries: string[] = [];
  for (const key of groupByGV(served).keys()) {
    const [group, version] = splitGV(key);
    for (const spelling of groupSpellings(group)) entries.push(gvPath(spelling, version));
  }
  for (const p of entries.sort()) {
    const doc = buildOpenAPIV3(p, served, reg);
    if (doc) paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${documentHash(doc)}` };
  }
  return { paths };
}

/**
 * The OpenAPI 3.0 document of one group-version. groupVersion may be a discovery path
 * ("api/v1", "apis/apps/v1", either group spelling) or "group/version" ("v1" for core).
 * Undefined when no served type belongs to it.
 */
export function buildOpenAPIV3(groupVersion: string, types: ResourceType[], reg: SchemaRegistry = builtinSchemas, opts: OpenAPIOptions = {}): Json | undefined {
  const parsed = parseGroupVersion(groupVersion);
  if (!parsed) return undefined;
  const { group: requested, version } = parsed;
  const group = canonicalGroup(requested);
  const gvTypes = sortTypes(types.filter((t) => t.served && t.group === group && t.version === version));
  if (gvTypes.length === 0) return undefined;
  return memo(`v3|${requested}/${version}|${opts.title ?? ''}|${opts.version ?? ''}|${fingerprint(gvTypes, reg)}`, () => {
    const paths: Json = {};
    addGroupVersionPaths(paths, requested, version, gvTypes, reg, 'v3', false);
    const { defs } = definitionsFor(gvTypes, reg, 'v3');
    return {
      openapi: '3.0.0',
      info: { title: opts.title ?? 'Periscope', version: opts.version ?? VERSION_INFO.gitVersion },
      paths,
      components: {
        schemas: defs,
        securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
      },
    };
  });
}

/** Content hash of a document (upper-case hex SHA-512), as used in index URLs and ETags. */
export function documentHash(doc: unknown): string {
  const cached = typeof doc === 'object' && doc !== null ? hashCache.get(doc) : undefined;
  if (cached) return cached;
  const h = createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
  if (typeof doc === 'object' && doc !== null) hashCache.set(doc, h);
  return h;
}

// ---- memoization (documents are rebuilt only when the served types change) ----

const hashCache = new WeakMap<object, string>();
const docCache = new Map<string, Json>();
const objectIds = new WeakMap<object, number>();
let nextId = 1;

function idOf(o: object | undefined): number {
  if (!o) return 0;
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = nextId++));
  return id;
}

function fingerprint(types: ResourceType[], reg: SchemaRegistry): string {
  return `${idOf(reg)}:` + types.map((t) => `${t.group}/${t.version}/${t.plural}#${idOf(t)}.${idOf(t.schema)}`).join(',');
}

function memo(key: string, build: () => Json): Json {
  const hit = docCache.get(key);
  if (hit) return hit;
  const doc = build();
  if (docCache.size >= 128) docCache.delete(docCache.keys().next().value!);
  docCache.set(key, doc);
  return doc;
}

// ---- group-versions ----

function sortTypes(types: ResourceType[]): ResourceType[] {
  return [...types].sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.plural, b.plural));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function groupByGV(types: ResourceType[]): Map<string, ResourceType[]> {
  const out = new Map<string, ResourceType[]>();
  for (const t of types) {
    const key = `${t.group}/${t.version}`;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push(t);
  }
  return out;
}

function splitGV(key: string): [string, string] {
  const slash = key.lastIndexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  const p = gv.replace(/^\/+/, '').replace(/^openapi\/v3\//, '').replace(/\/+$/, '');
  const parts = p.split('/');
  if (parts[0] === 'api' && parts.length === 2) return { group: '', version: parts[1]! };
  if (parts[0] === 'apis' && parts.length === 3) return { group: parts[1]!, version: parts[2]! };
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] !== 'api' && parts[0] !== 'apis') return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

// ---- definitions ----

function ref(name: string, flavor: Flavor): string {
  return flavor === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/** The published schema of a custom kind: the CRD schema plus apiVersion/kind/metadata and its GVK. */
function crdDefinitions(t: ResourceType): Record<string, SchemaNode> {
  const name = t.schemaRef ?? crdDefinitionName(t.group, t.version, t.kind);
  const base: SchemaNode = t.schema ? { ...t.schema } : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const props = { ...(base.properties ?? {}) };
  props.apiVersion = { type: 'string', ...(props.apiVersion ?? {}) };
  props.kind = { type: 'string', ...(props.kind ?? {}) };
  props.metadata = { $ref: OBJECT_META };
  base.type = 'object';
  base.properties = props;
  base['x-kubernetes-group-version-kind'] = [{ group: t.group, kind: t.kind, version: t.version }];
  const list: SchemaNode = {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { $ref: name } },
      kind: { type: 'string' },
      metadata: { $ref: LIST_META },
    },
    'x-kubernetes-group-version-kind': [{ group: t.group, kind: t.listKind, version: t.version }],
  };
  return { [name]: base, [listDefinitionName(name, t)]: list };
}

function listDefinitionName(name: string, t: ResourceType): string {
  return name.endsWith(`.${t.kind}`) ? `${name.slice(0, -t.kind.length)}${t.listKind}` : `${name}List`;
}

function definitionsFor(types: ResourceType[], reg: SchemaRegistry, flavor: Flavor): { defs: Json } {
  const custom: Record<string, SchemaNode> = {};
  const roots = [DELETE_OPTIONS, STATUS, PATCH, WATCH_EVENT, API_RESOURCE_LIST];
  for (const t of types) {
    if (t.custom || !t.schemaRef || !reg.has(t.schemaRef)) Object.assign(custom, crdDefinitions(t));
    const name = schemaNameOf(t, reg);
    roots.push(name, listDefinitionName(name, t));
    if (t.subresources.some((s) => s.name === 'scale')) roots.push(SCALE);
  }
  const combined = new SchemaRegistry(custom, reg);
  const defs: Json = {};
  for (const name of combined.closure(roots)) {
    const node = combined.get(name)!;
    defs[name] = name in custom ? convert(node, flavor) : convertCached(node, flavor);
  }
  return { defs };
}

function schemaNameOf(t: ResourceType, reg: SchemaRegistry): string {
  if (!t.custom && t.schemaRef && reg.has(t.schemaRef)) return t.schemaRef;
  return t.schemaRef ?? crdDefinitionName(t.group, t.version, t.kind);
}

const converted: Record<Flavor, WeakMap<SchemaNode, unknown>> = { v2: new WeakMap(), v3: new WeakMap() };

function convertCached(node: SchemaNode, flavor: Flavor): unknown {
  let out = converted[flavor].get(node);
  if (out === undefined) converted[flavor].set(node, (out = convert(node, flavor)));
  return out;
}

/** Registry form -> document form: $ref prefixes, both group spellings in GVK lists, flavor tweaks. */
function convert(node: SchemaNode, flavor: Flavor): unknown {
  if (node === null || typeof node !== 'object') return node;
  const src = node as Json;
  const out: Json = {};
  const hasSiblings = src.$ref !== undefined && Object.keys(src).some((k) => k !== '$ref' && k !== 'description');
  for (const k of Object.keys(src)) {
    const v = src[k];
    switch (k) {
      case '$ref':
        if (flavor === 'v3' && hasSiblings) out.allOf = [{ $ref: ref(String(v), flavor) }];
        else out.$ref = ref(String(v), flavor);
        break;
      case 'properties': {
        const props: Json = {};
        for (const p of Object.keys(v as Json)) props[p] = convert((v as Json)[p] as SchemaNode, flavor);
        out.properties = props;
        break;
      }
      case 'items':
      case 'not':
        out[k] = convert(v as SchemaNode, flavor);
        break;
      case 'additionalProperties':
        out[k] = typeof v === 'object' ? convert(v as SchemaNode, flavor) : v;
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (flavor === 'v3') out[k] = (v as SchemaNode[]).map((n) => convert(n, flavor));
        break;
      case 'nullable':
        if (flavor === 'v3') out[k] = v;
        break;
      case 'x-kubernetes-group-version-kind':
        out[k] = expandGVK(v as { group: string; version: string; kind: string }[]);
        break;
      default:
        out[k] = v;
    }
  }
  // v2 has no way to say "integer or string": drop the type (as upstream's v2 publishing does)
  if (flavor === 'v2' && src['x-kubernetes-int-or-string'] === true) delete out.type;
  return out;
}

function expandGVK(list: { group: string; version: string; kind: string }[]): { group: string; kind: string; version: string }[] {
  const out: { group: string; kind: string; version: string }[] = [];
  for (const e of list) {
    out.push({ group: e.group, kind: e.kind, version: e.version });
    if (isAliasGroup(e.group)) {
      const other = e.group === canonicalGroup(e.group) ? upstreamGroup(e.group) : canonicalGroup(e.group);
      out.push({ group: other, kind: e.kind, version: e.version });
    }
  }
  return out;
}

// ---- paths ----

interface Param {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'integer' | 'boolean';
  required?: boolean;
}

const q = (name: string, type: Param['type'] = 'string'): Param => ({ name, in: 'query', type });
const P = {
  pretty: q('pretty'),
  dryRun: q('dryRun'),
  fieldManager: q('fieldManager'),
  fieldValidation: q('fieldValidation'),
  force: q('force', 'boolean'),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean'),
  continue: q('continue'),
  fieldSelector: q('fieldSelector'),
  labelSelector: q('labelSelector'),
  limit: q('limit', 'integer'),
  resourceVersion: q('resourceVersion'),
  resourceVersionMatch: q('resourceVersionMatch'),
  sendInitialEvents: q('sendInitialEvents', 'boolean'),
  timeoutSeconds: q('timeoutSeconds', 'integer'),
  watch: q('watch', 'boolean'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer'),
  orphanDependents: q('orphanDependents', 'boolean'),
  propagationPolicy: q('propagationPolicy'),
  ignoreStoreReadError: q('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean'),
  name: { name: 'name', in: 'path', type: 'string', required: true } as Param,
  namespace: { name: 'namespace', in: 'path', type: 'string', required: true } as Param,
};

const LIST_PARAMS = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const DELETE_COLLECTION_PARAMS = [P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.ignoreStoreReadError, P.labelSelector, P.limit, P.orphanDependents, P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds];

function renderParam(p: Param, flavor: Flavor): Json {
  if (flavor === 'v2') {
    const out: Json = { uniqueItems: true, type: p.type, name: p.name, in: p.in };
    if (p.required) out.required = true;
    return out;
  }
  const out: Json = { name: p.name, in: p.in, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

/**
 * Operation-id fragment of a group: core -> Core, apps -> Apps, rbac.authorization.service.io ->
 * RbacAuthorization. fullName keeps the suffix (the v2 document lists both spellings of alias
 * groups and needs distinct ids).
 */
function groupWord(group: string, fullName: boolean): string {
  if (group === '') return 'Core';
  const base = fullName ? group : group.replace(/\.(k8s|service)\.io$/, '');
  return base
    .split(/[.-]/)
    .filter(Boolean)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

interface OpSpec {
  id: string;
  action: string;
  params: Param[];
  body?: { schema: string; required: boolean; patch?: boolean };
  responses: Record<string, string>;
  produces: string[];
  gvk?: { group: string; kind: string; version: string };
}

function renderOp(op: OpSpec, tag: string, flavor: Flavor, custom: boolean): Json {
  const patchTypes = custom ? PATCH_TYPES.filter((t) => !t.startsWith('application/strategic')) : PATCH_TYPES;
  const out: Json = {};
  if (flavor === 'v2') {
    out.consumes = op.body?.patch ? patchTypes : ['*/*'];
    out.produces = op.produces;
    out.schemes = ['https'];
  }
  out.tags = [tag];
  out.operationId = op.id;
  const params: Json[] = [];
  if (op.body && flavor === 'v2') {
    const b: Json = { name: 'body', in: 'body', schema: { $ref: ref(op.body.schema, flavor) } };
    if (op.body.required) b.required = true;
    params.push(b);
  }
  for (const p of op.params) params.push(renderParam(p, flavor));
  if (params.length) out.parameters = params;
  if (op.body && flavor === 'v3') {
    const content: Json = {};
    for (const t of op.body.patch ? patchTypes : ['*/*']) content[t] = { schema: { $ref: ref(op.body.schema, flavor) } };
    out.requestBody = { content, required: op.body.required };
  }
  const responses: Json = {};
  for (const [code, schema] of Object.entries(op.responses)) {
    const description = code === '200' ? 'OK' : code === '201' ? 'Created' : code === '202' ? 'Accepted' : '';
    if (flavor === 'v2') responses[code] = { description, schema: { $ref: ref(schema, flavor) } };
    else {
      const content: Json = {};
      for (const t of op.produces) content[t] = { schema: { $ref: ref(schema, flavor) } };
      responses[code] = { description, content };
    }
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  if (op.gvk) {
    out['x-kubernetes-action'] = op.action;
    out['x-kubernetes-group-version-kind'] = op.gvk;
  }
  return out;
}

function addGroupVersionPaths(
  paths: Json,
  group: string,
  version: string,
  types: ResourceType[],
  reg: SchemaRegistry,
  flavor: Flavor,
  distinctIds: boolean,
): void {
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const gw = groupWord(group, distinctIds);
  const vw = version[0]!.toUpperCase() + version.slice(1);
  const tag = group === '' ? `core_${version}` : `${gw[0]!.toLowerCase()}${gw.slice(1)}_${version}`;
  const pretty = renderParam(P.pretty, flavor);

  paths[`${prefix}/`] = {
    get: renderOp({ id: `get${gw}${vw}APIResources`, action: 'get', params: [], responses: { '200': API_RESOURCE_LIST }, produces: JSON_TYPES }, tag, flavor, false),
  };

  for (const t of types) {
    const name = schemaNameOf(t, reg);
    const listName = listDefinitionName(name, t);
    const gvk = { group, kind: t.kind, version };
    const has = (v: string) => t.verbs.includes(v as never);
    const namespaced = t.scope === 'Namespaced';
    const ns = namespaced ? 'Namespaced' : '';
    const base = namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
    const scopeParams = namespaced ? [renderParam(P.namespace, flavor)] : [];
    const op = (o: Omit<OpSpec, 'gvk' | 'produces'> & { produces?: string[] }) => renderOp({ produces: JSON_TYPES, gvk, ...o }, tag, flavor, t.custom);

    const collection: Json = {};
    if (has('list')) collection.get = op({ id: `list${gw}${vw}${ns}${t.kind}`, action: 'list', params: LIST_PARAMS, responses: { '200': listName }, produces: [...JSON_TYPES, ...WATCH_TYPES] });
    if (has('create')) collection.post = op({ id: `create${gw}${vw}${ns}${t.kind}`, action: 'post', params: WRITE_PARAMS, body: { schema: name, required: true }, responses: { '200': name, '201': name, '202': name } });
    if (has('deletecollection')) collection.delete = op({ id: `delete${gw}${vw}Collection${ns}${t.kind}`, action: 'deletecollection', params: DELETE_COLLECTION_PARAMS, body: { schema: DELETE_OPTIONS, required: false }, responses: { '200': STATUS } });
    if (Object.keys(collection).length) {
      collection.parameters = [...scopeParams, pretty];
      paths[base] = collection;
    }

    const item: Json = {};
    if (has('get')) item.get = op({ id: `read${gw}${vw}${ns}${t.kind}`, action: 'get', params: [], responses: { '200': name } });
    if (has('update')) item.put = op({ id: `replace${gw}${vw}${ns}${t.kind}`, action: 'put', params: WRITE_PARAMS, body: { schema: name, required: true }, responses: { '200': name, '201': name } });
    if (has('delete')) item.delete = op({ id: `delete${gw}${vw}${ns}${t.kind}`, action: 'delete', params: DELETE_PARAMS, body: { schema: DELETE_OPTIONS, required: false }, responses: { '200': STATUS, '202': STATUS } });
    if (has('patch')) item.patch = op({ id: `patch${gw}${vw}${ns}${t.kind}`, action: 'patch', params: PATCH_PARAMS, body: { schema: PATCH, required: true, patch: true }, responses: { '200': name, '201': name } });
    if (Object.keys(item).length) {
      item.parameters = [renderParam(P.name, flavor), ...scopeParams, pretty];
      paths[`${base}/{name}`] = item;
    }

    for (const sr of t.subresources) {
      if (sr.name !== 'status' && sr.name !== 'scale') continue;
      const word = sr.name === 'status' ? 'Status' : 'Scale';
      const schema = sr.name === 'status' ? name : SCALE;
      const sub: Json = {};
      const subOp = (o: Omit<OpSpec, 'gvk' | 'produces'>) =>
        renderOp({ produces: JSON_TYPES, gvk: sr.name === 'scale' ? { group: 'autoscaling', kind: 'Scale', version: 'v1' } : gvk, ...o }, tag, flavor, t.custom);
      if (sr.verbs.includes('get')) sub.get = subOp({ id: `read${gw}${vw}${ns}${t.kind}${word}`, action: 'get', params: [], responses: { '200': schema } });
      if (sr.verbs.includes('update')) sub.put = subOp({ id: `replace${gw}${vw}${ns}${t.kind}${word}`, action: 'put', params: WRITE_PARAMS, body: { schema, required: true }, responses: { '200': schema, '201': schema } });
      if (sr.verbs.includes('patch')) sub.patch = subOp({ id: `patch${gw}${vw}${ns}${t.kind}${word}`, action: 'patch', params: PATCH_PARAMS, body: { schema: PATCH, required: true, patch: true }, responses: { '200': schema, '201': schema } });
      sub.parameters = [renderParam(P.name, flavor), ...scopeParams, pretty];
      paths[`${base}/{name}/${sr.name}`] = sub;
    }

    if (namespaced && has('list')) {
      paths[`${prefix}/${t.plural}`] = {
        get: op({ id: `list${gw}${vw}${t.kind}ForAllNamespaces`, action: 'list', params: [], responses: { '200': listName }, produces: [...JSON_TYPES, ...WATCH_TYPES] }),
        parameters: [...LIST_PARAMS.map((p) => renderParam(p, flavor)), pretty],
      };
    }
  }
}
