// The editor's documents: parsing and printing YAML or JSON, the object as each edit mode starts
// from it, and the server-managed noise hidden from previews.
import { parseDocument, stringify } from 'yaml';
import type { KubeObject } from '../../client/index.js';

export type TextFormat = 'yaml' | 'json';

export function printObject(obj: unknown, format: TextFormat): string {
  return format === 'json' ? `${JSON.stringify(obj, null, 2)}\n` : stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false });
}

export class ParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'ParseError';
  }
}

/** Parses one YAML or JSON document; syntax errors carry their position. */
export function parseText(text: string, format: TextFormat): unknown {
  if (format === 'json') {
    try {
      return JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      const pos = /position (\d+)/.exec(msg);
      if (pos) {
        const before = text.slice(0, Number(pos[1]));
        const line = before.split('\n').length;
        throw new ParseError(msg, line, Number(pos[1]) - before.lastIndexOf('\n'));
      }
      throw new ParseError(msg);
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  const err = doc.errors[0];
  if (err) throw new ParseError(err.message.split('\n')[0]!, err.linePos?.[0]?.line, err.linePos?.[0]?.col);
  return doc.toJS({ maxAliasCount: 100 });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withMeta(obj: KubeObject, drop: string[]): KubeObject {
  const meta = { ...(obj.metadata ?? {}) } as Record<string, unknown>;
  for (const k of drop) delete meta[k];
  return { ...obj, metadata: meta as KubeObject['metadata'] };
}

/** What the patch and replace modes edit: the whole object without managedFields. */
export function editableObject(obj: KubeObject): KubeObject {
  return withMeta(obj, ['managedFields']);
}

/** Metadata the server sets; an apply configuration leaves them out (it would claim or pin them). */
const SERVER_SET_META = ['managedFields', 'resourceVersion', 'uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'];

/** What server-side apply starts from: the object without status and server-set metadata. */
export function applyConfiguration(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = withMeta(obj, SERVER_SET_META);
  return rest;
}

/** Fields every write changes, hidden from previews unless asked for. */
export function withoutNoise(obj: KubeObject | undefined): KubeObject | undefined {
  if (!obj) return obj;
  return withMeta(obj, ['managedFields', 'resourceVersion', 'generation']);
}

/** The metadata keys withoutNoise drops (for the toggle's tooltip). */
export const NOISE_FIELDS = ['metadata.managedFields', 'metadata.resourceVersion', 'metadata.generation'];

/** apiVersion and kind first (filled from the type when a response left them out), as manifests read. */
export function withTypeFirst(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  const { apiVersion: av, kind: k, ...rest } = obj;
  return { apiVersion: av ?? apiVersion, kind: k ?? kind, ...rest };
}
