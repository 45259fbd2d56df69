// Admission: mutating then validating plugins that see every write before it is stored.
import type { KubeObject, ResourceType } from '../registry/types.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  type: ResourceType;
  namespace: string;
  name: string;
  subresource: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  user: string;
}

export interface AdmissionPlugin {
  name: string;
  /** Mutating phase: may change attrs.object. Throws a StatusError to reject. */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  /** Validating phase: must not change anything. Throws a StatusError to reject. */
  validate?(a: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain {
  constructor(private plugins: AdmissionPlugin[] = []) {}

  add(p: AdmissionPlugin): void {
    this.plugins.push(p);
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(a);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(a);
  }
}
