// Admission: mutating then validating plugins that see every write before it is stored.
import type { KubeObject, ResourceType } from '../registry/types.js';
import { inSpan } from '../tracing.js';

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
  /** Full user info when the authenticator supplied it (AdmissionReview userInfo); else { username: user }. */
  userInfo?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** Where plugins add warnings for the client (Warning headers); absent on internal writes. */
  warnings?: string[];
  /** Create/Update/DeleteOptions of the request, as sent to webhooks (AdmissionReview request.options). */
  options?: Record<string, unknown>;
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
    for (const p of this.plugins) if (p.admit) await inSpan(`Admit ${p.name}`, { 'admission.plugin': p.name, 'admission.operation': a.operation }, () => p.admit!(a));
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await inSpan(`Validate ${p.name}`, { 'admission.plugin': p.name, 'admission.operation': a.operation }, () => p.validate!(a));
  }
}
