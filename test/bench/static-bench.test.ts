// The bench page's ?fetch= parameter: only an API path of the page's own origin is ever fetched.
import { describe, expect, it } from 'vitest';
import { benchFetchPath } from '../../bench/static/StaticBench.js';

describe('benchFetchPath', () => {
  it('takes API paths', () => {
    expect(benchFetchPath('/api/v1/namespaces/bench/configmaps')).toBe('/api/v1/namespaces/bench/configmaps');
    expect(benchFetchPath('/apis/apps/v1/deployments')).toBe('/apis/apps/v1/deployments');
  });
  it('refuses other origins, other paths and tricks', () => {
    for (const bad of [null, '', 'https://evil.test/api/v1', '//evil.test/api/v1', '/api//evil.test', '/api\\\\evil', '/metrics', '/apix/v1', 'api/v1', '/api/', 'javascript:alert(1)', '/%2f%2fevil/api/v1'])
      expect(benchFetchPath(bad)).toBeNull();
  });
});
