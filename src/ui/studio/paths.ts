// Field paths in the studio: arrays of segments, rendered in the validator's spelling
// (`jwt[1].claimMappings.username.prefix`) so problems, form fields and YAML locations line up.
import { splitConfigPath } from '../../config/index.js';

export type Path = ReadonlyArray<string | number>;

export function pathString(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

export function parsePath(text: string): Path {
  return splitConfigPath(text);
}

/** The value at a path of plain data, or undefined. */
export function getAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

/** Paths from the given one up to the root, longest first (`a.b[0]`, `a.b`, `a`, ``). */
export function ancestors(text: string): string[] {
  const segs = parsePath(text);
  const out: string[] = [];
  for (let n = segs.length; n >= 0; n--) out.push(pathString(segs.slice(0, n)));
  return out;
}
