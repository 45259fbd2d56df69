// /openapi/v2 and /openapi/v3: documents built from the registry, rebuilt when types change.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { errors } from '../../api/status.js';
import { buildOpenAPIV2, buildOpenAPIV3, buildOpenAPIV3Index } from '../registry/openapi.js';
import type { TypeRegistry } from '../registry/registry.js';
import { builtinSchemas } from '../registry/schema/registry.js';
import { writeEncoded } from './respond.js';
import { encodeOpenAPIV2Proto, OPENAPI_V2_PROTO_CONTENT_TYPE, OPENAPI_V2_PROTO_MEDIA_TYPE } from '../registry/openapi-proto.js';
import { parseAccept } from '../../api/media.js';

/** The v2 representation the Accept header prefers: 'json', 'protobuf', or undefined when neither is acceptable. */
function v2Format(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (!accept) return 'json';
  for (const r of parseAccept(accept)) {
    const t = `${r.type}/${r.subtype}`;
    if (t === OPENAPI_V2_PROTO_MEDIA_TYPE || t === OPENAPI_V2_PROTO_CONTENT_TYPE) return 'protobuf';
    if (t === 'application/json' || t === 'application/*' || t === '*/*') return 'json';
  }
  return undefined;
}

interface Cached {
  version: number;
  body: Buffer;
  etag: string;
}

export class OpenAPIService {
  private cache = new Map<string, Cached>();

  constructor(private types: TypeRegistry) {}

  private cached(key: string, build: () => unknown, encode: (doc: unknown) => Uint8Array = (doc) => Buffer.from(JSON.stringify(doc) ?? 'null')): Cached {
    const hit = this.cache.get(key);
    if (hit && hit.version === this.types.version) return hit;
    const body = Buffer.from(encode(build()));
    const entry = { version: this.types.version, body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32).toUpperCase()}"` };
    this.cache.set(key, entry);
    return entry;
  }

  handle(req: IncomingMessage, res: ServerResponse, path: string, _query: URLSearchParams): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    let entry: Cached | undefined;
    const served = () => this.types.all().filter((t) => t.served);
    let contentType = 'application/json';
    if (path === '/openapi/v2' || path === '/openapi/v2/') {
      // JSON or gnostic protobuf, by Accept order (kube-openapi's v2 handler); each with its own ETag
      const format = v2Format(req.headers.accept);
      if (!format) throw errors.notAcceptable(`only the following media types are accepted: application/json, ${OPENAPI_V2_PROTO_MEDIA_TYPE}`);
      if (format === 'protobuf') {
        contentType = OPENAPI_V2_PROTO_CONTENT_TYPE;
        entry = this.cached('v2:pb', () => buildOpenAPIV2(served(), builtinSchemas), (doc) => encodeOpenAPIV2Proto(doc as Record<string, unknown>));
      } else entry = this.cached('v2', () => buildOpenAPIV2(served(), builtinSchemas));
    } else if (path === '/openapi/v3' || path === '/openapi/v3/') {
      entry = this.cached('v3', () => buildOpenAPIV3Index(served()));
    } else if (path.startsWith('/openapi/v3/')) {
      const gvPath = path.slice('/openapi/v3/'.length).replace(/\/$/, '');
      entry = this.cached(`v3:${gvPath}`, () => buildOpenAPIV3(gvPath, served(), builtinSchemas));
      if (entry.body.length <= 5) entry = undefined; // no such group-version (null/undefined document)
    }
    if (!entry) {
      const e = errors.notFound({ group: '', resource: '' });
      e.status.message = 'the server could not find the requested resource';
      e.status.details = {};
      throw e;
    }
    if (req.headers['if-none-match'] === entry.etag) {
      res.writeHead(304, { ETag: entry.etag });
      res.end();
      return;
    }
    res.setHeader('ETag', entry.etag);
    res.setHeader('Vary', 'Accept');
    writeEncoded(req, res, 200, entry.body, contentType, { compression: true });
  }
}
