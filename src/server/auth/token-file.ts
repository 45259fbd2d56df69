// --token-auth-file: static bearer tokens in upstream's CSV format
// (k8s.io/apiserver/pkg/authentication/token/tokenfile): token,user,uid[,"group1,group2"].
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { UserInfo } from './user.js';

export class TokenFileError extends Error {}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines; leading spaces are trimmed (csv TrimLeadingSpace). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let inQuotes = false;
  let atFieldStart = true;
  const endField = () => {
    record.push(field);
    field = '';
    atFieldStart = true;
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else field += c;
      continue;
    }
    if (atFieldStart && (c === ' ' || c === '\t')) continue;
    if (atFieldStart && c === '"') {
      inQuotes = true;
      atFieldStart = false;
      continue;
    }
    if (c === ',') endField();
    else if (c === '\n') endRecord();
    else if (c === '\r' && text[i + 1] === '\n') continue;
    else {
      field += c;
      atFieldStart = false;
    }
  }
  if (inQuotes) throw new TokenFileError('extraneous or missing " in quoted-field');
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

export interface TokenFile {
  /** The user of a token, or undefined. */
  lookup(token: string): UserInfo | undefined;
  readonly size: number;
  /** Problems that did not stop loading (duplicate tokens). */
  readonly warnings: string[];
}

export function parseTokenFile(text: string, file = 'token file'): TokenFile {
  const users = new Map<string, UserInfo>();
  const warnings: string[] = [];
  parseCsv(text.replace(/^\uFEFF/, '')).forEach((rec, i) => {
    if (rec.length < 3) throw new TokenFileError(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token, name, uid] = rec as [string, string, string];
    if (token === '') return;
    if (users.has(token)) warnings.push(`duplicate token has been found in token file '${file}', record ${i + 1}`);
    const groups = rec.length >= 4 ? rec[3]!.split(',').map((g) => g.trim()).filter(Boolean) : [];
    users.set(token, { name, uid, groups, extra: {} });
  });
  const entries = [...users];
  return {
    size: users.size,
    warnings,
    lookup(token) {
      // compare every entry in constant time per entry, as a plain map lookup would leak timing
      const t = Buffer.from(token);
      let found: UserInfo | undefined;
      for (const [k, u] of entries) {
        const kb = Buffer.from(k);
        if (kb.length === t.length && timingSafeEqual(kb, t)) found = u;
      }
      return found;
    },
  };
}

export function loadTokenFile(path: string): TokenFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TokenFileError(`error reading token file '${path}': ${(e as Error).message}`);
  }
  return parseTokenFile(text, path);
}
