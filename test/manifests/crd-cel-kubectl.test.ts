// kubectl 1.33 applies a CRD whose validation rules use the Kubernetes CEL libraries (url, format, quantity, cidr),
// then objects: a valid one is created, an invalid one is refused with upstream's message, and re-applying the
// CRD is unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { testServer } from '../helpers/server.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: endpoints.net.example.com
spec:
  group: net.example.com
  scope: Namespaced
  names: {plural: endpoints, singular: endpoint, kind: Endpoint, listKind: EndpointList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              url:
                type: string
                maxLength: 512
                x-kubernetes-validations:
                - rule: isURL(self) && url(self).getScheme() == 'https'
                  message: url must be an https URL
              service:
                type: string
                maxLength: 63
                x-kubernetes-validations:
                - rule: "!format.dns1123Label().validate(self).hasValue()"
                  messageExpression: format.dns1123Label().validate(self).value().join(', ')
              memory:
                type: string
                maxLength: 32
                x-kubernetes-validations:
                - rule: quantity(self).isLessThan(quantity('1Gi'))
                  message: memory must be below 1Gi
              allowFrom:
                type: array
                maxItems: 8
                items: {type: string, maxLength: 43}
                x-kubernetes-validations:
                - rule: self.all(c, isCIDR(c) && cidr(c).prefixLength() >= 8)
                  message: allowFrom entries must be CIDRs of /8 or narrower
`;

const endpoint = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'net.example.com/v1', kind: 'Endpoint', metadata: { name }, spec });

let server: ApiServer;
let kubeconfig: string;

beforeAll(async () => {
  server = await testServer();
  kubeconfig = kubeconfigFor(server.url);
});
afterAll(() => server.close());

describe('kubectl and CRD rules using the CEL libraries', () => {
  it('applies the CRD, creates a valid object and reports an invalid one as upstream', async () => {
    const crd = await kubectl(kubeconfig, ['apply', '-f', '-'], CRD);
    expect(crd.stderr).toBe('');
    expect(crd.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/endpoints.net.example.com created');
    const est = await kubectl(kubeconfig, ['wait', '--for=condition=Established', '--timeout=30s', 'crd/endpoints.net.example.com']);
    expect(est.code, est.stderr).toBe(0);

    const ok = await kubectl(kubeconfig, ['apply', '-f', '-'], endpoint('good', { url: 'https://api.example.com/v1', service: 'api', memory: '512Mi', allowFrom: ['10.0.0.0/8'] }));
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('endpoint.net.example.com/good created');

    const bad = await kubectl(kubeconfig, ['apply', '-f', '-'], endpoint('bad', { url: 'http://api.example.com', service: 'API', memory: '2Gi', allowFrom: ['10.0.0.0/4'] }));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('The Endpoint "bad" is invalid: ');
    for (const cause of [
      'spec.url: Invalid value: "string": url must be an https URL',
      `spec.service: Invalid value: "string": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
      'spec.memory: Invalid value: "string": memory must be below 1Gi',
      'spec.allowFrom: Invalid value: "array": allowFrom entries must be CIDRs of /8 or narrower',
    ])
      expect(bad.stderr).toContain(cause);

    const again = await kubectl(kubeconfig, ['apply', '-f', '-'], CRD);
    expect(again.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/endpoints.net.example.com unchanged');
  });
});
