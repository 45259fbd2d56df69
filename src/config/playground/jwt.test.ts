import { describe, expect, test } from 'vitest';
import { base64UrlDecode, base64UrlEncode, buildUnsignedJwt, decodeJwt, generateSigningKey, JwtFormatError, signJwt, verifyJwtSignature } from './jwt.js';

const claims = { iss: 'https://issuer.example.com', aud: ['kubernetes'], sub: 'jane', exp: 2_000_000_000 };

describe('decoding', () => {
  test('round-trips an unsigned token', () => {
    const token = buildUnsignedJwt(claims);
    expect(token.endsWith('.')).toBe(true);
    const d = decodeJwt(token);
    expect(d.header).toEqual({ alg: 'none', typ: 'JWT' });
    expect(d.claims).toEqual(claims);
    expect(d.signature.length).toBe(0);
  });

  test('base64url handles bytes that need - and _', () => {
    const bytes = new Uint8Array([0xfb, 0xff, 0xbf, 0x00, 0x3e]);
    const text = base64UrlEncode(bytes);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect([...base64UrlDecode(text)]).toEqual([...bytes]);
  });

  test.each([
    ['abc', 'a JWT has 3 dot-separated parts, this has 1'],
    ['a.b.c.d', 'a JWT has 3 dot-separated parts, this has 4'],
    [`${base64UrlEncode('not json')}.${base64UrlEncode('{}')}.`, 'the header is not base64url-encoded JSON'],
    [`${base64UrlEncode('{}')}.${base64UrlEncode('[1]')}.`, 'the payload is not a JSON object'],
    [`${base64UrlEncode('{}')}.${base64UrlEncode('{}')}.a+b`, 'the signature is not base64url'],
  ])('rejects %s', (token, message) => {
    expect(() => decodeJwt(token)).toThrow(JwtFormatError);
    expect(() => decodeJwt(token)).toThrow(message);
  });
});

describe('signatures', () => {
  test('skipped without a JWKS', async () => {
    const r = await verifyJwtSignature(decodeJwt(buildUnsignedJwt(claims)), '  ');
    expect(r.status).toBe('skipped');
  });

  test.each(['RS256', 'ES256', 'PS256', 'ES384'] as const)('%s: verifies with the public key and rejects tampering', async (alg) => {
    const key = await generateSigningKey(alg, 'k1');
    const token = await signJwt(claims, key);
    const jwks = JSON.stringify({ keys: [key.publicJwk] });
    expect(await verifyJwtSignature(decodeJwt(token), jwks)).toEqual({ status: 'verified', detail: `signature verified with key "k1" (${alg})`, kid: 'k1', alg });

    const [h, , s] = token.split('.');
    const forged = `${h}.${base64UrlEncode(JSON.stringify({ ...claims, sub: 'admin' }))}.${s}`;
    expect(await verifyJwtSignature(decodeJwt(forged), jwks)).toEqual({ status: 'invalid', detail: 'the signature does not verify with the matching key' });
  });

  test('another key with the same kid does not verify', async () => {
    const signer = await generateSigningKey('RS256', 'k1');
    const other = await generateSigningKey('RS256', 'k1');
    const r = await verifyJwtSignature(decodeJwt(await signJwt(claims, signer)), { keys: [other.publicJwk] });
    expect(r.status).toBe('invalid');
  });

  test('picks the key by kid among several', async () => {
    const a = await generateSigningKey('ES256', 'a');
    const b = await generateSigningKey('ES256', 'b');
    const r = await verifyJwtSignature(decodeJwt(await signJwt(claims, b)), { keys: [a.publicJwk, b.publicJwk] });
    expect(r).toMatchObject({ status: 'verified', kid: 'b' });
  });

  test('a single JWK is accepted as well as a key set', async () => {
    const key = await generateSigningKey('RS256', 'solo');
    const r = await verifyJwtSignature(decodeJwt(await signJwt(claims, key)), JSON.stringify(key.publicJwk));
    expect(r.status).toBe('verified');
  });

  test.each([
    ['an unsigned token', async () => buildUnsignedJwt(claims), '{"keys":[]}', 'the token is unsigned (alg "none"), which is never accepted'],
    ['a JWKS that is not JSON', async () => signJwt(claims, await generateSigningKey('RS256', 'x')), '{keys', 'the JWKS is not valid JSON'],
    ['a JWKS without keys', async () => signJwt(claims, await generateSigningKey('RS256', 'x')), '{"k":1}', 'the JWKS must be a JSON object with a "keys" list'],
    ['no key with the kid', async () => signJwt(claims, await generateSigningKey('RS256', 'x')), '{"keys":[{"kty":"RSA","kid":"y","n":"AQAB","e":"AQAB"}]}', 'no RSA key with kid "x" for RS256 in the JWKS'],
  ])('invalid: %s', async (_title, make, jwks, detail) => {
    expect(await verifyJwtSignature(decodeJwt(await make()), jwks)).toEqual({ status: 'invalid', detail });
  });

  test('an unsupported algorithm is named', async () => {
    const token = `${base64UrlEncode(JSON.stringify({ alg: 'HS256' }))}.${base64UrlEncode('{}')}.${base64UrlEncode('sig')}`;
    const r = await verifyJwtSignature(decodeJwt(token), { keys: [] });
    expect(r).toEqual({ status: 'invalid', detail: 'unsupported signing algorithm "HS256"; supported: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512' });
  });
});
