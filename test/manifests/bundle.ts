// A realistic application bundle, as public Helm charts render them (ingress-nginx, metrics-server, cert-manager,
// a CSI driver, a typical web app): every kind the real-manifest suite applies, in upstream spellings.
export function bundle(ns: string): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
  namespace: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: ${ns}
data:
  LOG_LEVEL: info
---
apiVersion: v1
kind: Secret
metadata:
  name: web-secret
  namespace: ${ns}
type: Opaque
data:
  password: aHVudGVyMg==
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: ${ns}
spec:
  hard:
    requests.cpu: "4"
    requests.memory: 8Gi
    limits.cpu: "8"
    pods: "20"
---
apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: ${ns}
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
      memory: 128Mi
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: web-reader
  namespace: ${ns}
rules:
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: web-reader
  namespace: ${ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: web-reader
subjects:
- kind: ServiceAccount
  name: web
  namespace: ${ns}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${ns}-metrics-reader
rules:
- apiGroups: ["metrics.k8s.io"]
  resources: ["pods", "nodes"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${ns}-metrics-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${ns}-metrics-reader
subjects:
- kind: ServiceAccount
  name: web
  namespace: ${ns}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${ns}
  labels:
    app.kubernetes.io/name: web
spec:
  selector:
    app.kubernetes.io/name: web
  ports:
  - name: http
    port: 80
    targetPort: http
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: web
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web
    spec:
      serviceAccountName: web
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - name: http
          containerPort: 8080
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        envFrom:
        - configMapRef:
            name: web-config
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            memory: 256Mi
        readinessProbe:
          httpGet:
            path: /healthz
            port: http
        volumeMounts:
        - name: tmp
          mountPath: /tmp
      volumes:
      - name: tmp
        emptyDir: {}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: ${ns}
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: db
        image: postgres:16
        volumeMounts:
        - name: data
          mountPath: /var/lib/postgresql/data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      storageClassName: ${ns}-fast
      resources:
        requests:
          storage: 1Gi
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
  namespace: ${ns}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: backup
            image: busybox:1.36
            command: ["sh", "-c", "echo backup"]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: ${ns}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: web
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: ${ns}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: ${ns}-nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: ${ns}
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  ingressClassName: ${ns}-nginx
  tls:
  - hosts: ["web.example.com"]
    secretName: web-tls
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              name: http
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web-allow-ingress
  namespace: ${ns}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: web
  policyTypes: ["Ingress"]
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: ingress-nginx
    ports:
    - port: 8080
      protocol: TCP
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: ${ns}-fast
provisioner: ebs.csi.aws.com
parameters:
  type: gp3
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: ${ns}.csi.example.com
spec:
  attachRequired: true
  podInfoOnMount: false
  volumeLifecycleModes: ["Persistent"]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: ${ns}-attach
spec:
  attacher: ${ns}.csi.example.com
  nodeName: node-a
  source:
    persistentVolumeName: pv-1
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ${ns}-high
value: 100000
globalDefault: false
description: critical application pods
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: external-db
  namespace: ${ns}
  labels:
    kubernetes.io/service-name: external-db
addressType: IPv4
ports:
- name: pg
  port: 5432
  protocol: TCP
endpoints:
- addresses: ["10.1.2.3"]
  conditions:
    ready: true
---
apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web-deployed
  namespace: ${ns}
eventTime: "2025-01-01T00:00:00.000000Z"
reportingController: example.com/deployer
reportingInstance: deployer-1
action: Deploy
reason: Deployed
type: Normal
note: web deployed
regarding:
  apiVersion: apps/v1
  kind: Deployment
  name: web
  namespace: ${ns}
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
  namespace: ${ns}
spec:
  replicas: 1
  selector:
    app: legacy
  template:
    metadata:
      labels:
        app: legacy
    spec:
      containers:
      - name: legacy
        image: nginx:1.27
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: job-template
  namespace: ${ns}
template:
  metadata:
    labels:
      app: job
  spec:
    containers:
    - name: job
      image: busybox:1.36
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: db-rev-1
  namespace: ${ns}
revision: 1
data:
  spec:
    template:
      metadata:
        labels:
          app: db
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: ${ns}-gvisor
handler: runsc
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: leader
  namespace: ${ns}
spec:
  holderIdentity: web-0
  leaseDurationSeconds: 15
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${ns}-webhook
webhooks:
- name: validate.${ns}.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  clientConfig:
    service:
      name: web
      namespace: ${ns}
      path: /validate
  # as charts do: only objects that opt in are sent (the bundle's webhook server never runs here)
  objectSelector:
    matchLabels:
      example.com/webhook: enabled
  failurePolicy: Ignore
  rules:
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["deployments"]
    scope: "*"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${ns}-mutator
webhooks:
- name: mutate.${ns}.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  clientConfig:
    service:
      name: web
      namespace: ${ns}
      path: /mutate
  # as charts do: only objects that opt in are sent (the bundle's webhook server never runs here)
  objectSelector:
    matchLabels:
      example.com/webhook: enabled
  failurePolicy: Ignore
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["pods"]
    scope: "*"
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets${ns.replace(/[^a-z0-9]/g, '')}.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets${ns.replace(/[^a-z0-9]/g, '')}
    singular: widget${ns.replace(/[^a-z0-9]/g, '')}
    kind: Widget${ns.replace(/[^a-z0-9]/g, '').toUpperCase()}
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
              size:
                type: integer
`;
}

/** Number of documents in the bundle. */
export const BUNDLE_OBJECTS = 33;
