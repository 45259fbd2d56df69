// GET /debug/encryption-at-rest?path=<object API path>: a read-only hint for the explorer saying
// whether and how one object is encrypted at rest (our own endpoint; upstream has none). It reads
// the stored bytes' prefix only, never decrypts, and never returns stored bytes. Every request
// here runs as system:admin today; once authentication lands it must stay admin-only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../api/status.js';
import type { ApiDeps } from '../http/api-handler.js';
import { requestInfo } from '../request/info.js';
import { writeEncoded } from '../http/respond.js';
import { objectKey } from '../registry/keys.js';
import { TransformingStore } from '../storage/transform.js';
import type { EncryptionAtRest } from './at-rest.js';
import { describeStored } from './transformer.js';

export const AT_REST_PATH = '/debug/encryption-at-rest';

export async function serveAtRestInfo(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, deps: ApiDeps, encryption: EncryptionAtRest | undefined): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
  const apiPath = query.get('path') ?? '';
  const info = requestInfo('GET', apiPath, new URLSearchParams());
  if (!info.isResourceRequest || info.name === '' || info.subresource !== '') throw errors.badRequest('path must name one object, such as /api/v1/namespaces/default/secrets/s1');
  const type = deps.types.lookup(info.group, info.version, info.resource);
  if (!type) throw errors.notFound({ group: info.group, resource: info.resource, name: info.name });
  const key = objectKey(type, info.namespace || undefined, info.name);
  const raw = deps.store instanceof TransformingStore ? deps.store.inner : deps.store;
  const got = await raw.get(key);
  if (!got.kv) throw errors.notFound({ group: info.group, resource: info.resource, name: info.name });
  const body = {
    key,
    configured: encryption !== undefined,
    /** Prefix a write would use now ('identity' when not encrypted). */
    writeProvider: encryption?.transformer.writeProvider(key) ?? 'identity',
    stored: describeStored(got.kv.value),
  };
  writeEncoded(req, res, 200, Buffer.from(JSON.stringify(body)), 'application/json');
}
