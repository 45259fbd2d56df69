// POST pods/{name}/binding: the HTTP side (decode, kind and name checks); the binding itself is the write
// pipeline's (registry/pipeline/binding.ts).
import { errors } from '../../../api/status.js';
import { bindPod } from '../../registry/pipeline/binding.js';
import type { KubeObject } from '../../registry/types.js';
import type { AdmissionChain } from '../admission.js';
import type { RequestScope } from '../scope.js';
import { decodeObjectBody } from './decode.js';
import { negotiateFor, respondObject } from './output.js';
import { writeContext } from './write.js';

export async function handleBinding(s: RequestScope, deps: { admission: AdmissionChain }): Promise<void> {
  const n = negotiateFor(s);
  const { obj: binding } = await decodeObjectBody(s);
  binding.kind ||= 'Binding';
  binding.apiVersion ||= 'v1';
  if (binding.kind !== 'Binding' || binding.apiVersion !== 'v1') throw errors.badRequest(`the kind in the data (${binding.apiVersion}, Kind=${binding.kind}) does not match the expected kind (/v1, Kind=Binding)`);
  const meta = (binding.metadata ??= {});
  if (meta.namespace && meta.namespace !== s.info.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (meta.name && meta.name !== s.info.name) throw errors.badRequest('name in URL does not match name in Binding object');
  await bindPod({ rs: s.rs, admission: deps.admission }, writeContext(s), s.info.namespace, s.info.name, binding);
  respondObject(s, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as KubeObject, n);
}
