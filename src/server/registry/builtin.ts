// The built-in resource-type table: every kind served without a CRD.
import { authenticationTypes } from './builtin-authentication.js';
import { authorizationTypes } from './builtin-authorization.js';
import { clusterTypes } from './builtin-cluster.js';
import { coreTypes } from './builtin-core.js';
import { platformTypes } from './builtin-platform.js';
import { workloadTypes } from './builtin-workloads.js';
import { admissionTypes } from './builtin-admission.js';
import { certificateTypes } from './builtin-certificates.js';
import { apiRegistrationTypes } from './builtin-apiregistration.js';
import { flowControlTypes } from './builtin-flowcontrol.js';
import { serviceCIDRTypes } from './builtin-servicecidr.js';
import { canonicalGroup } from './names.js';
import type { ResourceType } from './types.js';

export const builtinResourceTypes: ResourceType[] = [...coreTypes, ...workloadTypes, ...clusterTypes, ...platformTypes, ...authenticationTypes, ...authorizationTypes, ...admissionTypes, ...certificateTypes, ...apiRegistrationTypes, ...flowControlTypes, ...serviceCIDRTypes];

/** A built-in type by group (either spelling), version and plural. */
export function findBuiltinType(group: string, version: string, plural: string): ResourceType | undefined {
  const g = canonicalGroup(group);
  return builtinResourceTypes.find((t) => t.group === g && t.version === version && t.plural === plural);
}
