// Response encoders for JSON and YAML (protobuf and CBOR plug in by encoding name).
import { yamlEncodeBuffer } from '../../api/yaml-emit.js';
import type { Encoding } from './negotiate.js';

export type BinaryEncoder = (obj: Record<string, unknown>) => Uint8Array;

const binaryEncoders = new Map<Encoding, BinaryEncoder>();

/** Registers the encoder of a binary encoding (protobuf, cbor). */
export function registerEncoder(encoding: Encoding, enc: BinaryEncoder): void {
  binaryEncoders.set(encoding, enc);
}

export function hasEncoder(encoding: Encoding): boolean {
  return encoding === 'json' || encoding === 'yaml' || binaryEncoders.has(encoding);
}

export function encodeObject(obj: unknown, encoding: Encoding, pretty = false): Buffer {
  switch (encoding) {
    case 'json':
      return Buffer.from(pretty ? JSON.stringify(obj, null, 2) + '\n' : JSON.stringify(obj) + '\n');
    case 'yaml':
      return yamlEncodeBuffer(obj);
    default: {
      const enc = binaryEncoders.get(encoding);
      if (!enc) throw new Error(`no encoder for ${encoding}`);
      const out = enc(obj as Record<string, unknown>);
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    }
  }
}
