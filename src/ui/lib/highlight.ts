// A small syntax highlighter for the manifest viewer (YAML and JSON): tokens per line.

export type TokenClass = 'key' | 'string' | 'number' | 'literal' | 'comment' | 'punct' | 'plain';
export interface Token {
  text: string;
  cls: TokenClass;
}

const LITERAL = /^(true|false|null|~|yes|no|on|off)$/i;
const NUMBER = /^-?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+|0x[0-9a-fA-F]+|\.inf|\.nan)$/;

function scalar(text: string): TokenClass {
  const t = text.trim();
  if (!t) return 'plain';
  if (t.startsWith('"') || t.startsWith("'")) return 'string';
  if (LITERAL.test(t)) return 'literal';
  if (NUMBER.test(t)) return 'number';
  if (t === '|' || t === '>' || t === '|-' || t === '>-' || t === '{}' || t === '[]') return 'punct';
  return 'string';
}

export function highlightYamlLine(line: string): Token[] {
  const out: Token[] = [];
  const m = /^(\s*)(- )?(.*)$/.exec(line)!;
  if (m[1]) out.push({ text: m[1], cls: 'plain' });
  if (m[2]) out.push({ text: m[2], cls: 'punct' });
  const rest = m[3]!;
  if (rest.startsWith('#')) return [...out, { text: rest, cls: 'comment' }];
  // key: value (keys may be quoted)
  const km = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:"'][^:]*?)(:)(\s+|$)(.*)$/.exec(rest);
  if (km) {
    out.push({ text: km[1]!, cls: 'key' }, { text: km[2]!, cls: 'punct' });
    if (km[3]) out.push({ text: km[3], cls: 'plain' });
    if (km[4]) out.push({ text: km[4], cls: scalar(km[4]) });
    return out;
  }
  if (rest) out.push({ text: rest, cls: scalar(rest) });
  return out;
}

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(true|false|null)|([{}[\],])|(\s+)|(.)/g;

export function highlightJsonLine(line: string): Token[] {
  const out: Token[] = [];
  JSON_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = JSON_TOKEN.exec(line))) {
    if (m[1] !== undefined) {
      if (m[2] !== undefined) out.push({ text: m[1], cls: 'key' }, { text: m[2], cls: 'punct' });
      else out.push({ text: m[1], cls: 'string' });
    } else if (m[3] !== undefined) out.push({ text: m[3], cls: 'number' });
    else if (m[4] !== undefined) out.push({ text: m[4], cls: 'literal' });
    else if (m[5] !== undefined) out.push({ text: m[5], cls: 'punct' });
    else out.push({ text: m[0], cls: 'plain' });
  }
  return out;
}

export function highlight(text: string, lang: 'yaml' | 'json'): Token[][] {
  const f = lang === 'yaml' ? highlightYamlLine : highlightJsonLine;
  return text.split('\n').map(f);
}
