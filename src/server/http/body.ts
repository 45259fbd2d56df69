// Request bodies: size-limited reading and decoding by Content-Type.
import type { IncomingMessage } from 'node:http';
import { parseDocument, parseAllDocuments } from 'yaml';
import { essence, parseMediaType } from '../../api/media.js';
import { errors, StatusError } from '../../api/status.js';
import { checkYamlDepth, isStackOverflow, MAX_JSON_DEPTH, NestingError } from '../../api/nesting.js';
import { jsonDuplicateFields, yamlDuplicateFields } from '../../api/duplicate-fields.js';
import { fastYamlDecode } from '../../api/yaml-parse.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Requests whose body was refused unread: their connection must close after the response. */
const abandoned = new WeakSet<IncomingMessage>();

/** True when the request's body was left unread (413): the response closes the connection. */
export function bodyAbandoned(req: IncomingMessage): boolean {
  return abandoned.has(req);
}

/** Stops reading a refused body; the rest of it is never read (upstream closes such connections too). */
function abandon(req: IncomingMessage): never {
  abandoned.add(req);
  req.pause();
  throw errors.tooLarge();
}

/** Reads the whole body, refusing (413) past `limit` bytes (upstream MaxRequestBodyBytes, 3 MiB). */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) abandon(req);
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        over = true;
        done();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (e: Error) => done(e);
    const onClose = () => done(req.complete ? undefined : errors.badRequest('the request body was cut short'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
  if (over) abandon(req);
  return Buffer.concat(chunks);
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'cbor';

export interface DecodedBody {
  value: unknown;
  format: BodyFormat;
  /** Duplicate fields found while parsing (paths), for field validation. */
  duplicates: string[];
}

/**
 * The media type of a request body. A body needs a Content-Type: without one it is not taken as
 * JSON (upstream falls back to JSON; we don't, so a page's no-cors `fetch` with a typeless Blob
 * body cannot write objects). Undefined means "no Content-Type".
 */
export function bodyEssence(contentType: string | undefined): string | undefined {
  if (!contentType || contentType.trim() === '') return undefined;
  const mt = parseMediaType(contentType);
  return mt ? essence(mt) : contentType.trim().toLowerCase();
}

/** Depth errors, and stack overflows of the recursive steps that follow the depth check, are the client's: 400. */
function decodeFailure(e: unknown, what: string): never {
  if (e instanceof StatusError) throw e;
  if (e instanceof NestingError) throw errors.badRequest(e.message);
  if (isStackOverflow(e)) throw errors.badRequest(`the request body is nested too deeply to decode`);
  throw errors.badRequest(`the request body is not valid ${what}: ${(e as Error).message}`);
}

export function decodeJson(buf: Buffer): unknown {
  return decodeJsonWithDuplicates(buf, false).value;
}

export function decodeJsonWithDuplicates(buf: Buffer, findDuplicates = true): { value: unknown; duplicates: string[]; depth?: number } {
  const text = buf.toString('utf8');
  try {
    // one scan of the text: the depth limit before the parser sees it, and how many members it names
    const members = scanJson(text);
    const value: unknown = JSON.parse(text);
    if (!findDuplicates) return { value, duplicates: [] };
    // JSON.parse keeps one member per name: fewer members than the text named means duplicates, and
    // only then is the text walked again for their paths
    const shape = shapeOf(value);
    return { value, duplicates: shape.members === members ? [] : jsonDuplicateFields(text), depth: shape.depth };
  } catch (e) {
    decodeFailure(e, 'JSON');
  }
}

/**
 * Throws NestingError when JSON text opens more than `limit` arrays/objects at once (as checkJsonDepth,
 * strings skipped); returns the number of object members (keys) the text names. Only the count of valid
 * JSON is meaningful: invalid text is refused by JSON.parse next.
 */
export function scanJson(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let members = 0;
  let expectKey = false;
  // isObject[d]: the container open at depth d is an object
  const isObject: boolean[] = [false];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip a string, honouring backslash escapes
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (expectKey) {
        members++;
        expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) throw new NestingError(limit);
      expectKey = c === 0x7b;
      isObject[depth] = expectKey;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = depth > 0 && isObject[depth] === true;
    }
  }
  return members;
}

/** Members (own keys of every object) and nesting depth of a parsed JSON value, walked without recursion. */
export function shapeOf(value: unknown): { members: number; depth: number } {
  if (value === null || typeof value !== 'object') return { members: 0, depth: 0 };
  let members = 0;
  let max = 0;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const d = depths.pop()!;
    if (d > max) max = d;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') stack.push(c), depths.push(d + 1);
      }
    } else {
      const keys = Object.keys(v);
      members += keys.length;
      for (let i = 0; i < keys.length; i++) {
        const c: unknown = (v as Record<string, unknown>)[keys[i]!];
        if (c !== null && typeof c === 'object') stack.push(c), depths.push(d + 1);
      }
    }
  }
  return { members, depth: max };
}

export function decodeYaml(buf: Buffer): unknown {
  return decodeYamlWithDuplicates(buf).value;
}

/** Aliases a YAML body may expand (the yaml library's toJS maxAliasCount; its default is also 100). */
const MAX_YAML_ALIASES = 100;

export function decodeYamlWithDuplicates(buf: Buffer): { value: unknown; duplicates: string[] } {
  const text = buf.toString('utf8');
  try {
    // block-style manifests take the fast decoder; it hands anything else (and every error) to the library
    const fast = fastYamlDecode(text);
    if (fast !== undefined) return fast;
    checkYamlDepth(text);
    const docs = parseAllDocuments(text, { uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [docs];
    const real = list.filter((d) => d.contents !== null);
    if (real.length > 1) throw errors.badRequest('the request body holds more than one YAML document; send one object per request');
    const doc = real[0] ?? parseDocument(text, { uniqueKeys: false });
    const fatal = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
    if (fatal.length > 0) throw errors.badRequest(`the request body is not valid YAML: ${fatal[0]!.message}`);
    // toJS throws (ReferenceError "Excessive alias count…") on billion-laughs bodies
    return { value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }), duplicates: yamlDuplicateFields(doc) };
  } catch (e) {
    decodeFailure(e, 'YAML');
  }
}
