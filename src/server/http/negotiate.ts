// Response negotiation: which encoding and which representation (object, Table, metadata-only) to answer with.
import { MEDIA, essence, parseAccept, type MediaRange } from '../../api/media.js';
import { errors } from '../../api/status.js';

export type Encoding = 'json' | 'yaml' | 'protobuf' | 'cbor';
export type Representation = 'object' | 'Table' | 'PartialObjectMetadata';

export interface Negotiated {
  encoding: Encoding;
  representation: Representation;
  /** Group spelling of meta types as requested (meta.service.io or meta.k8s.io). */
  metaGroup: string;
  metaVersion: string;
  /** The media type essence as the client spelled it (protobuf alias answered in kind). */
  mediaType: string;
}

export interface NegotiateOptions {
  /** Protobuf available for this type (built-ins). */
  protobuf: boolean;
  cbor: boolean;
  /** Table/metadata-only forms available (object endpoints; not discovery, not virtual resources). */
  transforms: boolean;
  watch: boolean;
}

const META_GROUPS = new Set(['meta.service.io', 'meta.k8s.io']);

function encodingOf(r: MediaRange, o: NegotiateOptions): { encoding: Encoding; mediaType: string } | undefined {
  const e = essence(r);
  if (e === '*/*' || e === 'application/*' || e === MEDIA.json) return { encoding: 'json', mediaType: MEDIA.json };
  if (e === MEDIA.yaml && !o.watch) return { encoding: 'yaml', mediaType: MEDIA.yaml };
  if ((e === MEDIA.protobuf || e === MEDIA.protobufUpstream) && o.protobuf) return { encoding: 'protobuf', mediaType: e };
  if (o.cbor && ((e === MEDIA.cbor && !o.watch) || (e === MEDIA.cborSeq && o.watch) || (e === MEDIA.cbor && o.watch)))
    return { encoding: 'cbor', mediaType: o.watch ? MEDIA.cborSeq : MEDIA.cbor };
  return undefined;
}

export function acceptedList(o: NegotiateOptions): string {
  const list = o.watch ? [`${MEDIA.json};stream=watch`] : [MEDIA.json, MEDIA.yaml];
  if (o.protobuf) list.push(o.watch ? `${MEDIA.protobuf};stream=watch` : MEDIA.protobuf);
  if (o.cbor) list.push(o.watch ? MEDIA.cborSeq : MEDIA.cbor);
  return list.join(', ');
}

/** Answers already worked out, by options and Accept header (clients send a handful of distinct headers). */
const memo = new Map<string, Negotiated>();
const MEMO_MAX = 512;
const MEMO_HEADER_MAX = 256;

/** Picks the first acceptable range in preference order; throws 406 NotAcceptable when none fits. The answer is shared: read-only. */
export function negotiate(acceptHeader: string | undefined, o: NegotiateOptions): Negotiated {
  // long headers (up to the 1 MiB header limit) are worked out each time, never kept
  if (acceptHeader !== undefined && acceptHeader.length > MEMO_HEADER_MAX) return negotiateUncached(acceptHeader, o);
  const key = `${+o.protobuf}${+o.cbor}${+o.transforms}${+o.watch}${acceptHeader ?? ''}`;
  let n = memo.get(key);
  if (n === undefined) {
    n = Object.freeze(negotiateUncached(acceptHeader, o));
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(key, n);
  }
  return n;
}

function negotiateUncached(acceptHeader: string | undefined, o: NegotiateOptions): Negotiated {
  for (const r of parseAccept(acceptHeader)) {
    const enc = encodingOf(r, o);
    if (!enc) continue;
    const as = r.params['as'];
    if (as === undefined) {
      // a g or v without `as` names no representation we know
      if (r.params['g'] !== undefined || r.params['v'] !== undefined) continue;
      return { ...enc, representation: 'object', metaGroup: 'meta.service.io', metaVersion: 'v1' };
    }
    if (!o.transforms) continue;
    const g = r.params['g'];
    const v = r.params['v'];
    if (g === undefined || !META_GROUPS.has(g) || v !== 'v1') continue;
    if (as === 'Table') {
      if ((enc.encoding === 'yaml' && o.watch) || enc.encoding === 'protobuf') continue;
      return { ...enc, representation: 'Table', metaGroup: g, metaVersion: v };
    }
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { ...enc, representation: 'PartialObjectMetadata', metaGroup: g, metaVersion: v };
  }
  throw errors.notAcceptable(`only the following media types are accepted: ${acceptedList(o)}`);
}

export function contentTypeHeader(n: Negotiated, watch: boolean): string {
  let ct = n.mediaType;
  if (n.representation !== 'object') ct += `;as=${n.representation};g=${n.metaGroup};v=${n.metaVersion}`;
  if (watch && (n.encoding === 'json' || n.encoding === 'protobuf')) ct += ';stream=watch';
  return ct;
}
