// The resources the fuzz suite aims at: built-in kinds and a schemaless CRD, with their URL bases,
// storage prefixes and a valid object of each.

export const FUZZ_NS = 'fuzz';
export const CRD_GROUP = 'fuzz.example.com';

export interface Target {
  plural: string;
  kind: string;
  apiVersion: string;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  namespaced: boolean;
  /** Storage key prefix of the type (registry/keys.ts layout). */
  storePrefix: string;
  /** Has a protobuf message (built-in kinds). */
  protobuf: boolean;
  subresources: string[];
  make(name: string, namespace: string): Record<string, unknown>;
}

const meta = (name: string, namespace: string | undefined) => ({ name, ...(namespace ? { namespace } : {}), labels: { app: 'fuzz', tier: 'a' } });

function target(group: string, version: string, plural: string, kind: string, namespaced: boolean, subresources: string[], body: (name: string, ns: string) => Record<string, unknown>, protobuf = true): Target {
  const apiVersion = group ? `${group}/${version}` : version;
  return {
    plural,
    kind,
    apiVersion,
    base: group ? `/apis/${group}/${version}` : `/api/${version}`,
    namespaced,
    storePrefix: `/registry/${group || 'core'}/${plural}/`,
    protobuf,
    subresources,
    make: (name, ns) => ({ apiVersion, kind, metadata: meta(name, namespaced ? ns : undefined), ...body(name, ns) }),
  };
}

export const TARGETS: Target[] = [
  target('', 'v1', 'configmaps', 'ConfigMap', true, [], () => ({ data: { a: 'b', 'x.yaml': 'k: v' } })),
  target('', 'v1', 'secrets', 'Secret', true, [], () => ({ type: 'Opaque', data: { a: 'YWJj' } })),
  target('', 'v1', 'pods', 'Pod', true, ['status', 'eviction', 'binding', 'log'], () => ({ spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] } })),
  target('', 'v1', 'namespaces', 'Namespace', false, ['status', 'finalize'], () => ({})),
  target('apps', 'v1', 'deployments', 'Deployment', true, ['status', 'scale'], () => ({
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'fuzz' } },
      template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  })),
  target(CRD_GROUP, 'v1', 'widgets', 'Widget', true, [], () => ({ spec: { size: 3, nested: { list: [1, 'two', { three: true }] } } }), false),
];

/** Services allocate cluster IPs from a finite range; they are fuzzed, but rarely. */
export const SERVICES = target('', 'v1', 'services', 'Service', true, ['status'], () => ({ spec: { ports: [{ port: 80, targetPort: 8080 }] } }));

export function collectionPath(t: Target, ns: string): string {
  return t.namespaced ? `${t.base}/namespaces/${ns}/${t.plural}` : `${t.base}/${t.plural}`;
}
