// Realistic pod objects (about 2.5 KB of JSON each) for list and watch benchmarks.
import { randomUUID } from 'node:crypto';

export function benchPod(i: number, ns = 'bench'): Record<string, unknown> {
  const name = `web-${String(i).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      uid: randomUUID(),
      creationTimestamp: '2026-11-01T10:00:00Z',
      generation: 1,
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', tier: i % 3 ? 'frontend' : 'backend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-01T09:59:00Z' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c6b5', uid: '5f0c1f7e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/shop/web:2.14.3',
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          ],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
          volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [{ name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${i % 50}`,
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-01T10:00:05Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-01T10:00:05Z' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-01T10:00:00Z' },
      ],
      hostIP: '10.0.0.12',
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      startTime: '2026-11-01T10:00:00Z',
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/shop/web:2.14.3',
          imageID: 'registry.example.com/shop/web@sha256:3f1e0c0b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f',
          containerID: 'containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
          started: true,
          state: { running: { startedAt: '2026-11-01T10:00:03Z' } },
        },
      ],
      qosClass: 'Burstable',
    },
  };
}
