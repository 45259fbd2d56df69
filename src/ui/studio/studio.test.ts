import { describe, expect, test } from 'vitest';
import { base64DecodedLength, CONFIG_KINDS, parseConfigText, validateConfigDocument } from '../../config/index.js';
import { celPurposeAt, skeleton } from './hints.js';
import { problemMarkers, problemRange } from './markers.js';
import { keySizes, newKey, providerOfKeyPath, randomKeyBase64 } from './keys.js';
import { ancestors, getAt, parsePath, pathString } from './paths.js';
import { STUDIO_TEMPLATES, templatesFor } from './templates.js';
import { editYamlText, normalizeImportedText, YamlEditError } from './yaml-edit.js';

describe('templates', () => {
  test('every kind has an empty template first and at least one common setup', () => {
    for (const kind of CONFIG_KINDS) {
      const ts = templatesFor(kind);
      expect(ts[0]!.title).toBe('Empty');
      expect(ts.length).toBeGreaterThan(1);
    }
  });

  test.each(STUDIO_TEMPLATES.filter((t) => t.title !== 'Empty').map((t) => [t.id, t] as const))('%s is valid with no warnings', (_id, t) => {
    const parsed = parseConfigText(t.text());
    expect(parsed.problems).toEqual([]);
    expect((parsed.doc as { kind: string }).kind).toBe(t.kind);
    expect(validateConfigDocument(parsed.doc)).toEqual([]);
  });

  test('the encryption template gets a fresh 32-byte key each time', () => {
    const t = STUDIO_TEMPLATES.find((x) => x.id === 'encryption-aescbc-identity')!;
    const secret = (text: string) => /secret: (\S+)/.exec(text)![1]!;
    const a = secret(t.text());
    expect(base64DecodedLength(a)).toBe(32);
    expect(secret(t.text())).not.toBe(a);
  });
});

describe('yaml edits', () => {
  const text = `# my config
apiVersion: apiserver.config.service.io/v1
kind: AuthenticationConfiguration
jwt:
  - issuer:
      url: https://a.example.com # the old one
      audiences: [k]
    claimMappings:
      username: { claim: sub, prefix: "" }
`;

  test('set keeps comments and creates missing parents', () => {
    const out = editYamlText(text, [
      { op: 'set', path: ['jwt', 0, 'issuer', 'url'], value: 'https://b.example.com' },
      { op: 'set', path: ['anonymous', 'enabled'], value: true },
    ]);
    expect(out).toContain('# my config');
    expect(out).toContain('url: https://b.example.com # the old one');
    expect(parseConfigText(out).doc).toMatchObject({ anonymous: { enabled: true }, jwt: [{ issuer: { url: 'https://b.example.com' } }] });
  });

  test('set undefined removes a field; strings that look like other types stay strings', () => {
    const out = editYamlText(text, [
      { op: 'set', path: ['jwt', 0, 'claimMappings', 'username', 'prefix'], value: undefined },
      { op: 'set', path: ['jwt', 0, 'issuer', 'audiences', 0], value: 'true' },
    ]);
    const doc = parseConfigText(out).doc as any;
    expect(doc.jwt[0].claimMappings.username).toEqual({ claim: 'sub' });
    expect(doc.jwt[0].issuer.audiences).toEqual(['true']);
  });

  test('insert, move and remove list items', () => {
    let out = editYamlText(text, [{ op: 'insert', path: ['jwt', 0, 'issuer', 'audiences'], index: 1, value: 'second' }]);
    out = editYamlText(out, [{ op: 'insert', path: ['jwt'], index: 0, value: { issuer: { url: 'https://first.example.com' } } }]);
    expect((parseConfigText(out).doc as any).jwt.map((j: any) => j.issuer.url)).toEqual(['https://first.example.com', 'https://a.example.com']);
    out = editYamlText(out, [{ op: 'move', path: ['jwt'], from: 0, to: 1 }]);
    expect((parseConfigText(out).doc as any).jwt.map((j: any) => j.issuer.url)).toEqual(['https://a.example.com', 'https://first.example.com']);
    out = editYamlText(out, [{ op: 'remove', path: ['jwt'], index: 1 }]);
    const doc = parseConfigText(out).doc as any;
    expect(doc.jwt).toHaveLength(1);
    expect(doc.jwt[0].issuer.audiences).toEqual(['k', 'second']);
    expect(out).toContain('# the old one');
  });

  test('inserting into a missing list creates it; an empty text starts a document', () => {
    const out = editYamlText('', [
      { op: 'set', path: ['kind'], value: 'TracingConfiguration' },
      { op: 'insert', path: ['plugins'], index: 0, value: { name: 'PodSecurity' } },
    ]);
    expect(parseConfigText(out).doc).toEqual({ kind: 'TracingConfiguration', plugins: [{ name: 'PodSecurity' }] });
    expect(out.startsWith('{')).toBe(false);
  });

  test('empty flow collections become block style once they get content', () => {
    const out = editYamlText('kind: X\nplugins: []\nanonymous: {}\naudiences: [a]\n', [
      { op: 'insert', path: ['plugins'], index: 0, value: { name: 'PodSecurity', configuration: { defaults: { enforce: 'baseline' } } } },
      { op: 'set', path: ['anonymous', 'enabled'], value: true },
      { op: 'insert', path: ['audiences'], index: 1, value: 'b' },
    ]);
    expect(out).toBe('kind: X\nplugins:\n  - name: PodSecurity\n    configuration:\n      defaults:\n        enforce: baseline\nanonymous:\n  enabled: true\naudiences: [ a, b ]\n');
  });

  test('broken YAML is not edited', () => {
    expect(() => editYamlText('a: [1', [{ op: 'set', path: ['a'], value: 1 }])).toThrow(YamlEditError);
  });

  test('imported JSON becomes YAML', () => {
    expect(normalizeImportedText('{"kind":"TracingConfiguration","samplingRatePerMillion":5}')).toBe('kind: TracingConfiguration\nsamplingRatePerMillion: 5\n');
    expect(normalizeImportedText('kind: X')).toBe('kind: X\n');
  });
});

describe('paths', () => {
  test('render like the validator and parse back', () => {
    const p = ['jwt', 1, 'claimMappings', 'username', 'prefix'];
    expect(pathString(p)).toBe('jwt[1].claimMappings.username.prefix');
    expect(parsePath('jwt[1].claimMappings.username.prefix')).toEqual(p);
    expect(getAt({ jwt: [{}, { claimMappings: { username: { prefix: 'x' } } }] }, p)).toBe('x');
    expect(ancestors('a.b[0]')).toEqual(['a.b[0]', 'a.b', 'a', '']);
  });
});

describe('keys and hints', () => {
  test('keys have the size of their provider', () => {
    expect(base64DecodedLength(randomKeyBase64(24))).toBe(24);
    expect(providerOfKeyPath(['resources', 0, 'providers', 1, 'aesgcm', 'keys', 0])).toBe('aesgcm');
    expect(keySizes('aesgcm')).toEqual([16, 24, 32]);
    expect(base64DecodedLength(newKey('secretbox', 'k').secret)).toBe(32);
    const item = skeleton('Key', ['resources', 0, 'providers', 0, 'aescbc', 'keys', 1], [{}]) as { name: string; secret: string };
    expect(item.name).toBe('key2');
    expect(base64DecodedLength(item.secret)).toBe(32);
  });

  test('CEL purposes follow the field position', () => {
    expect(celPurposeAt(['jwt', 0, 'claimValidationRules', 2, 'expression'])).toBe('claimValidation');
    expect(celPurposeAt(['jwt', 0, 'claimMappings', 'username', 'expression'])).toBe('claimMappingString');
    expect(celPurposeAt(['jwt', 0, 'claimMappings', 'groups', 'expression'])).toBe('claimMappingStringOrList');
    expect(celPurposeAt(['jwt', 0, 'claimMappings', 'extra', 0, 'valueExpression'])).toBe('claimMappingStringOrList');
    expect(celPurposeAt(['jwt', 0, 'userValidationRules', 0, 'expression'])).toBe('userValidation');
    expect(celPurposeAt(['authorizers', 0, 'webhook', 'matchConditions', 0, 'expression'])).toBe('matchCondition');
    expect(celPurposeAt(['jwt', 0, 'issuer', 'url'])).toBeUndefined();
  });

  test('new authorizers and resource entries validate once named', () => {
    const doc = {
      apiVersion: 'apiserver.config.service.io/v1',
      kind: 'AuthorizationConfiguration',
      authorizers: [skeleton('AuthorizerConfiguration', ['authorizers', 0])],
    };
    expect(validateConfigDocument(doc)).toEqual([]);
    const enc = { apiVersion: 'apiserver.config.service.io/v1', kind: 'EncryptionConfiguration', resources: [skeleton('ResourceConfiguration', ['resources', 0])] };
    (enc.resources[0] as any).resources = ['secrets'];
    expect(validateConfigDocument(enc)).toEqual([]);
  });
});

describe('problem locations', () => {
  const text = 'apiVersion: apiserver.config.service.io/v1\nkind: TracingConfiguration\nendpoint: collector\n';

  test('a field problem marks its value', () => {
    expect(problemRange(text, { path: 'endpoint', message: 'x', severity: 'error' })).toEqual({ line: 3, column: 11, endLine: 3, endColumn: 20 });
  });

  test('a YAML syntax error is placed by its line and column', () => {
    const parsed = parseConfigText('kind: X\nbroken: a: b\n');
    const syntax = parsed.problems[0]!;
    expect(syntax.message).toMatch(/^yaml: line 2, column \d+/);
    expect(problemRange('', syntax)?.line).toBe(2);
  });

  test('markers carry the path and severity', () => {
    expect(problemMarkers(text, [{ path: 'endpoint', message: 'must be host:port', severity: 'warning' }])).toEqual([
      { line: 3, column: 11, endLine: 3, endColumn: 20, message: 'endpoint: must be host:port', severity: 'warning', source: 'periscope' },
    ]);
  });
});

import { withExportSpelling } from './io.js';

describe('export spelling', () => {
  const doc = '# for the API server\napiVersion: apiserver.config.service.io/v1\nkind: TracingConfiguration\nendpoint: collector:4317 # otlp\n';
  test('writes apiserver.config.k8s.io for a real kube-apiserver, keeping comments', () => {
    const up = withExportSpelling(doc, 'upstream');
    expect(up).toContain('apiVersion: apiserver.config.k8s.io/v1');
    expect(up).toContain('# for the API server');
    expect(up).toContain('# otlp');
    expect(withExportSpelling(up, 'periscope')).toContain('apiVersion: apiserver.config.service.io/v1');
  });
  test('leaves other documents and unparsable text alone', () => {
    expect(withExportSpelling(doc, 'periscope')).toBe(doc);
    expect(withExportSpelling('apiVersion: v1\nkind: ConfigMap\n', 'upstream')).toBe('apiVersion: v1\nkind: ConfigMap\n');
    expect(withExportSpelling('a: [', 'upstream')).toBe('a: [');
  });
});
