// pods/binding: assigns a pod to a node, as upstream's BindingREST (pkg/registry/core/pod/storage): the Binding is
// admitted as a CREATE of pods/binding (kind v1 Binding), validated (ValidatePodBinding), then the pod is updated
// in one storage write (GuaranteedUpdate: spec.nodeName, the binding's annotations, condition PodScheduled True).
import { storeUpdate } from './storage.js';
import { fromCurrent } from './current.js';
import { errors, failure } from '../../../api/status.js';
import type { AdmissionChain } from '../../http/admission.js';
import { nowTimestamp, type ResourceStore } from '../resource-store.js';
import type { FieldError, KubeObject } from '../types.js';
import { authorizeWrite, type WriteContext } from './context.js';
import { admitVirtualCreate } from './virtual.js';

type Obj = Record<string, any>;

const RETRIES = 10;

/** upstream ValidatePodBinding: the target is a Node, named. */
function validateBinding(binding: KubeObject, name: string): void {
  const target = (binding['target'] ?? {}) as Obj;
  const errs: FieldError[] = [];
  if (target.kind && target.kind !== 'Node') errs.push({ type: 'FieldValueNotSupported', field: 'target.kind', detail: `Unsupported value: "${target.kind}": supported values: "Node", "<empty>"` });
  if (!target.name) errs.push({ type: 'FieldValueRequired', field: 'target.name', detail: 'Required value' });
  if (errs.length) throw errors.invalid('', 'Binding', name, errs);
}

/**
 * Binds one pod (CAS with retries) after admission of the Binding. Throws 409 when it is assigned already or
 * being deleted, 404 when gone. `uid`: the pod must still be this one (the Binding's metadata.uid).
 */
export async function bindPod(t: { rs: ResourceStore; admission: AdmissionChain }, ctx: WriteContext, namespace: string, name: string, body: KubeObject): Promise<KubeObject> {
  await authorizeWrite(ctx, t.rs.type, 'create', namespace, name, 'binding');
  const binding = await admitVirtualCreate(t.admission, ctx, { type: t.rs.type, namespace, name, subresource: 'binding', object: body, kind: { group: '', version: 'v1', kind: 'Binding' } }, (b) =>
    validateBinding(b, name),
  );
  const rs = t.rs;
  const node = String(((binding['target'] ?? {}) as Obj).name ?? '');
  const uid = binding.metadata?.uid;
  const conflict = (msg: string) => failure(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${name}": ${msg}`, { name, group: '', kind: 'pods/binding' });
  for (let i = 0; ; i++) {
    let casFailed = false;
    try {
      // from the watch cache's pod (fromCurrent): the CAS below refuses a stale one, and storage is read then
      return await fromCurrent(rs, namespace, name, ctx.dryRun, async (cur) => {
        casFailed = false;
        if (!cur) throw errors.notFound(rs.target(name));
        const pod = structuredClone(cur.obj);
        const meta = pod.metadata!;
        if (uid !== undefined && meta.uid !== uid) throw conflict('the UID in the precondition does not match the UID of the pod');
        if (meta.deletionTimestamp) throw conflict(`pod ${name} is being deleted, cannot be assigned to a host`);
        const spec = ((pod['spec'] as Obj) ??= {});
        if (spec.nodeName) throw conflict(`pod ${name} is already assigned to node "${spec.nodeName}"`);
        spec.nodeName = node;
        const ann = binding.metadata?.annotations;
        if (ann && Object.keys(ann).length) meta.annotations = { ...(meta.annotations ?? {}), ...ann };
        const status = ((pod['status'] as Obj) ??= {});
        const conds: Obj[] = status.conditions ?? [];
        const now = nowTimestamp();
        const at = conds.findIndex((c) => c.type === 'PodScheduled');
        const next = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: at >= 0 && conds[at]!.status === 'True' ? conds[at]!.lastTransitionTime : now };
        if (at >= 0) conds[at] = next;
        else conds.push(next);
        status.conditions = conds;
        try {
          return (await storeUpdate(rs, cur.key, pod, cur, { dryRun: ctx.dryRun })).obj;
        } catch (e) {
          casFailed = true;
          throw e;
        }
      });
    } catch (e) {
      // a write raced ours on the stored version: bind again from the new one
      if (casFailed && (e as { code?: number }).code === 409 && i < RETRIES) continue;
      throw e;
    }
  }
}
