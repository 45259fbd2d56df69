// Demo data for a fresh store: a few namespaces with workloads, services, config and a custom resource,
// created through the server's own API so every object is defaulted and validated like any other.

type Obj = Record<string, unknown>;

const ns = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });

function deployment(namespace: string, name: string, image: string, replicas: number, podAnnotations?: Record<string, string>): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(podAnnotations ? { annotations: podAnnotations } : {}) },
        spec: { containers: [{ name, image, ports: [{ containerPort: 8080, name: 'http' }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

function pod(namespace: string, name: string, app: string, image: string, node: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app } },
    spec: { nodeName: node, containers: [{ name: app, image, ports: [{ containerPort: 8080 }] }] },
  };
}

function service(namespace: string, name: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { app: name } },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

const crontabCRD: Obj = {
  apiVersion: 'apiextensions.service.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['cronSpec'],
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\S+\\s+){4}\\S+$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10 },
                },
              },
              status: { type: 'object', properties: { lastScheduleTime: { type: 'string', format: 'date-time' } } },
            },
          },
        },
      },
    ],
  },
};

/**
 * Seeds demo objects through the API at `baseUrl` unless they were seeded before (the system namespaces always
 * exist). In a living cluster (`living`: controllers and simulated nodes run) the Deployments make their own pods,
 * and one of them crash-loops (sim.periscope.dev/fail) so warnings have something to show; otherwise pods are
 * written by hand. With authentication configured the seeding requests carry the local admin token.
 */
export async function seedDemoData(baseUrl: string, log: (l: string) => void, opts: { adminToken?: string; living?: boolean } = {}): Promise<void> {
  const living = opts.living ?? false;
  const auth: Record<string, string> = opts.adminToken ? { Authorization: `Bearer ${opts.adminToken}` } : {};
  if ((await fetch(`${baseUrl}/api/v1/namespaces/shop`, { headers: auth })).status !== 404) return;
  const post = async (path: string, body: Obj) => {
    const r = await fetch(baseUrl + path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, body: JSON.stringify(body) });
    if (!r.ok && r.status !== 409) throw new Error(`demo data: POST ${path}: ${r.status} ${await r.text()}`);
    return r;
  };
  for (const n of [ns('shop', { team: 'commerce' }), ns('monitoring', { team: 'platform' })]) await post('/api/v1/namespaces', n);
  for (const name of living ? [] : ['node-a', 'node-b'])
    await post('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'node-role.kubernetes.io/worker': '' } },
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'demo node', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
        nodeInfo: { kubeletVersion: 'v1.33.0', architecture: 'amd64', operatingSystem: 'linux' },
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      },
    });
  const apps: [string, string, string, number][] = [
    ['shop', 'frontend', 'nginx:1.27', 2],
    ['shop', 'cart', 'redis:7', 1],
    ['shop', 'checkout', 'example/checkout:2.1', 3],
    ['monitoring', 'prometheus', 'prom/prometheus:v2.54.0', 1],
  ];
  for (const [n, name, image, replicas] of apps) {
    await post(`/apis/apps/v1/namespaces/${n}/deployments`, deployment(n, name, image, replicas, living && name === 'checkout' ? { 'sim.periscope.dev/fail': 'crash' } : undefined));
    await post(`/api/v1/namespaces/${n}/services`, service(n, name));
    if (!living) for (let i = 0; i < replicas; i++) await post(`/api/v1/namespaces/${n}/pods`, pod(n, `${name}-${i}`, name, image, i % 2 ? 'node-b' : 'node-a'));
  }
  await post('/api/v1/namespaces/shop/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'frontend-config', namespace: 'shop' },
    data: { 'feature.flags': 'checkout=v2\nsearch=on', theme: 'dark' },
  });
  await post('/api/v1/namespaces/shop/secrets', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'payment-keys', namespace: 'shop' },
    type: 'Opaque',
    stringData: undefined,
    data: { apiKey: Buffer.from('demo-not-a-secret').toString('base64') },
  });
  await post('/apis/apiextensions.service.io/v1/customresourcedefinitions', crontabCRD);
  // the CRD is served once the controller registers it
  for (let i = 0; i < 50; i++) {
    const r = await fetch(`${baseUrl}/apis/stable.example.com/v1/namespaces/shop/crontabs`, { headers: auth });
    if (r.ok) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  for (const [name, cronSpec] of [
    ['nightly-report', '0 2 * * *'],
    ['cache-warmup', '*/15 * * * *'],
  ])
    await post('/apis/stable.example.com/v1/namespaces/shop/crontabs', {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name, namespace: 'shop' },
      spec: { cronSpec, image: 'example/cron:1.0', replicas: 1 },
    });
  log('demo data: seeded namespaces shop, monitoring');
}
