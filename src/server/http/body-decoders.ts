// Content-Type → body decoder. Binary formats (protobuf, CBOR) register themselves here.
import { MEDIA } from '../../api/media.js';
import { decodeJsonWithDuplicates, decodeYamlWithDuplicates } from './body.js';

export interface BodyDecodeResult {
  value: unknown;
  duplicates: string[];
  /** Nesting depth of value, when the decoder measured it (the object walk need not repeat). */
  depth?: number;
}

export type BodyDecoder = (buf: Buffer) => BodyDecodeResult;

export const bodyDecoders = new Map<string, BodyDecoder>([
  [MEDIA.json, (b) => decodeJsonWithDuplicates(b)],
  [MEDIA.yaml, (b) => decodeYamlWithDuplicates(b)],
  ['application/x-yaml', (b) => decodeYamlWithDuplicates(b)],
  ['text/yaml', (b) => decodeYamlWithDuplicates(b)],
]);
