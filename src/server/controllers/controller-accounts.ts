// The controllers' ServiceAccounts in kube-system: with --use-service-account-credentials upstream's
// kube-controller-manager creates each controller's account (as system:kube-controller-manager, whose role grants
// create serviceaccounts) before starting it, and the bootstrap binding system:controller:<name> grants it its role.
import type { KubeObject } from '../registry/types.js';
import { identityContext } from '../registry/pipeline/context.js';
import { typeForResource, type ControllerDeps } from './controller-support.js';
import { authorizeAs, COMPONENTS, CONTROLLER_SA_NAMESPACE, CONTROLLER_SERVICE_ACCOUNTS, userOf } from './identities.js';
import { ensureCreated } from './internal-writer.js';
import { controllerEnabled, KNOWN_CONTROLLERS } from './cluster.js';

/**
 * The accounts of the controllers --controllers enables (`controllers`), and of the always-running helpers
 * (service accounts, root CA, ServiceCIDRs, role aggregation, pod GC) when any runs: a bare API server
 * (`--controllers=`) gets none, as envtest has no controller manager.
 */
export async function ensureControllerServiceAccounts(deps: ControllerDeps, signal: AbortSignal, controllers: string[]): Promise<void> {
  if (deps.useServiceAccountCredentials === false) return;
  const names = Object.entries(CONTROLLER_SERVICE_ACCOUNTS)
    .filter(([controller]) => (KNOWN_CONTROLLERS.has(controller) ? controllerEnabled(controllers, controller) : [...KNOWN_CONTROLLERS].some((c) => controllerEnabled(controllers, c))))
    .map(([, sa]) => sa);
  if (names.length === 0) return;
  const sa = typeForResource(deps.types, '', 'serviceaccounts');
  if (!sa) return;
  const user = userOf(COMPONENTS.controllerManager);
  const ctx = identityContext(user, COMPONENTS.controllerManager.manager, authorizeAs(deps.authorizer, user), signal);
  for (const name of new Set(names)) {
    if (signal.aborted) return;
    const obj = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: CONTROLLER_SA_NAMESPACE } } as KubeObject;
    await ensureCreated(deps, sa, obj, ctx, signal);
  }
}
