// Priority admission (plugin/pkg/admission/priority upstream): a new pod gets the value and preemption policy of
// the PriorityClass it names — or of the globalDefault class (the lowest-valued one if several), or 0 and
// PreemptLowerPriority without one — and is refused when the class does not exist or when it carries a priority or
// preemption policy that differs from the class's. Updates keep what creation set. A PriorityClass may become
// globalDefault only while no other one is.
import { errors } from '../../api/status.js';
import { ensure, obj, str, type Obj } from '../registry/builtin-helpers.js';
import { collectionPrefix } from '../registry/keys.js';
import { canonicalGroup } from '../registry/names.js';
import { readAllStored } from '../registry/stored-objects.js';
import { configCache } from './config-cache.js';
import type { KubeObject } from '../registry/types.js';
import type { RevisionedStore } from '../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../http/admission.js';

const PRIORITY_CLASSES = { group: canonicalGroup('scheduling.k8s.io'), plural: 'priorityclasses', scope: 'Cluster' as const };
/** scheduling.DefaultPriorityWhenNoDefaultClassExists */
const DEFAULT_PRIORITY = 0;

function priorityClasses(store: RevisionedStore): Promise<KubeObject[]> {
  return readAllStored(store, collectionPrefix(PRIORITY_CLASSES), 1000);
}

/** The globalDefault class; with several (a race), the one with the lowest value, as upstream. */
function defaultClass(classes: KubeObject[]): Obj | undefined {
  let best: Obj | undefined;
  for (const c of classes as Obj[]) if (c.globalDefault === true && (best === undefined || num(best.value) > num(c.value))) best = c;
  return best;
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** admission.NewForbidden: the object's name, or its generateName. */
function forbidden(a: AdmissionAttributes, message: string) {
  const meta = obj(a.object?.metadata);
  const name = a.name || str(meta.name) || str(meta.generateName);
  return errors.forbidden({ group: a.type.group, resource: a.type.plural, name }, message);
}

const isPod = (a: AdmissionAttributes) => a.type.group === '' && a.type.plural === 'pods' && a.subresource === '' && !!a.object;
const isPriorityClass = (a: AdmissionAttributes) => a.type.group === PRIORITY_CLASSES.group && a.type.plural === 'priorityclasses' && a.subresource === '' && !!a.object;

export function priority(deps: { store: RevisionedStore }): AdmissionPlugin {
  return {
    name: 'Priority',
    async admit(a) {
      if (!isPod(a)) return;
      const spec = ensure(a.object as Obj, 'spec');
      if (a.operation === 'UPDATE') {
        // set at creation: an update that leaves them out keeps them
        const old = obj(a.oldObject?.spec);
        if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (a.operation !== 'CREATE') return;
      // from the watch-kept cache, as upstream's plugin reads its PriorityClass lister: no store list per pod create
      const classes = (await configCache(deps.store, collectionPrefix(PRIORITY_CLASSES)).list()) as KubeObject[];
      let value: number;
      let policy: string | undefined;
      const named = str(spec.priorityClassName);
      if (!named) {
        const d = defaultClass(classes);
        if (d) {
          spec.priorityClassName = str(obj(d.metadata).name);
          value = num(d.value);
          policy = typeof d.preemptionPolicy === 'string' ? d.preemptionPolicy : undefined;
        } else {
          value = DEFAULT_PRIORITY;
          policy = 'PreemptLowerPriority';
        }
      } else {
        const pc = (classes as Obj[]).find((c) => obj(c.metadata).name === named);
        if (!pc) throw forbidden(a, `no PriorityClass with name ${named} was found`);
        value = num(pc.value);
        policy = typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined;
      }
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value)
        throw forbidden(a, `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
      spec.priority = value;
      if (policy !== undefined) {
        if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy)
          throw forbidden(a, `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
        spec.preemptionPolicy = policy;
      }
    },
    async validate(a) {
      if (!isPriorityClass(a) || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
      if ((a.object as Obj).globalDefault !== true) return;
      const d = defaultClass(await priorityClasses(deps.store));
      if (!d) return;
      const dname = str(obj(d.metadata).name);
      if (a.operation === 'CREATE' || dname !== str(a.object!.metadata?.name))
        throw forbidden(a, `PriorityClass ${dname} is already marked as default. Only one default can exist`);
    },
  };
}
