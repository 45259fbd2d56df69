// Request bodies: size-limited reading and decoding by Content-Type.
import type { IncomingMessage } from 'node:http';
import { parseDocument, parseAllDocuments } from 'yaml';
import { MEDIA, essence, parseMediaType } from '../../api/media.js';
import { errors } from '../../api/status.js';
import { jsonDuplicateFields, yamlDuplicateFields } from '../../api/duplicate-fields.js';

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
  return decodeJsonWithDuplicates(buf, false).value;
}

export function decodeJsonWithDuplicates(buf: Buffer, findDuplicates = true): { value: unknown; duplicates: string[] } {
  const text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
  return { value, duplicates: findDuplicates ? jsonDuplicateFields(text) : [] };
}

export function decodeYaml(buf: Buffer): unknown {
  return decodeYamlWithDuplicates(buf).value;
}

export function decodeYamlWithDuplicates(buf: Buffer): { value: unknown; duplicates: string[] } {
  const text = buf.toString('utf8');
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null);
  if (real.length > 1) throw errors.badRequest('the request body holds more than one YAML document; send one object per request');
  const doc = real[0] ?? parseDocument(text, { uniqueKeys: false });
  const fatal = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
  if (fatal.length > 0) throw errors.badRequest(`the request body is not valid YAML: ${fatal[0]!.message}`);
  return { value: doc.toJS({ maxAliasCount: 100 }), duplicates: yamlDuplicateFields(doc) };
}
