// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, in the shape metrics-server serves them: `nodes` and `pods`,
// get and list only, no singular name, a table of Name, cpu, memory and Window (metrics-server pkg/api/table.go).
// Nothing is stored: the REST layer computes them from the simulated kubelets' usage (sim/usage.ts) on each read.
// Served only while the server runs simulated nodes (a bare server has no kubelets to measure).
import { formatNanos, quantityNanos } from './schema/quantity.js';
import type { SchemaNode } from './schema/types.js';
import type { KubeObject, ResourceType, TableColumn } from './types.js';

type Obj = Record<string, any>;

export const METRICS_GROUP = 'metrics.service.io';
export const METRICS_VERSION = 'v1beta1';

const QUANTITY: SchemaNode = { $ref: 'io.k8s.apimachinery.pkg.api.resource.Quantity' };
const USAGE: SchemaNode = { type: 'object', additionalProperties: QUANTITY, description: 'The memory usage is the memory working set.' };
const TIMESTAMP: SchemaNode = { type: 'string', format: 'date-time', description: 'The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].' };
const WINDOW: SchemaNode = { type: 'string' };

const nodeSchema: SchemaNode = {
  type: 'object',
  description: 'NodeMetrics sets resource usage metrics of a node.',
  required: ['timestamp', 'window', 'usage'],
  properties: { timestamp: TIMESTAMP, window: WINDOW, usage: USAGE },
};

const podSchema: SchemaNode = {
  type: 'object',
  description: 'PodMetrics sets resource usage metrics of a pod.',
  required: ['timestamp', 'window', 'containers'],
  properties: {
    timestamp: TIMESTAMP,
    window: WINDOW,
    containers: {
      type: 'array',
      description: 'Metrics for all containers are collected within the same time window.',
      items: { type: 'object', required: ['name', 'usage'], properties: { name: { type: 'string' }, usage: USAGE } },
      'x-kubernetes-list-type': 'atomic',
    },
  },
};

/** Quantities add exactly in nano-units; the sum is printed as metrics-server's Quantity.String() would. */
function sumQuantity(values: unknown[], resource: string): string {
  let total = 0n;
  for (const v of values) total += quantityNanos(v) ?? 0n;
  return formatNanos(total, resource === 'memory');
}

function usageColumn(resource: 'cpu' | 'memory', values: (o: KubeObject) => unknown[]): TableColumn {
  return { name: resource, type: 'string', format: 'quantity', cell: (o) => sumQuantity(values(o), resource) };
}

const windowColumn: TableColumn = { name: 'Window', type: 'string', format: 'duration', cell: (o) => (o as Obj).window ?? '' };

const containerUsage = (resource: string) => (o: KubeObject) => (((o as Obj).containers as Obj[] | undefined) ?? []).map((c) => c?.usage?.[resource]);

function metricsType(kind: string, plural: string, scope: 'Cluster' | 'Namespaced', schema: SchemaNode, columns: TableColumn[]): ResourceType {
  return {
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: '',
    shortNames: [],
    categories: [],
    scope,
    verbs: ['get', 'list'],
    subresources: [],
    schema,
    schemaRef: `io.k8s.metrics.pkg.apis.metrics.v1beta1.${kind}`,
    columns,
    strategy: {},
    custom: false,
    served: true,
  };
}

export const metricsTypes: ResourceType[] = [
  metricsType('NodeMetrics', 'nodes', 'Cluster', nodeSchema, [
    usageColumn('cpu', (o) => [(o as Obj).usage?.cpu]),
    usageColumn('memory', (o) => [(o as Obj).usage?.memory]),
    windowColumn,
  ]),
  metricsType('PodMetrics', 'pods', 'Namespaced', podSchema, [usageColumn('cpu', containerUsage('cpu')), usageColumn('memory', containerUsage('memory')), windowColumn]),
];

export function isMetricsType(t: ResourceType): boolean {
  return t.group === METRICS_GROUP && !t.custom;
}
