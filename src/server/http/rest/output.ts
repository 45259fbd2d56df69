// Encoding a handler's result in the negotiated representation.
import { errors } from '../../../api/status.js';
import type { KubeObject } from '../../registry/types.js';
import { hasEncoder } from '../encode.js';
import { hasProtobufType } from '../../../api/protobuf/index.js';
import { negotiate, type Negotiated } from '../negotiate.js';
import { writeObject } from '../respond.js';
import type { RequestScope } from '../scope.js';
import { toPartialObjectMetadata, toTable, type IncludeObject } from '../table.js';

export function negotiateFor(s: RequestScope, opts: { watch?: boolean; transforms?: boolean } = {}): Negotiated {
  const n = negotiate(s.req.headers.accept, {
    protobuf: hasProtobufType(s.apiVersion, s.type.kind) && hasEncoder('protobuf'),
    cbor: s.gates.CBORServingAndStorage && hasEncoder('cbor'),
    transforms: opts.transforms ?? true,
    watch: opts.watch ?? false,
  });
  // the Table options too, so that a write with a bad one is refused before it stores anything
  if (n.representation === 'Table') includeObjectOf(s.query);
  return n;
}

export function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw errors.badRequest(`Invalid value: "${v}": must be 'Metadata', 'Object', 'None', or empty`);
}

/** Writes one object (or a Status) in the negotiated representation. */
export function respondObject(s: RequestScope, code: number, obj: KubeObject, n: Negotiated = negotiateFor(s)): void {
  let body: unknown = obj;
  const isKind = obj.kind === s.type.kind;
  if (n.representation === 'Table' && isKind)
    body = toTable([obj], s.type, { includeObject: includeObjectOf(s.query), metaGroup: n.metaGroup }, { resourceVersion: obj.metadata?.resourceVersion });
  else if (n.representation === 'PartialObjectMetadata' && isKind) body = toPartialObjectMetadata(obj, n.metaGroup);
  writeObject(s.req, s.res, code, body, n, { pretty: s.pretty, compression: s.gates.APIResponseCompression, warnings: s.warnings });
}
