import { describe, expect, test } from 'vitest';
import { REGISTERED_ADMISSION_PLUGINS } from './admission-plugins.js';
import { API_VERSION, edit, errorsOf, VALID_ADMISSION, VALID_TRACING, warningsOf } from './test-support.js';
import { validateAdmissionConfiguration, validateConfigDocument, validateTracingConfiguration } from './validate.js';

describe('AdmissionConfiguration', () => {
  test('the reference document is valid', () => {
    expect(validateConfigDocument(VALID_ADMISSION)).toEqual([]);
    expect(validateAdmissionConfiguration(VALID_ADMISSION)).toEqual([]);
  });

  test('plugins may be omitted', () => {
    expect(validateConfigDocument({ apiVersion: API_VERSION, kind: 'AdmissionConfiguration' })).toEqual([]);
  });

  test('the registered set holds the upstream default plugins', () => {
    for (const name of ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultStorageClass', 'ResourceQuota', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'PodSecurity', 'EventRateLimit', 'AlwaysPullImages', 'NodeRestriction']) {
      expect(REGISTERED_ADMISSION_PLUGINS).toContain(name);
    }
  });

  test('name is required', () => {
    expect(errorsOf(validateConfigDocument(edit(VALID_ADMISSION, (d) => delete d.plugins[0].name)))).toEqual([{ path: 'plugins[0].name', message: 'Required value' }]);
  });

  test('name must be a registered plugin', () => {
    const errors = errorsOf(validateConfigDocument(edit(VALID_ADMISSION, (d) => (d.plugins[0].name = 'NoSuchPlugin'))));
    expect(errors).toEqual([
      { path: 'plugins[0].name', message: `Unsupported value: "NoSuchPlugin": supported values: ${REGISTERED_ADMISSION_PLUGINS.map((n) => `"${n}"`).join(', ')}` },
    ]);
  });

  test('a plugin is configured once', () => {
    const doc = edit(VALID_ADMISSION, (d) => d.plugins.push({ name: 'PodSecurity', path: '/x.yaml' }));
    expect(errorsOf(validateConfigDocument(doc))).toEqual([{ path: 'plugins[2].name', message: 'Duplicate value: "PodSecurity"' }]);
  });

  test('configuration must be an object', () => {
    const doc = edit(VALID_ADMISSION, (d) => (d.plugins[1].configuration = 'limits: 5'));
    expect(errorsOf(validateConfigDocument(doc))).toEqual([{ path: 'plugins[1].configuration', message: 'Invalid value: "limits: 5": must be an object' }]);
  });

  test('path next to configuration is ignored, with a warning', () => {
    const problems = validateConfigDocument(edit(VALID_ADMISSION, (d) => (d.plugins[1].path = '/etc/podsecurity.yaml')));
    expect(errorsOf(problems)).toEqual([]);
    expect(warningsOf(problems)).toEqual([{ path: 'plugins[1].path', message: 'is ignored because configuration is set' }]);
  });
});

describe('TracingConfiguration', () => {
  test('the reference document is valid, and so is one with no settings', () => {
    expect(validateConfigDocument(VALID_TRACING)).toEqual([]);
    expect(validateTracingConfiguration({ apiVersion: API_VERSION, kind: 'TracingConfiguration' })).toEqual([]);
  });

  test.each([0, 1, 1_000_000])('samplingRatePerMillion %d is accepted', (rate) => {
    expect(validateConfigDocument(edit(VALID_TRACING, (d) => (d.samplingRatePerMillion = rate)))).toEqual([]);
  });

  test.each([-1, 1_000_001])('samplingRatePerMillion %d is out of range', (rate) => {
    expect(errorsOf(validateConfigDocument(edit(VALID_TRACING, (d) => (d.samplingRatePerMillion = rate))))).toEqual([
      { path: 'samplingRatePerMillion', message: `Invalid value: ${rate}: must be between 0 and 1000000, inclusive` },
    ]);
  });

  test('samplingRatePerMillion must be an integer', () => {
    expect(errorsOf(validateConfigDocument(edit(VALID_TRACING, (d) => (d.samplingRatePerMillion = '100'))))).toEqual([
      { path: 'samplingRatePerMillion', message: 'Invalid value: "100": must be an integer' },
    ]);
  });

  test.each(['localhost:4317', 'otel-collector.monitoring.svc:4317', '10.0.0.7:55680', '[::1]:4317'])('endpoint %s is accepted', (endpoint) => {
    expect(validateConfigDocument(edit(VALID_TRACING, (d) => (d.endpoint = endpoint)))).toEqual([]);
  });

  test.each(['http://localhost:4317', 'localhost', 'collector:70000', 'collector:0', 'a b:1'])('endpoint %s is not host:port', (endpoint) => {
    expect(errorsOf(validateConfigDocument(edit(VALID_TRACING, (d) => (d.endpoint = endpoint))))).toEqual([
      { path: 'endpoint', message: `Invalid value: "${endpoint}": must be host:port, such as "localhost:4317"` },
    ]);
  });
});
