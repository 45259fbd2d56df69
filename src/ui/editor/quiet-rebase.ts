// A change on the server while the user edits is news only when it touches what they edited. When the
// fields the server changed (status, resourceVersion, managedFields, anything else) and the fields the
// user changed are disjoint, the edit moves onto the new version silently; only an overlap needs the
// conflict view.
import { applyMergePatch, createMergePatch } from '../lib/patches.js';

type Json = Parameters<typeof createMergePatch>[0];

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Dotted paths of a merge patch's leaves (a list is one leaf: a merge patch replaces it whole). */
export function patchPaths(patch: unknown, prefix: string[] = []): string[][] {
  if (!isPlain(patch)) return [prefix];
  const out: string[][] = [];
  for (const [k, v] of Object.entries(patch)) out.push(...(isPlain(v) && Object.keys(v).length ? patchPaths(v, [...prefix, k]) : [[...prefix, k]]));
  return out;
}

const overlaps = (a: string[], b: string[]) => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
};

export interface QuietRebase {
  /** The user's edits on top of the server's new version. */
  merged: unknown;
  /** What the server changed, as dotted paths. */
  theirs: string[];
}

/**
 * base: the document the edit started from; edited: the user's document now; next: the same document
 * from the server's new version. undefined when the server changed a field the user edited.
 */
export function quietRebase(base: unknown, edited: unknown, next: unknown): QuietRebase | undefined {
  const mine = createMergePatch(base as Json, edited as Json);
  const theirsPatch = createMergePatch(base as Json, next as Json);
  const minePaths = isPlain(mine) && !Object.keys(mine).length ? [] : patchPaths(mine);
  const theirPaths = isPlain(theirsPatch) && !Object.keys(theirsPatch).length ? [] : patchPaths(theirsPatch);
  if (minePaths.some((m) => theirPaths.some((t) => overlaps(m, t)))) return undefined;
  return { merged: applyMergePatch(next as Json, mine), theirs: theirPaths.map((p) => p.join('.')) };
}
