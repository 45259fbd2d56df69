// CEL environments of the configuration documents, shared by validation, the authentication and
// authorization runtimes and the browser studio:
//   claims  - token claims (map of string to any) for claim validation rules and claim mappings;
//   user    - the mapped user (username, uid, groups, extra) for user validation rules;
//   request - a SubjectAccessReview v1 spec for authorization webhook match conditions.

import { Environment, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import { installKubernetesLibraries } from '../server/cel/library.js';

export type CelVariable = 'claims' | 'user' | 'request';

/** What an expression is for, which fixes its variable and the result types it may produce. */
export type CelPurpose = 'claimValidation' | 'claimMappingString' | 'claimMappingStringOrList' | 'userValidation' | 'matchCondition';

interface PurposeSpec {
  variable: CelVariable;
  /** Result types written as in upstream messages. */
  expected: readonly string[];
  /** Inferred types (cel-js spelling) that satisfy the purpose. `dyn` defers the check to evaluation. */
  accepts: readonly string[];
}

export const CEL_PURPOSES: Readonly<Record<CelPurpose, PurposeSpec>> = {
  claimValidation: { variable: 'claims', expected: ['bool'], accepts: ['bool'] },
  claimMappingString: { variable: 'claims', expected: ['string'], accepts: ['string', 'dyn'] },
  claimMappingStringOrList: {
    variable: 'claims',
    expected: ['string', 'list(string)'],
    accepts: ['string', 'dyn', 'list', 'list<string>', 'list<dyn>'],
  },
  userValidation: { variable: 'user', expected: ['bool'], accepts: ['bool'] },
  matchCondition: { variable: 'request', expected: ['bool'], accepts: ['bool'] },
};

const USER_INFO_SCHEMA = {
  username: 'string',
  uid: 'string',
  groups: 'list<string>',
  extra: 'map<string, list<string>>',
} as const;

const SELECTOR_SCHEMA = { rawSelector: 'string', requirements: 'list<SelectorRequirement>' } as const;

const SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA = {
  user: 'string',
  groups: 'list<string>',
  uid: 'string',
  extra: 'map<string, list<string>>',
  resourceAttributes: {
    namespace: 'string',
    verb: 'string',
    group: 'string',
    version: 'string',
    resource: 'string',
    subresource: 'string',
    name: 'string',
    fieldSelector: SELECTOR_SCHEMA,
    labelSelector: SELECTOR_SCHEMA,
  },
  nonResourceAttributes: { path: 'string', verb: 'string' },
} as const;

const environments = new Map<CelVariable, Environment>();

/** The environment declaring one variable; built once and shared. */
export function celEnvironment(variable: CelVariable): Environment {
  let env = environments.get(variable);
  if (env) return env;
  // Kubernetes' CEL environments allow mixed list and map literals (they become list(dyn)).
  env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  // upstream compiles these with its base environment: the Kubernetes libraries (url, quantity, ip, format, ...)
  installKubernetesLibraries(env);
  switch (variable) {
    case 'claims':
      env.registerVariable('claims', 'map<string, dyn>', { description: 'Claims of the token being authenticated.' });
      break;
    case 'user':
      env.registerVariable({ name: 'user', schema: USER_INFO_SCHEMA, description: 'The user mapped from the token.' });
      break;
    case 'request':
      env.registerType('SelectorRequirement', { fields: { key: 'string', operator: 'string', values: 'list<string>' } });
      env.registerVariable({ name: 'request', schema: SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA, description: 'The SubjectAccessReview spec (v1).' });
      break;
  }
  environments.set(variable, env);
  return env;
}

export interface CelCompiled {
  ok: true;
  expression: string;
  /** Inferred result type in cel-js spelling (`bool`, `string`, `list<string>`, `dyn`, ...). */
  type: string;
  ast: ASTNode;
  /** Evaluates the expression against `{ claims }`, `{ user }` or `{ request }`. */
  program: ParseResult;
}

export interface CelFailure {
  ok: false;
  expression: string;
  /** Upstream-like detail, such as `compilation failed: ERROR: <input>:1:4: Unexpected token: EOF`. */
  message: string;
  /** Character range inside the expression the error points at, when known. */
  range?: { start: number; end: number };
}

export type CelCompileResult = CelCompiled | CelFailure;

interface CelErrorLike {
  summary?: string;
  message?: string;
  range?: { start: number; end: number };
}

function position(expression: string, offset: number): string {
  const before = expression.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

function failure(expression: string, err: unknown): CelFailure {
  const e = (err ?? {}) as CelErrorLike;
  const summary = e.summary ?? String(e.message ?? err).split('\n')[0]!;
  const where = e.range ? `<input>:${position(expression, e.range.start)}: ` : '';
  return { ok: false, expression, message: `compilation failed: ERROR: ${where}${summary}`, range: e.range };
}

/** Parses and type-checks an expression for a purpose, including its required result type. */
export function compileCel(purpose: CelPurpose, expression: string): CelCompileResult {
  const spec = CEL_PURPOSES[purpose];
  const env = celEnvironment(spec.variable);
  let program: ParseResult;
  try {
    program = env.parse(expression);
  } catch (err) {
    return failure(expression, err);
  }
  const checked = program.check();
  if (!checked.valid) return failure(expression, checked.error);
  const type = checked.type ?? 'dyn';
  if (!spec.accepts.includes(type)) {
    const reason = spec.expected.length === 1 ? `must evaluate to ${spec.expected[0]}` : `must evaluate to one of [${spec.expected.join(' ')}]`;
    return { ok: false, expression, message: reason };
  }
  return { ok: true, expression, type, ast: program.ast, program };
}

/** Whether the expression reads `<variable>.<field>` (or `<variable>.?<field>`) anywhere. */
export function celSelectsField(ast: ASTNode, variable: string, field: string): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (typeof node !== 'object' || node === null || !('op' in node)) return false;
    const n = node as ASTNode;
    if ((n.op === '.' || n.op === '.?') && n.args[1] === field) {
      const target = n.args[0];
      if (target.op === 'id' && target.args === variable) return true;
    }
    return Array.isArray(n.args) && n.args.some(visit);
  };
  return visit(ast);
}
