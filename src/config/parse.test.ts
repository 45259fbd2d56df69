import { describe, expect, test } from 'vitest';
import { locateConfigPath, parseConfigText, splitConfigPath } from './parse.js';
import { validateConfigDocument } from './validate.js';

const YAML_DOC = `apiVersion: apiserver.config.service.io/v1
kind: TracingConfiguration
endpoint: localhost:4317
samplingRatePerMillion: 100
`;

describe('parseConfigText', () => {
  test('reads YAML', () => {
    expect(parseConfigText(YAML_DOC)).toEqual({
      doc: { apiVersion: 'apiserver.config.service.io/v1', kind: 'TracingConfiguration', endpoint: 'localhost:4317', samplingRatePerMillion: 100 },
      problems: [],
    });
  });

  test('reads JSON', () => {
    const parsed = parseConfigText('{"apiVersion": "apiserver.config.service.io/v1", "kind": "TracingConfiguration", "samplingRatePerMillion": 5}');
    expect(parsed.problems).toEqual([]);
    expect(validateConfigDocument(parsed.doc)).toEqual([]);
  });

  test('reports duplicate keys with their path', () => {
    const text = `kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://a.example.com
    url: https://b.example.com
kind: AuthenticationConfiguration
`;
    expect(parseConfigText(text).problems).toEqual([
      { path: 'jwt[0].issuer.url', message: 'duplicate field "url"', severity: 'error' },
      { path: 'kind', message: 'duplicate field "kind"', severity: 'error' },
    ]);
  });

  test('reports duplicate keys in JSON', () => {
    expect(parseConfigText('{"kind": "A", "kind": "B"}').problems).toEqual([{ path: 'kind', message: 'duplicate field "kind"', severity: 'error' }]);
  });

  test('reports several documents', () => {
    const parsed = parseConfigText(`${YAML_DOC}---\n${YAML_DOC}`);
    expect(parsed.problems).toEqual([{ path: '', message: 'expected one document, found 2; put each configuration in its own file', severity: 'error' }]);
  });

  test('reports syntax errors with their position and no document', () => {
    const parsed = parseConfigText('kind: [a, b\n');
    expect(parsed.doc).toBeUndefined();
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]!.message).toMatch(/^yaml: line \d+, column \d+: /);
  });

  test('reports empty text', () => {
    expect(parseConfigText('# nothing here\n')).toEqual({ problems: [{ path: '', message: 'Required value: the text holds no document', severity: 'error' }] });
  });
});

describe('locating paths', () => {
  const text = `apiVersion: apiserver.config.service.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: http://a.example.com
    audiences: [x]
  claimMappings:
    username:
      claim: sub
`;

  test('splitConfigPath', () => {
    expect(splitConfigPath('jwt[1].claimMappings.username.prefix')).toEqual(['jwt', 1, 'claimMappings', 'username', 'prefix']);
    expect(splitConfigPath('')).toEqual([]);
  });

  test('finds the value at a path', () => {
    expect(locateConfigPath(text, 'jwt[0].issuer.url')).toMatchObject({ line: 5, column: 10 });
    expect(locateConfigPath(text, 'jwt[0].issuer.audiences[0]')).toMatchObject({ line: 6, column: 17 });
  });

  test('falls back to the closest existing node for a missing field', () => {
    expect(locateConfigPath(text, 'jwt[0].claimMappings.username.prefix')).toMatchObject({ line: 9, column: 7 });
  });
});
