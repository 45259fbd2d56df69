// The authorizer chain (upstream union authorizer): authorizers are asked in order, the first Allow or
// Deny wins, NoOpinion passes on; when every one abstains the request is denied with their reasons.
import { allow, deny, noOpinion, type Attributes, type AuthorizationResult, type Authorizer } from './attributes.js';

export const alwaysAllow: Authorizer = { name: 'always-allow', authorize: () => allow() };
export const alwaysDeny: Authorizer = { name: 'always-deny', authorize: () => deny('') };

export class UnionAuthorizer implements Authorizer {
  readonly name = 'union';
  constructor(public authorizers: Authorizer[]) {}

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    const reasons: string[] = [];
    const errs: string[] = [];
    for (const z of this.authorizers) {
      const r = await z.authorize(a);
      if (r.error) errs.push(r.error);
      if (r.decision !== 'NoOpinion') return { ...r, error: errs.join('\n') || undefined };
      if (r.reason) reasons.push(r.reason);
    }
    return { ...noOpinion(reasons.join('\n')), error: errs.join('\n') || undefined };
  }
}
