// Field paths in their three wire spellings, parsed into one form:
//   validation causes and warnings   spec.template.spec.containers[0].image, metadata.labels[app]
//   server-side apply conflicts      .spec.containers[name="cart"].image, .metadata.finalizers[="a"]
//   managedFields (FieldsV1)         {"f:spec":{"f:containers":{"k:{\"name\":\"cart\"}":{"f:image":{}}}}}
// plus the object fields a manager owns (for an apply configuration of just those).

export type Segment =
  | { field: string } // a named field, or a map key
  | { index: number } // a list position
  | { key: Record<string, unknown> } // the list item whose fields have these values
  | { value: unknown }; // the set member with this value

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Splits on commas outside double quotes. */
function splitPairs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && quoted) {
      cur += c + (s[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function bracket(inner: string): Segment {
  if (/^\d+$/.test(inner)) return { index: Number(inner) };
  if (inner.startsWith('=')) return { value: scalar(inner.slice(1)) };
  const pairs = splitPairs(inner);
  if (pairs.every((p) => /^[A-Za-z_$][\w$-]*=/.test(p))) {
    const key: Record<string, unknown> = {};
    for (const p of pairs) {
      const eq = p.indexOf('=');
      key[p.slice(0, eq)] = scalar(p.slice(eq + 1));
    }
    return { key };
  }
  return { field: inner };
}

/** Parses a validation-style or apply-style field path. A `patch[3]` cause gives [{field:'patch'},{index:3}]. */
export function parseFieldPath(path: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  const s = path.trim();
  while (i < s.length) {
    const c = s[i]!;
    if (c === '.') {
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let quoted = false;
      while (j < s.length && (quoted || s[j] !== ']')) {
        if (s[j] === '\\' && quoted) j++;
        else if (s[j] === '"') quoted = !quoted;
        j++;
      }
      out.push(bracket(s.slice(i + 1, j)));
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
    out.push({ field: s.slice(i, j) });
    i = j;
  }
  return out;
}

/** A path written the way the server writes apply conflicts. */
export function formatFieldPath(segs: Segment[]): string {
  return segs
    .map((s) => {
      if ('field' in s) return /^[A-Za-z_$][\w$-]*$/.test(s.field) ? `.${s.field}` : `[${s.field}]`;
      if ('index' in s) return `[${s.index}]`;
      if ('value' in s) return `[=${JSON.stringify(s.value)}]`;
      return `[${Object.entries(s.key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

function fieldsV1Segment(k: string): Segment {
  if (k.startsWith('f:')) return { field: k.slice(2) };
  if (k.startsWith('i:')) return { index: Number(k.slice(2)) };
  if (k.startsWith('v:')) return { value: scalar(k.slice(2)) };
  if (k.startsWith('k:')) {
    const key = scalar(k.slice(2));
    return isObject(key) ? { key } : { field: k };
  }
  return { field: k };
}

/** Every path a FieldsV1 set names: leaves, and nodes marked as owned themselves (the "." entry). */
export function fieldsV1Paths(fields: Record<string, unknown> | undefined, prefix: Segment[] = []): Segment[][] {
  const out: Segment[][] = [];
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (k === '.') {
      if (prefix.length) out.push(prefix);
      continue;
    }
    const p = [...prefix, fieldsV1Segment(k)];
    const children = isObject(v) ? Object.keys(v) : [];
    if (children.length === 0) out.push(p);
    else out.push(...fieldsV1Paths(v as Record<string, unknown>, p));
  }
  return out;
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' && typeof b !== 'object') return String(a) === String(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The list item a key segment selects: every key field equal (numbers and strings compared by text). */
export function matchesKey(item: unknown, key: Record<string, unknown>): boolean {
  if (!isObject(item)) return false;
  return Object.entries(key).every(([k, v]) => looseEqual(item[k], v));
}

/** Resolves segments against a plain value to concrete property names and indexes (undefined when absent). */
export function concretePath(doc: unknown, segs: Segment[]): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let cur = doc;
  for (const s of segs) {
    if ('field' in s) {
      if (!isObject(cur) || !(s.field in cur)) return undefined;
      out.push(s.field);
      cur = cur[s.field];
    } else if ('index' in s) {
      if (!Array.isArray(cur) || s.index >= cur.length) return undefined;
      out.push(s.index);
      cur = cur[s.index];
    } else {
      if (!Array.isArray(cur)) return undefined;
      const i = 'key' in s ? cur.findIndex((x) => matchesKey(x, s.key)) : cur.findIndex((x) => looseEqual(x, s.value));
      if (i < 0) return undefined;
      out.push(i);
      cur = cur[i];
    }
  }
  return out;
}

/**
 * The part of `obj` a FieldsV1 set covers: an apply configuration holding just the fields one manager
 * owns (list items keep their key fields so they still identify the item).
 */
export function extractOwned(obj: unknown, fields: Record<string, unknown> | undefined): unknown {
  const walk = (value: unknown, set: Record<string, unknown>): unknown => {
    const entries = Object.entries(set).filter(([k]) => k !== '.');
    if (entries.length === 0) return structuredClone(value);
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of entries) {
        if (!k.startsWith('f:')) continue;
        const name = k.slice(2);
        if (!(name in value)) continue;
        out[name] = walk(value[name], isObject(sub) ? sub : {});
      }
      return out;
    }
    if (Array.isArray(value)) {
      const picked: { i: number; v: unknown }[] = [];
      for (const [k, sub] of entries) {
        const seg = fieldsV1Segment(k);
        let i = -1;
        if ('key' in seg) i = value.findIndex((x) => matchesKey(x, seg.key));
        else if ('value' in seg) i = value.findIndex((x) => looseEqual(x, seg.value));
        else if ('index' in seg) i = seg.index < value.length ? seg.index : -1;
        if (i < 0) continue;
        let v = walk(value[i], isObject(sub) ? sub : {});
        if ('key' in seg && isObject(v)) v = { ...seg.key, ...v };
        picked.push({ i, v });
      }
      return picked.sort((a, b) => a.i - b.i).map((p) => p.v);
    }
    return structuredClone(value);
  };
  return walk(obj, fields ?? {});
}
