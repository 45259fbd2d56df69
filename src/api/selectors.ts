// Label and field selectors, as upstream's labels.Parse and fields.ParseSelector.

export type LabelRequirement =
  | { key: string; op: '=' | '!='; values: [string] }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists'; values: [] };

export class SelectorError extends Error {}

export interface LabelSelector {
  requirements: LabelRequirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  empty: boolean;
  toString(): string;
}

const KEY = /^([a-z0-9A-Z][-a-z0-9A-Z_.]*)?[a-z0-9A-Z]$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/([a-z0-9A-Z][-a-z0-9A-Z_.]*)?[a-z0-9A-Z]$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(k: string): string {
  if (!KEY.test(k) || k.length > 317) throw new SelectorError(`unable to parse requirement: invalid label key "${k}"`);
  return k;
}
function checkValue(v: string): string {
  if (v.length > 63 || !VALUE.test(v)) throw new SelectorError(`unable to parse requirement: invalid label value: "${v}"`);
  return v;
}

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function parseLabelSelector(input: string | null | undefined): LabelSelector {
  const reqs: LabelRequirement[] = [];
  const text = (input ?? '').trim();
  if (text) {
    for (const raw of splitTop(text)) {
      const part = raw.trim();
      if (!part) throw new SelectorError(`found '', expected: identifier`);
      let m: RegExpMatchArray | null;
      if ((m = part.match(/^!\s*([^\s!=(),]+)$/))) reqs.push({ key: checkKey(m[1]!), op: '!exists', values: [] });
      else if ((m = part.match(/^([^\s!=(),]+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
        const values = m[3]!.split(',').map((v) => checkValue(v.trim()));
        reqs.push({ key: checkKey(m[1]!), op: m[2] as 'in' | 'notin', values });
      } else if ((m = part.match(/^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/)))
        reqs.push({ key: checkKey(m[1]!), op: m[2] === '!=' ? '!=' : '=', values: [checkValue(m[3]!)] });
      else if ((m = part.match(/^([^\s!=(),]+)$/))) reqs.push({ key: checkKey(m[1]!), op: 'exists', values: [] });
      else throw new SelectorError(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }
  return {
    requirements: reqs,
    empty: reqs.length === 0,
    matches(labels) {
      for (const r of reqs) {
        const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
        const v = has ? labels![r.key] : undefined;
        switch (r.op) {
          case '=':
            if (v !== r.values[0]) return false;
            break;
          case '!=':
            if (v === r.values[0]) return false;
            break;
          case 'in':
            if (!has || !r.values.includes(v!)) return false;
            break;
          case 'notin':
            if (has && r.values.includes(v!)) return false;
            break;
          case 'exists':
            if (!has) return false;
            break;
          case '!exists':
            if (has) return false;
            break;
        }
      }
      return true;
    },
    toString: () => text,
  };
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
  empty: boolean;
  /** `get` returns the field's value for an object, or undefined when the field is not selectable. */
  matches(get: (field: string) => string | undefined): boolean;
  /** The single metadata.name=x requirement, if the selector is exactly that (used for single-object watches). */
  exactName(): string | undefined;
}

/** Parses `a=b,c!=d` with upstream's escaping (\, \= \!). */
export function parseFieldSelector(input: string | null | undefined): FieldSelector {
  const reqs: FieldRequirement[] = [];
  const text = (input ?? '').trim();
  if (text) {
    for (const part of splitUnescaped(text, ',')) {
      const m = findOperator(part);
      if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
      reqs.push({ field: unescape(part.slice(0, m.at)).trim(), op: m.op, value: unescape(part.slice(m.at + m.len)) });
    }
  }
  return {
    requirements: reqs,
    empty: reqs.length === 0,
    matches(get) {
      for (const r of reqs) {
        const v = get(r.field) ?? '';
        if (r.op === '=' ? v !== r.value : v === r.value) return false;
      }
      return true;
    },
    exactName() {
      const eq = reqs.filter((r) => r.field === 'metadata.name' && r.op === '=');
      return eq.length === 1 ? eq[0]!.value : undefined;
    },
  };
}

function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i]! + s[i + 1]!;
      i++;
    } else if (s[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += s[i];
  }
  out.push(cur);
  return out;
}

function findOperator(s: string): { at: number; len: number; op: '=' | '!=' } | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') {
      i++;
      continue;
    }
    if (s.startsWith('!=', i)) return { at: i, len: 2, op: '!=' };
    if (s.startsWith('==', i)) return { at: i, len: 2, op: '=' };
    if (s[i] === '=') return { at: i, len: 1, op: '=' };
  }
  return undefined;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}
