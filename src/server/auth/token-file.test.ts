import { describe, expect, test } from 'vitest';
import { bearerToken, isLoopback } from './authenticator.js';
import { parseCsv, parseTokenFile, TokenFileError } from './token-file.js';

describe('token file (upstream CSV)', () => {
  test('quoted group lists, trimmed groups, CRLF, blank lines, BOM', () => {
    const f = parseTokenFile('\uFEFFt1,alice,1,"a, b,,c"\r\n\nt2,bob,2\n');
    expect(f.lookup('t1')).toEqual({ name: 'alice', uid: '1', groups: ['a', 'b', 'c'], extra: {} });
    expect(f.lookup('t2')).toEqual({ name: 'bob', uid: '2', groups: [], extra: {} });
    expect(f.lookup('t3')).toBeUndefined();
    expect(f.lookup('t')).toBeUndefined();
  });
  test('fewer than three columns is an error; duplicates warn and the last wins', () => {
    expect(() => parseTokenFile('t1,alice\n', 'x.csv')).toThrow("token file 'x.csv' must have at least 3 columns (token, user name, user uid), found 2");
    const f = parseTokenFile('t,a,1\nt,b,2\n', 'x.csv');
    expect(f.warnings).toEqual(["duplicate token has been found in token file 'x.csv', record 2"]);
    expect(f.lookup('t')?.name).toBe('b');
  });
  test('CSV quoting rules', () => {
    expect(parseCsv('"a ""q""",b\n')).toEqual([['a "q"', 'b']]);
    expect(parseCsv('a,"multi\nline"')).toEqual([['a', 'multi\nline']]);
    expect(() => parseCsv('"open,b\n')).toThrow(TokenFileError);
  });
});

describe('bearer token header (upstream bearertoken)', () => {
  test.each([
    [undefined, undefined],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc', ''],
    ['Bearer abc def', 'abc'],
  ])('%s -> %s', (h, want) => expect(bearerToken(h)).toBe(want));
});

test('loopback addresses (the local development posture)', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(a)).toBe(true);
  for (const a of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1']) expect(isLoopback(a)).toBe(false);
});
