// Admission: mutating then validating plugins that see every write before it is stored.
import type { KubeObject, ResourceType } from '../registry/types.js';
import { inSpan, tracingEnabled } from '../tracing.js';

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
  /** The object's kind when it is not the resource's (a pods/binding create carries a v1 Binding, eviction a policy/v1 Eviction). */
  kind?: { group: string; version: string; kind: string };
}

export interface AdmissionPlugin {
  name: string;
  /** Mutating phase: may change attrs.object. Throws a StatusError to reject. */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  /** Validating phase: must not change anything. Throws a StatusError to reject. */
  validate?(a: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain {
  private admitters: AdmissionPlugin[] = [];
  private validators: AdmissionPlugin[] = [];

  constructor(private plugins: AdmissionPlugin[] = []) {
    this.index();
  }

  add(p: AdmissionPlugin): void {
    this.plugins.push(p);
    this.index();
  }

  private index(): void {
    this.admitters = this.plugins.filter((p) => p.admit);
    this.validators = this.plugins.filter((p) => p.validate);
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    for (const p of this.admitters) {
      // without tracing a plugin is called directly, and a synchronous answer is not awaited
      const r = tracingEnabled() ? inSpan(`Admit ${p.name}`, { 'admission.plugin': p.name, 'admission.operation': a.operation }, () => p.admit!(a)) : p.admit!(a);
      if (r) await r;
    }
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.validators) {
      const r = tracingEnabled() ? inSpan(`Validate ${p.name}`, { 'admission.plugin': p.name, 'admission.operation': a.operation }, () => p.validate!(a)) : p.validate!(a);
      if (r) await r;
    }
  }
}
