import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { extractOwned, fieldsV1Paths, formatFieldPath, parseFieldPath } from './field-paths.js';
import { fieldsInDecodingMessage, indexText, markersFor, ownersByLine } from './locate.js';

const obj = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'cart', labels: { app: 'cart', 'app.kubernetes.io/name': 'cart' }, finalizers: ['a/x', 'b/y'] },
  spec: {
    replicas: 1,
    template: {
      spec: {
        containers: [
          { name: 'cart', image: 'redis:7', ports: [{ containerPort: 8080, protocol: 'TCP' }] },
          { name: 'side', image: 'envoy' },
        ],
      },
    },
  },
};
const yamlText = stringify(obj);
const jsonText = JSON.stringify(obj, null, 2);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('parseFieldPath', () => {
  it('reads validation, apply-conflict and map-key spellings', () => {
    expect(parseFieldPath('spec.template.spec.containers[0].image')).toEqual([{ field: 'spec' }, { field: 'template' }, { field: 'spec' }, { field: 'containers' }, { index: 0 }, { field: 'image' }]);
    expect(parseFieldPath('.spec.containers[name="cart"].ports[containerPort=8080,protocol="TCP"]')).toEqual([
      { field: 'spec' },
      { field: 'containers' },
      { key: { name: 'cart' } },
      { field: 'ports' },
      { key: { containerPort: 8080, protocol: 'TCP' } },
    ]);
    expect(parseFieldPath('.metadata.finalizers[="a/x"]')).toEqual([{ field: 'metadata' }, { field: 'finalizers' }, { value: 'a/x' }]);
    expect(parseFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual([{ field: 'metadata' }, { field: 'labels' }, { field: 'app.kubernetes.io/name' }]);
    expect(formatFieldPath(parseFieldPath('.spec.containers[name="cart"].image'))).toBe('.spec.containers[name="cart"].image');
  });

  it('reads FieldsV1 sets', () => {
    const paths = fieldsV1Paths({ 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"cart"}': { '.': {}, 'f:image': {} } } } });
    expect(paths.map(formatFieldPath)).toEqual(['.metadata.labels', '.metadata.labels.app', '.spec.containers[name="cart"]', '.spec.containers[name="cart"].image']);
  });
});

describe('indexText', () => {
  for (const [label, text] of [
    ['YAML', yamlText],
    ['JSON', jsonText],
  ] as const) {
    it(`finds fields in ${label}`, () => {
      const idx = indexText(text);
      expect(idx.locate(parseFieldPath('spec.replicas'))).toMatchObject({ startLine: lineOf(text, 'replicas'), partial: false });
      expect(idx.locate(parseFieldPath('spec.template.spec.containers[1].image'))?.startLine).toBe(lineOf(text, 'envoy'));
      expect(idx.locate(parseFieldPath('.spec.template.spec.containers[name="cart"].image'))?.startLine).toBe(lineOf(text, 'redis:7'));
      expect(idx.locate(parseFieldPath('.spec.template.spec.containers[name="cart"].ports[containerPort=8080,protocol="TCP"]'))?.startLine).toBe(lineOf(text, 'containerPort') - (label === 'JSON' ? 1 : 0)); // JSON: the item's "{"
      expect(idx.locate(parseFieldPath('.metadata.finalizers[="b/y"]'))?.startLine).toBe(lineOf(text, 'b/y'));
      expect(idx.locate(parseFieldPath('metadata.labels[app.kubernetes.io/name]'))?.startLine).toBe(lineOf(text, 'app.kubernetes.io/name'));
      // a field missing from the text points at its deepest ancestor that is there
      expect(idx.locate(parseFieldPath('spec.template.spec.nodeName'))).toMatchObject({ partial: true, startLine: lineOf(text, label === 'YAML' ? '  template:' : '"template"') + 1 });
    });
  }
});

describe('markers', () => {
  it('places strict-decoding fields and validation causes on their lines', () => {
    const text = yamlText.replace('  replicas: 1\n', '  replicas: 1\n  bogus: 2\n');
    const fields = fieldsInDecodingMessage('strict decoding error: unknown field "spec.bogus", unknown field "spec.template.spec.containers[0].colour"');
    expect(fields.map((f) => f.field)).toEqual(['spec.bogus', 'spec.template.spec.containers[0].colour']);
    const { markers, unplaced } = markersFor(text, [...fields.map((f) => ({ ...f, severity: 'error' as const })), { field: 'nowhere.at.all', message: 'x', severity: 'error' }]);
    expect(markers[0]).toMatchObject({ startLine: lineOf(text, 'bogus'), message: 'unknown field "spec.bogus"' });
    expect(markers[1]!.startLine).toBe(lineOf(text, '- name: cart') + 0); // the containers[0] item: its first line
    expect(unplaced.map((u) => u.field)).toEqual(['nowhere.at.all']);
    expect(fieldsInDecodingMessage('unknown field "spec.x"')).toEqual([{ field: 'spec.x', message: 'unknown field "spec.x"' }]);
  });

  it('lists owners per line from managedFields', () => {
    const owners = ownersByLine(yamlText, [
      { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      { manager: 'node', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"side"}': { '.': {}, 'f:image': {} } } } } } } },
    ]);
    const replicas = owners.find((o) => o.line === lineOf(yamlText, 'replicas'))!;
    expect(replicas.owners.map((o) => o.manager)).toEqual(['kubectl', 'node']);
    expect(owners.find((o) => o.line === lineOf(yamlText, 'envoy'))!.owners[0]).toMatchObject({ manager: 'node', field: '.spec.template.spec.containers[name="side"].image' });
  });
});

describe('extractOwned', () => {
  it('keeps only the fields a manager owns, with list keys', () => {
    const fields = { 'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"b/y"': {} } }, 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"side"}': { 'f:image': {} } } } } } };
    expect(extractOwned(obj, fields)).toEqual({
      metadata: { labels: { app: 'cart' }, finalizers: ['b/y'] },
      spec: { template: { spec: { containers: [{ name: 'side', image: 'envoy' }] } } },
    });
  });
});
