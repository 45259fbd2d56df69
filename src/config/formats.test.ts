import { describe, expect, test } from 'vitest';
import { base64DecodedLength, containsPemCertificate, domainPrefixedPathErrors, parseDuration } from './formats.js';
import { TEST_CA_PEM } from './test-support.js';

describe('parseDuration', () => {
  test.each([
    ['5s', 5000],
    ['1m30s', 90_000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['-2m', -120_000],
    ['0', 0],
    ['.5s', 500],
    ['10us', 0.01],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 6);
  });

  test.each(['', '5', 's', '5 s', '1d', '1m-30s', '.s'])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

test('base64DecodedLength follows padded standard base64', () => {
  expect(base64DecodedLength('AAAA')).toBe(3);
  expect(base64DecodedLength('AAA=')).toBe(2);
  expect(base64DecodedLength('AA==')).toBe(1);
  expect(base64DecodedLength('AAA')).toBeUndefined();
  expect(base64DecodedLength('AA-_')).toBeUndefined();
});

test('containsPemCertificate finds a certificate block', () => {
  expect(containsPemCertificate(TEST_CA_PEM)).toBe(true);
  expect(containsPemCertificate(`junk\n${TEST_CA_PEM}`)).toBe(true);
  expect(containsPemCertificate(TEST_CA_PEM.replace('CERTIFICATE', 'PRIVATE KEY'))).toBe(false);
});

test('domainPrefixedPathErrors', () => {
  expect(domainPrefixedPathErrors('example.org/a/b')).toEqual([]);
  expect(domainPrefixedPathErrors('/a')).toEqual([['/a', 'must be a domain-prefixed path (such as "acme.io/foo")']]);
  expect(domainPrefixedPathErrors('example.org/')).toEqual([['example.org/', 'must be a domain-prefixed path (such as "acme.io/foo")']]);
});
