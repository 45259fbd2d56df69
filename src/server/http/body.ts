// Request bodies: size-limited reading and decoding by Content-Type.
import type { IncomingMessage } from 'node:http';
import { parseDocument, parseAllDocuments } from 'yaml';
import { MEDIA, essence, parseMediaType } from '../../api/media.js';
import { errors } from '../../api/status.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw errors.tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw errors.tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'cbor';

export interface DecodedBody {
  value: unknown;
  format: BodyFormat;
  /** Duplicate fields found while parsing (paths), for field validation. */
  duplicates: string[];
}

export function bodyEssence(contentType: string | undefined): string {
  if (!contentType) return MEDIA.json;
  const mt = parseMediaType(contentType);
  return mt ? essence(mt) : contentType.trim().toLowerCase();
}

export function decodeJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (e) {
    throw errors.badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

export function decodeYaml(buf: Buffer): unknown {
  const text = buf.toString('utf8');
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null);
  if (real.length > 1) throw errors.badRequest('the request body holds more than one YAML document; send one object per request');
  const doc = real[0] ?? parseDocument(text);
  const fatal = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
  if (fatal.length > 0) throw errors.badRequest(`the request body is not valid YAML: ${fatal[0]!.message}`);
  return doc.toJS({ maxAliasCount: 100 });
}
