// get and list.
import { errors } from '../../../api/status.js';
import { listObjects, waitForRevision } from '../../registry/lister.js';
import type { KubeObject } from '../../registry/types.js';
import { writeObject, writeSerialized } from '../respond.js';
import { cachedJsonLine } from '../../watch/encode-cache.js';
import { streamJsonList, streamJsonTable } from '../list-stream.js';
import { contentTypeHeader } from '../negotiate.js';
import type { RequestScope } from '../scope.js';
import { columnDefinitions, tableRowPieces, toPartialObjectMetadata, toTable } from '../table.js';
import { served } from './decode.js';
import { parseListOptions, parseRV } from './list-options.js';
import { includeObjectOf, negotiateFor, respondObject } from './output.js';
import { toScale } from './scale.js';

export async function handleGet(s: RequestScope): Promise<void> {
  const n = negotiateFor(s);
  const rv = parseRV(s.query.get('resourceVersion'));
  if (rv !== undefined && rv > 0) await waitForRevision(s.rs.store, rv);
  const ns = s.type.scope === 'Namespaced' ? s.info.namespace : undefined;
  // the watch cache's copy of the stored version (waiting a moment for the cache to apply a fresh write):
  // decoded once, its JSON encoded once
  const cur = await s.rs.readShared(ns, s.info.name);
  if (!cur) throw errors.notFound(s.rs.target(s.info.name));
  if (s.info.subresource === 'scale') {
    respondObject(s, 200, toScale(s.type, cur.obj), n);
    return;
  }
  const obj = cur.obj;
  // the plain JSON form is served from the object's cached bytes (the same bytes encodeObject writes)
  if (n.encoding === 'json' && n.representation === 'object' && !s.pretty && !s.type.strategy.convertFrom && obj.kind === s.type.kind && typeof obj.apiVersion === 'string' && obj.apiVersion !== '') {
    writeSerialized(s.req, s.res, 200, () => cachedJsonLine(obj, s.apiVersion), n, { compression: s.gates.APIResponseCompression, warnings: s.warnings });
    return;
  }
  respondObject(s, 200, served(s, obj), n);
}

export async function handleList(s: RequestScope): Promise<void> {
  const n = negotiateFor(s);
  const opts = parseListOptions(s.query, s.type);
  const ns = s.type.scope === 'Namespaced' && s.info.namespace ? s.info.namespace : undefined;
  const result = await listObjects(s.rs, ns, opts, s.cache);
  const listMeta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: result.resourceVersion };
  if (result.continue) listMeta.continue = result.continue;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  let body: unknown;
  if (n.representation === 'Table' && n.encoding === 'json' && !s.pretty) {
    // rows from their cached bytes (computed once per object version), streamed
    const topts = { includeObject: includeObjectOf(s.query), metaGroup: n.metaGroup };
    const rows = result.items.map((o) => tableRowPieces(o, s.type, topts));
    await streamJsonTable(s.req, s.res, { apiVersion: `${n.metaGroup}/v1`, metadata: listMeta, columnDefinitions: columnDefinitions(s.type) }, rows, {
      compression: s.gates.APIResponseCompression,
      warnings: s.warnings,
      contentType: contentTypeHeader(n, false),
    });
    return;
  } else if (n.representation === 'Table') {
    body = toTable(result.items, s.type, { includeObject: includeObjectOf(s.query), metaGroup: n.metaGroup }, listMeta);
  } else if (n.representation === 'PartialObjectMetadata') {
    body = {
      kind: 'PartialObjectMetadataList',
      apiVersion: `${n.metaGroup}/v1`,
      metadata: listMeta,
      items: result.items.map((o) => toPartialObjectMetadata(o, n.metaGroup)),
    };
  } else if (n.encoding === 'json' && !s.pretty) {
    // a multi-version resource converts items stored in another version
    const items = s.type.strategy.convertFrom ? result.items.map((o: KubeObject) => served(s, o)) : result.items;
    await streamJsonList(s.req, s.res, { kind: `${s.type.kind}List`, apiVersion: s.apiVersion, metadata: listMeta }, items, {
      compression: s.gates.APIResponseCompression,
      warnings: s.warnings,
    });
    return;
  } else {
    body = {
      kind: `${s.type.kind}List`,
      apiVersion: s.apiVersion,
      metadata: listMeta,
      items: result.items.map((o: KubeObject) => served(s, o)),
    };
  }
  writeObject(s.req, s.res, 200, body, n, { pretty: s.pretty, compression: s.gates.APIResponseCompression, warnings: s.warnings });
}
