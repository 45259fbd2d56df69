// Built-in pod admission plugins: ServiceAccount (token volume projection), DefaultTolerationSeconds,
// AlwaysPullImages (plugin/pkg/admission/* upstream).
import { randomBytes } from 'node:crypto';
import { arr, ensure, obj, str, type Obj } from '../registry/builtin-helpers.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';

const isPod = (a: AdmissionAttributes) => a.type.group === '' && a.type.plural === 'pods' && a.subresource === '' && !!a.object;

function containersOf(spec: Obj): Obj[] {
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)].filter((c) => c && typeof c === 'object') as Obj[];
}

/** upstream DefaultTolerationSeconds: 300s for not-ready and unreachable NoExecute taints unless tolerated already. */
export const DEFAULT_TOLERATION_SECONDS = 300;

export function defaultTolerationSeconds(seconds = DEFAULT_TOLERATION_SECONDS): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    admit(a) {
      if (!isPod(a) || a.operation !== 'CREATE') return;
      const spec = ensure(a.object as Obj, 'spec');
      const tolerations = arr(spec.tolerations).map(obj);
      const tolerated = (key: string) => tolerations.some((t) => (t.effect === 'NoExecute' || !t.effect) && (t.key === key || (!t.key && t.operator === 'Exists')));
      const add: Obj[] = [];
      for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'])
        if (!tolerated(key)) add.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
      if (add.length) spec.tolerations = [...arr(spec.tolerations), ...add];
    },
  };
}

export function alwaysPullImages(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    admit(a) {
      if (!isPod(a) || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
      for (const c of containersOf(obj(a.object!.spec))) c.imagePullPolicy = 'Always';
    },
    validate(a) {
      if (!isPod(a) || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
      // the mutation is also enforced: a later plugin may not turn it back
      for (const c of containersOf(obj(a.object!.spec))) c.imagePullPolicy = 'Always';
    },
  };
}

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** upstream: the projected token lives an hour plus 7s (so the kubelet refreshes it before expiry). */
const TOKEN_EXPIRATION_SECONDS = 3607;

/** ServiceAccount: default service account (the pod strategy names it) and the kube-api-access token volume. */
export function serviceAccount(): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    admit(a) {
      if (!isPod(a) || a.operation !== 'CREATE') return;
      const spec = ensure(a.object as Obj, 'spec');
      if (!str(spec.serviceAccountName)) spec.serviceAccountName = str(spec.serviceAccount) || 'default';
      if (spec.automountServiceAccountToken === false) return;
      const containers = containersOf(spec);
      if (containers.some((c) => arr(c.volumeMounts).map(obj).some((m) => m.mountPath === TOKEN_MOUNT_PATH))) return;
      const name = `kube-api-access-${randomSuffix()}`;
      spec.volumes = [
        ...arr(spec.volumes),
        {
          name,
          projected: {
            defaultMode: 0o644,
            sources: [
              { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ];
      for (const c of [...arr(spec.initContainers), ...arr(spec.containers)].map(obj))
        c.volumeMounts = [...arr(c.volumeMounts), { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    },
  };
}

const ALNUM = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(): string {
  return [...randomBytes(5)].map((b) => ALNUM[b % ALNUM.length]).join('');
}
