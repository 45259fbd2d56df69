// Registers the binary codecs (Protobuf; CBOR when enabled) with the encoders and body decoders.
import { MEDIA } from '../../api/media.js';
import { errors } from '../../api/status.js';
import { decodeProtobufObject, encodeProtobufObject, encodeProtobufWatchFrame, ProtobufError } from '../../api/protobuf/index.js';
import { decodeCbor, encodeCbor } from '../../api/cbor.js';
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
      return { value: decodeCbor(bytes), duplicates: cborDuplicateFields(bytes) };
    } catch (e) {
      throw errors.badRequest(`the CBOR body could not be decoded: ${(e as Error).message}`);
    }
  });
  registerEncoder('cbor', (obj) => encodeCbor(obj));
  registerWatchEncoder('cbor', (type, object) => Buffer.from(encodeCbor({ type, object })));
  registerWatchEncoder('protobuf', (type, object) => Buffer.from(encodeProtobufWatchFrame(type, encodeProtobufObject(object as Record<string, unknown>))));
}
