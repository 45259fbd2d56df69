// POST pods/{name}/binding: assigns a pod to a node, as upstream's BindingREST (pkg/registry/core/pod/storage):
// a Binding whose target is a Node; the pod must not be assigned yet nor being deleted; spec.nodeName is set,
// the binding's annotations are copied and the PodScheduled condition turns True, in one storage update.
import { errors, failure } from '../../../api/status.js';
import { nowTimestamp, type ResourceStore } from '../../registry/resource-store.js';
import type { KubeObject } from '../../registry/types.js';
import type { RequestScope } from '../scope.js';
import { decodeObjectBody, dryRunOf } from './decode.js';
import { negotiateFor, respondObject } from './output.js';

type Obj = Record<string, any>;

const RETRIES = 10;

/** Binds one pod (CAS with retries). Throws 409 when it is assigned already or being deleted, 404 when gone. */
export async function bindPod(rs: ResourceStore, namespace: string | undefined, name: string, binding: KubeObject, opts: { dryRun?: boolean; uid?: string } = {}): Promise<KubeObject> {
  const target = (binding['target'] ?? {}) as Obj;
  const node = String(target.name ?? '');
  const conflict = (msg: string) => failure(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${name}": ${msg}`, { name, group: '', kind: 'pods/binding' });
  for (let i = 0; ; i++) {
    const cur = await rs.mustRead(namespace, name);
    const pod = structuredClone(cur.obj);
    const meta = pod.metadata!;
    if (opts.uid !== undefined && meta.uid !== opts.uid) throw conflict('the UID in the precondition does not match the UID of the pod');
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
      return (await rs.update(cur.key, pod, cur, { dryRun: opts.dryRun })).obj;
    } catch (e) {
      if ((e as { code?: number }).code === 409 && i < RETRIES) continue;
      throw e;
    }
  }
}

export async function handleBinding(s: RequestScope): Promise<void> {
  const n = negotiateFor(s);
  const { obj: binding } = await decodeObjectBody(s);
  binding.kind ||= 'Binding';
  binding.apiVersion ||= 'v1';
  if (binding.kind !== 'Binding' || binding.apiVersion !== 'v1') throw errors.badRequest(`the kind in the data (${binding.apiVersion}, Kind=${binding.kind}) does not match the expected kind (/v1, Kind=Binding)`);
  const meta = (binding.metadata ??= {});
  if (meta.namespace && meta.namespace !== s.info.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (meta.name && meta.name !== s.info.name) throw errors.badRequest('name in URL does not match name in Binding object');
  const target = (binding['target'] ?? {}) as Obj;
  // upstream ValidatePodBinding: the target is a Node, named
  const errs = [];
  if (target.kind && target.kind !== 'Node') errs.push({ type: 'FieldValueNotSupported', field: 'target.kind', detail: `Unsupported value: "${target.kind}": supported values: "Node", "<empty>"` });
  if (!target.name) errs.push({ type: 'FieldValueRequired', field: 'target.name', detail: 'Required value' });
  if (errs.length) throw errors.invalid('', 'Binding', s.info.name, errs);
  await bindPod(s.rs, s.info.namespace, s.info.name, binding, { dryRun: dryRunOf(s.query), uid: meta.uid });
  respondObject(s, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as KubeObject, n);
}
