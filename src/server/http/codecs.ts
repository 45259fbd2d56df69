// Registers the binary codecs (Protobuf; CBOR when enabled) with the encoders and body decoders.
import { MEDIA } from '../../api/media.js';
import { errors } from '../../api/status.js';
import { decodeProtobufObject, encodeProtobufObject, encodeProtobufWatchFrame, ProtobufError } from '../../api/protobuf/index.js';
import { checkCborBody, decodeCbor, encodeCbor } from '../../api/cbor.js';
import { cborDuplicateFields } from '../../api/duplicate-fields.js';
import { bodyDecoders } from './body-decoders.js';
import { registerEncoder } from './encode.js';
import { registerWatchEncoder } from './rest/watch.js';

let installed = false;

export function installCodecs(): void {
  if (installed) return;
  installed = true;
  const decodeProtobuf = (buf: Buffer) => {
    try {
      return { value: decodeProtobufObject(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)), duplicates: [] };
    } catch (e) {
      if (e instanceof ProtobufError) throw errors.badRequest(`the protobuf body could not be decoded: ${e.message}`);
      throw errors.badRequest(`the protobuf body could not be decoded: ${(e as Error).message}`);
    }
  };
  bodyDecoders.set(MEDIA.protobuf, decodeProtobuf);
  bodyDecoders.set(MEDIA.protobufUpstream, decodeProtobuf);
  registerEncoder('protobuf', (obj) => encodeProtobufObject(obj));
  bodyDecoders.set(MEDIA.cbor, (buf) => {
    try {
      const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      checkCborBody(bytes);
      return { value: decodeCbor(bytes), duplicates: cborDuplicateFields(bytes) };
    } catch (e) {
      throw errors.badRequest(`the CBOR body could not be decoded: ${(e as Error).message}`);
    }
  });
  registerEncoder('cbor', (obj) => encodeCbor(obj));
  // a CBOR event is the tagged map {"type": T, "object": <object bytes without their own tag>}
  const CBOR_TAG = 3;
  registerWatchEncoder('cbor', {
    object: (obj) => Buffer.from(encodeCbor(obj)).subarray(CBOR_TAG),
    event: (type, bytes) => {
      const head = Buffer.from(encodeCbor({ type }));
      head[CBOR_TAG] = 0xa2; // the one-entry map header becomes a two-entry one
      return Buffer.concat([head, cborText('object'), bytes]);
    },
  });
  registerWatchEncoder('protobuf', {
    object: (obj) => Buffer.from(encodeProtobufObject(obj as Record<string, unknown>)),
    event: (type, bytes) => Buffer.from(encodeProtobufWatchFrame(type, bytes)),
  });
}

/** A short CBOR text string (major type 3, length < 24). */
function cborText(s: string): Buffer {
  return Buffer.concat([Buffer.from([0x60 + s.length]), Buffer.from(s)]);
}
