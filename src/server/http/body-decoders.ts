// Content-Type → body decoder. Binary formats (protobuf, CBOR) register themselves here.
import { MEDIA } from '../../api/media.js';
import { decodeJson, decodeYaml } from './body.js';

export interface BodyDecodeResult {
  value: unknown;
  duplicates: string[];
}

export type BodyDecoder = (buf: Buffer) => BodyDecodeResult;

export const bodyDecoders = new Map<string, BodyDecoder>([
  [MEDIA.json, (b) => ({ value: decodeJson(b), duplicates: [] })],
  [MEDIA.yaml, (b) => ({ value: decodeYaml(b), duplicates: [] })],
  ['application/x-yaml', (b) => ({ value: decodeYaml(b), duplicates: [] })],
  ['text/yaml', (b) => ({ value: decodeYaml(b), duplicates: [] })],
]);
