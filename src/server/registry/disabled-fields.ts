// Fields of 1.33 features that are off by default upstream (alpha, or beta and off): the built-in schemas are
// 1.33's, so they decode, but upstream's strategies drop them on create, and on update unless the stored object
// already uses them (pkg/api/pod dropDisabledPodFields, pkg/api/persistentvolumeclaim, HPA dropDisabledFields).
// There are no gates to turn them on here, so they are dropped as upstream drops them by default.
import type { KubeObject } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function at(o: unknown, path: string[]): Obj | undefined {
  let cur: unknown = o;
  for (const p of path) cur = isObj(cur) ? cur[p] : undefined;
  return isObj(cur) ? cur : undefined;
}

const TEMPLATE = ['spec', 'template', 'spec'];
/** Where each kind carries pod specs (group/kind). */
const POD_SPECS: Record<string, string[][]> = {
  '/Pod': [['spec']],
  '/PodTemplate': [['template', 'spec']],
  '/ReplicationController': [TEMPLATE],
  'apps/Deployment': [TEMPLATE],
  'apps/ReplicaSet': [TEMPLATE],
  'apps/StatefulSet': [TEMPLATE],
  'apps/DaemonSet': [TEMPLATE],
  'batch/Job': [TEMPLATE],
  'batch/CronJob': [['spec', 'jobTemplate', 'spec', 'template', 'spec']],
};

const containersOf = (spec: Obj | undefined) => [...list(spec?.containers), ...list(spec?.initContainers), ...list(spec?.ephemeralContainers)];

/** One feature's use in a pod spec, and how to drop it. */
interface PodFeature {
  uses(spec: Obj): boolean;
  drop(spec: Obj): void;
}

const POD_FEATURES: PodFeature[] = [
  // PodLevelResources (alpha 1.32)
  { uses: (s) => s.resources !== undefined, drop: (s) => void delete s.resources },
  // ImageVolume (beta 1.33, off by default)
  { uses: (s) => list(s.volumes).some((v) => v.image !== undefined), drop: (s) => list(s.volumes).forEach((v) => delete v.image) },
  // ContainerStopSignals (alpha 1.33)
  {
    uses: (s) => containersOf(s).some((c) => isObj(c.lifecycle) && c.lifecycle.stopSignal !== undefined),
    drop: (s) => containersOf(s).forEach((c) => isObj(c.lifecycle) && delete c.lifecycle.stopSignal),
  },
  // ClusterTrustBundleProjection (beta 1.33, off by default)
  {
    uses: (s) => list(s.volumes).some((v) => list(at(v, ['projected'])?.sources).some((p) => p.clusterTrustBundle !== undefined)),
    drop: (s) => list(s.volumes).forEach((v) => list(at(v, ['projected'])?.sources).forEach((p) => delete p.clusterTrustBundle)),
  },
];

function dropFromPodSpec(spec: Obj | undefined, old: Obj | undefined): void {
  if (!spec) return;
  for (const f of POD_FEATURES) if (f.uses(spec) && !(old && f.uses(old))) f.drop(spec);
}

function dropAttributesClass(spec: Obj | undefined, old: Obj | undefined): void {
  // VolumeAttributesClass (beta 1.31, off by default)
  if (spec && spec.volumeAttributesClassName !== undefined && old?.volumeAttributesClassName === undefined) delete spec.volumeAttributesClassName;
}

/** Drops the fields of off-by-default features from `obj` (a create, or an update of `old`). */
export function dropDisabledFields(type: { group: string; kind: string }, obj: KubeObject, old?: KubeObject): void {
  const key = `${type.group}/${type.kind}`;
  for (const path of POD_SPECS[key] ?? []) dropFromPodSpec(at(obj, path), old ? at(old, path) : undefined);
  if (key === '/PersistentVolumeClaim' || key === '/PersistentVolume') dropAttributesClass(at(obj, ['spec']), old ? at(old, ['spec']) : undefined);
  if (key === 'apps/StatefulSet') {
    const olds = list(at(old, ['spec'])?.volumeClaimTemplates);
    list(at(obj, ['spec'])?.volumeClaimTemplates).forEach((t, i) => dropAttributesClass(at(t, ['spec']), at(olds[i], ['spec'])));
  }
  if (key === 'autoscaling/HorizontalPodAutoscaler') {
    // HPAConfigurableTolerance (alpha 1.33)
    for (const dir of ['scaleUp', 'scaleDown']) {
      const rules = at(obj, ['spec', 'behavior', dir]);
      if (rules && rules.tolerance !== undefined && at(old, ['spec', 'behavior', dir])?.tolerance === undefined) delete rules.tolerance;
    }
  }
}
