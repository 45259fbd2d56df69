// What one object refers to, by kind: the objects a Pod uses (ConfigMaps, Secrets, PVCs, its
// ServiceAccount), a binding's role and subjects, an EndpointSlice's Pods. Pure functions over objects.
import type { KubeObject } from '../../client/index.js';

export interface Ref {
  /** The kind referred to (resource resolution is the caller's). */
  kind: 'ConfigMap' | 'Secret' | 'PersistentVolumeClaim' | 'ServiceAccount' | 'Pod' | 'Role' | 'ClusterRole';
  name: string;
  namespace?: string;
  /** How: "volume data", "env FOO", "envFrom", "imagePullSecrets"… */
  via: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The ConfigMaps, Secrets, PVCs and ServiceAccount a Pod (or pod template spec) uses. */
export function podSpecRefs(spec: unknown, namespace: string | undefined): Ref[] {
  const s = obj(spec);
  const out: Ref[] = [];
  const add = (kind: Ref['kind'], name: string | undefined, via: string) => {
    if (name && !out.some((r) => r.kind === kind && r.name === name && r.via === via)) out.push({ kind, name, namespace, via });
  };
  add('ServiceAccount', str(s.serviceAccountName) ?? (s.serviceAccountName === undefined && s.containers ? 'default' : undefined), 'serviceAccountName');
  for (const p of arr(s.imagePullSecrets)) add('Secret', str(p.name), 'imagePullSecrets');
  for (const v of arr(s.volumes)) {
    const vn = str(v.name) ?? '';
    add('ConfigMap', str(obj(v.configMap).name), `volume ${vn}`);
    add('Secret', str(obj(v.secret).secretName), `volume ${vn}`);
    add('PersistentVolumeClaim', str(obj(v.persistentVolumeClaim).claimName), `volume ${vn}`);
    for (const src of arr(obj(v.projected).sources)) {
      add('ConfigMap', str(obj(src.configMap).name), `volume ${vn}`);
      add('Secret', str(obj(src.secret).name), `volume ${vn}`);
    }
  }
  for (const c of [...arr(s.initContainers), ...arr(s.containers), ...arr(s.ephemeralContainers)]) {
    for (const e of arr(c.env)) {
      const from = obj(e.valueFrom);
      add('ConfigMap', str(obj(from.configMapKeyRef).name), `env ${str(e.name) ?? ''}`);
      add('Secret', str(obj(from.secretKeyRef).name), `env ${str(e.name) ?? ''}`);
    }
    for (const e of arr(c.envFrom)) {
      add('ConfigMap', str(obj(e.configMapRef).name), 'envFrom');
      add('Secret', str(obj(e.secretRef).name), 'envFrom');
    }
  }
  return out;
}

/** A RoleBinding's or ClusterRoleBinding's subjects, matched against a subject. */
export function bindsSubject(binding: KubeObject, subject: { kind: string; name: string; namespace?: string }): boolean {
  return arr((binding as Obj).subjects).some((s) => {
    if (s.kind !== subject.kind || s.name !== subject.name) return false;
    // ServiceAccount subjects name their namespace (a RoleBinding's own when left out)
    if (subject.kind === 'ServiceAccount') return (str(s.namespace) ?? binding.metadata?.namespace) === subject.namespace;
    return true;
  });
}

/** The role a binding grants. */
export function roleOf(binding: KubeObject): Ref | undefined {
  const r = obj((binding as Obj).roleRef);
  const name = str(r.name);
  if (!name || (r.kind !== 'Role' && r.kind !== 'ClusterRole')) return undefined;
  return { kind: r.kind, name, namespace: r.kind === 'Role' ? binding.metadata?.namespace : undefined, via: binding.kind ?? 'binding' };
}

/** The Pods an EndpointSlice's endpoints point at. */
export function endpointSlicePods(slice: KubeObject): Ref[] {
  return arr((slice as Obj).endpoints)
    .map((e) => obj(e.targetRef))
    .filter((t) => t.kind === 'Pod' && str(t.name))
    .map((t) => ({ kind: 'Pod' as const, name: str(t.name)!, namespace: str(t.namespace) ?? slice.metadata?.namespace, via: 'endpoint' }));
}

/** The Services an Ingress sends to (rules and default backend). */
export function ingressServices(ingress: KubeObject): string[] {
  const s = obj((ingress as Obj).spec);
  const names = new Set<string>();
  const add = (b: unknown) => {
    const n = str(obj(obj(b).service).name) ?? str(obj(b).serviceName);
    if (n) names.add(n);
  };
  add(s.defaultBackend);
  add(s.backend);
  for (const r of arr(s.rules)) for (const p of arr(obj(r.http).paths)) add(p.backend);
  return [...names];
}

/** A label selector map matches a set of labels (a Service's selector: every pair present; empty selects nothing). */
export function selectorMatches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  const pairs = Object.entries(selector ?? {});
  return pairs.length > 0 && pairs.every(([k, v]) => labels?.[k] === v);
}
