import { describe, expect, test } from 'vitest';
import { celSelectsField, compileCel } from './cel.js';

describe('compileCel', () => {
  test('claim validation rules produce bools over claims', () => {
    const r = compileCel('claimValidation', "claims.hd == 'example.com'");
    expect(r.ok && r.type).toBe('bool');
    expect(compileCel('claimValidation', 'claims.hd')).toMatchObject({ ok: false, message: 'must evaluate to bool' });
  });

  test('string mappings accept strings and dynamic claim values, nothing else', () => {
    expect(compileCel('claimMappingString', "'u:' + claims.sub")).toMatchObject({ ok: true, type: 'string' });
    expect(compileCel('claimMappingString', 'claims.sub')).toMatchObject({ ok: true, type: 'dyn' });
    expect(compileCel('claimMappingString', "['a']")).toMatchObject({ ok: false, message: 'must evaluate to string' });
  });

  test('list mappings accept strings and lists of strings', () => {
    expect(compileCel('claimMappingStringOrList', "claims.groups.filter(g, g != '')")).toMatchObject({ ok: true });
    expect(compileCel('claimMappingStringOrList', "['a', 'b']")).toMatchObject({ ok: true, type: 'list<string>' });
    expect(compileCel('claimMappingStringOrList', 'true')).toMatchObject({ ok: false, message: 'must evaluate to one of [string list(string)]' });
  });

  test('user and request environments know their fields', () => {
    expect(compileCel('userValidation', "user.extra['k'].exists(v, v == 'x')")).toMatchObject({ ok: true, type: 'bool' });
    expect(compileCel('matchCondition', "request.nonResourceAttributes.verb == 'get'")).toMatchObject({ ok: true, type: 'bool' });
    expect(compileCel('matchCondition', 'claims.a == 1')).toMatchObject({ ok: false, message: 'compilation failed: ERROR: <input>:1:1: Unknown variable: claims' });
  });

  test('the Kubernetes libraries of upstream\'s base environment are available', () => {
    const url = compileCel('claimMappingString', "url(claims.iss).getHostname() + '/' + claims.email.split('@')[0].lowerAscii()");
    expect(url).toMatchObject({ ok: true, type: 'string' });
    if (url.ok) expect(url.program({ claims: { iss: 'https://issuer.example.com:8443/x', email: 'Ann@example.com' } })).toBe('issuer.example.com/ann');
    expect(compileCel('claimValidation', "!format.dns1123Label().validate(claims.sub).hasValue() && sets.contains(claims.groups, ['dev'])")).toMatchObject({ ok: true, type: 'bool' });
    expect(compileCel('matchCondition', "cidr('10.0.0.0/8').containsIP(request.extra['ip'][0])")).toMatchObject({ ok: true, type: 'bool' });
  });

  test('errors carry the position inside the expression', () => {
    const r = compileCel('claimValidation', 'claims.a == 1 &&\n  claims.b +');
    expect(r).toMatchObject({ ok: false, message: 'compilation failed: ERROR: <input>:2:13: Unexpected token: EOF', range: { start: 29, end: 29 } });
  });

  test('compiled programs evaluate', () => {
    const r = compileCel('claimValidation', "claims.hd == 'example.com'");
    if (!r.ok) throw new Error(r.message);
    expect(r.program({ claims: { hd: 'example.com' } })).toBe(true);
    expect(r.program({ claims: { hd: 'other.com' } })).toBe(false);
  });
});

describe('celSelectsField', () => {
  const ast = (e: string) => {
    const r = compileCel('claimMappingStringOrList', e);
    if (!r.ok) throw new Error(r.message);
    return r.ast;
  };
  test('finds plain and optional selections anywhere in the tree', () => {
    expect(celSelectsField(ast('claims.email'), 'claims', 'email')).toBe(true);
    expect(celSelectsField(ast("claims.?email.orValue('')"), 'claims', 'email')).toBe(true);
    expect(celSelectsField(ast("claims.groups.map(g, claims.email + g)"), 'claims', 'email')).toBe(true);
    expect(celSelectsField(ast("[claims.sub, 'x']"), 'claims', 'email')).toBe(false);
    expect(celSelectsField(ast("claims.email_verified ? 'a' : 'b'"), 'claims', 'email')).toBe(false);
  });
});
