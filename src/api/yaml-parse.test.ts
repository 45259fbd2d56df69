import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { yamlDuplicateFields } from './duplicate-fields.js';
import { fastYamlDecode } from './yaml-parse.js';

// The fast decoder must only ever accept what the yaml library accepts, with the same value and the
// same duplicate-key paths; everything else it hands back (undefined). Checked on hand-picked
// documents and on seeded random documents and mutations of them.

/** The library's reading (body.ts's path): one document, no fatal error, toJS, duplicates. */
function library(text: string): { value: unknown; duplicates: string[] } | 'error' {
  try {
    const docs = parseAllDocuments(text, { uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [docs];
    const real = list.filter((d) => d.contents !== null);
    if (real.length !== 1) return 'error';
    const doc = real[0]!;
    if (doc.errors.some((e) => e.code !== 'DUPLICATE_KEY')) return 'error';
    return { value: doc.toJS({ maxAliasCount: 100 }), duplicates: yamlDuplicateFields(doc) };
  } catch {
    return 'error';
  }
}

function same(text: string): boolean {
  const fast = fastYamlDecode(text);
  if (fast === undefined) return false;
  const want = library(text);
  expect({ text, got: fast }).toEqual({ text, got: want });
  return true;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['a', 'b', 'name', 'x y', 'null', 'True', '0x1F', '0o7', '12', '-3', '1.5', '.inf', '1e3', '~', ':', '#', ' #c', '"', "'", '\\', '\n', '\n\n', ' ', '- ', '[', '{}', 'é', '---', 'k: v', '@', '%', '|'];
const EDITS = [' ', '  ', '\n', '\n  ', ':', ': ', '- ', '-', '#', ' # c', '|', '|-', '|+', '|2', '>', '"', "'", '"a\\tb"', "'it''s'", '---', '...', '[]', '{}', '[a]', 'null', '0x1', 'a: b', '&x ', '*x', '!!str ', '\\', '? ', 'é', '__proto__: 1', '<<: {}'];

function randomString(r: () => number): string {
  let s = '';
  for (let n = Math.floor(r() * 4); n > 0; n--) s += WORDS[Math.floor(r() * WORDS.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.45) {
    const t = r();
    if (t < 0.6) return randomString(r);
    if (t < 0.75) return [0, -0, 1.5, -2, 1e21, 3e-7, NaN, Infinity, 42][Math.floor(r() * 9)];
    if (t < 0.9) return r() < 0.5;
    return null;
  }
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let n = Math.floor(r() * 4); n > 0; n--) o[r() < 0.6 ? ['a', 'b', 'spec', 'x.y/z'][Math.floor(r() * 4)]! : randomString(r)] = randomValue(r, depth + 1);
  return o;
}

describe('fastYamlDecode', () => {
  it('reads manifests as the library does', () => {
    const docs = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x # the name\n  labels: {}\ndata:\n  a: "1"\n  b: \'two\'\n',
      '---\n# a comment\nkind: Pod\nspec:\n  containers:\n  - name: web\n    image: nginx:1.25\n    ports:\n      - containerPort: 80\n        protocol: TCP\n    args: []\n',
      'a:\n  - - 1\n    - 2\n  -\n    b: c\n  - \nd: null\ne:\nf: ~\n',
      'script: |\n  #!/bin/sh\n  echo hi\n\n  exit 0\nkeep: |+\n  a\n\n\nstrip: |-\n  x\n  y\nlast: z\n',
      'end: |\n  no newline at end',
      'dup: 1\nm:\n  k: 1\n  k: 2\ndup: 2\nl:\n- x: 1\n  x: 2\n',
      'q: "tab\\tnew\\nline \\u00e9 \\x41 \\" \\\\ \\/"\nk2: \'\'\ne: ""\nsp: "  "\n',
      'n: [1]\n',
      'a: b\n---\nc: d\n',
      'a: &x 1\nb: *x\n',
      'folded: >\n  a\n  b\n',
      'multi: a\n  b\n',
      '"quoted key": 1\n\'single\': 2\n',
      'a:   spaced   \nb : c\n',
      '80: x\n',
      '- a\n- b: c\n  d: e\n- - f\n',
      '  indented: root\n  more: 1\n',
    ];
    let accepted = 0;
    for (const d of docs) if (same(d)) accepted++;
    expect(accepted).toBeGreaterThanOrEqual(10);
    expect(fastYamlDecode(docs[0]!)).toBeDefined();
    expect(fastYamlDecode(docs[5]!)!.duplicates).toEqual(['m.k', 'dup', 'l[0].x']);
  });

  it('accepts what the emitter writes and agrees with the library on random documents and mutations', () => {
    const r = rng(7);
    let emitted = 0;
    let acceptedEmitted = 0;
    for (let i = 0; i < 1500; i++) {
      const v = { root: randomValue(r, 0), spec: randomValue(r, 1) };
      const text = stringify(v, { lineWidth: 0, aliasDuplicateObjects: false });
      emitted++;
      if (same(text)) acceptedEmitted++;
      for (let m = 0; m < 4; m++) {
        let t = text;
        for (let e = 1 + Math.floor(r() * 3); e > 0; e--) {
          const at = Math.floor(r() * (t.length + 1));
          const del = r() < 0.3 ? Math.floor(r() * 3) : 0;
          t = t.slice(0, at) + EDITS[Math.floor(r() * EDITS.length)] + t.slice(at + del);
        }
        same(t);
      }
    }
    // most emitted documents take the fast path (strings with control characters, multi-line
    // double quotes and similar go to the library)
    expect(acceptedEmitted / emitted).toBeGreaterThan(0.5);
  });
});
