// CBOR (RFC 8949) as the API uses it: one self-described data item per document (tag 55799),
// RFC 8742 sequences for watch streams. Standard encoding only: no cbor-x record extensions.
import { Decoder, Encoder, Tag } from 'cbor-x';

const SELF_DESCRIBED = 55799;

const encoder = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false, pack: false });
const decoder = new Decoder({ useRecords: false, mapsAsObjects: true });

/** Encodes one value with the self-describing tag prefix (d9 d9 f7). */
export function encodeCbor(value: unknown): Uint8Array {
  return encoder.encode(new Tag(value, SELF_DESCRIBED));
}

/** Decodes one data item (the self-describing tag is accepted and dropped). */
export function decodeCbor(bytes: Uint8Array): unknown {
  const v = decoder.decode(bytes);
  return v instanceof Tag && v.tag === SELF_DESCRIBED ? v.value : v;
}

/** Decodes every item of a CBOR sequence. */
export function decodeCborSequence(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  decoder.decodeMultiple(bytes, (v: unknown) => {
    out.push(v instanceof Tag && v.tag === SELF_DESCRIBED ? v.value : v);
  });
  return out;
}
