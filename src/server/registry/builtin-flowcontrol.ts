// flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration, as upstream's
// pkg/apis/flowcontrol/v1 defaults, pkg/apis/flowcontrol/validation and the table printers. The bootstrap
// objects (exempt, catch-all and the suggested set) are created at start by controllers/flowcontrol-bootstrap.ts.
import { type Obj, ageColumn, arr, builtinType, col, ensure, obj, setDefault, str } from './builtin-helpers.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, ResourceType, Strategy } from './types.js';

const spec = (o: KubeObject): Obj => obj(o.spec);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const PL_TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSES = ['Queue', 'Reject'];

function validateRules(rules: unknown, errs: FieldError[]): void {
  arr(rules).forEach((r, i) => {
    const p = `spec.rules[${i}]`;
    const rule = obj(r);
    const subjects = arr(rule.subjects);
    if (subjects.length === 0) errs.push(fe.required(`${p}.subjects`, 'subjects must contain at least one value'));
    subjects.forEach((s, j) => {
      const subj = obj(s);
      const sp = `${p}.subjects[${j}]`;
      const kind = str(subj.kind);
      if (!SUBJECT_KINDS.includes(kind)) {
        errs.push(kind ? fe.notSupported(`${sp}.kind`, kind, SUBJECT_KINDS) : fe.required(`${sp}.kind`, ''));
        return;
      }
      const member = kind === 'User' ? 'user' : kind === 'Group' ? 'group' : 'serviceAccount';
      const m = obj(subj[member]);
      if (subj[member] === undefined) errs.push(fe.required(`${sp}.${member}`, `${member} is required when subject kind is '${kind}'`));
      else if (!str(m.name)) errs.push(fe.required(`${sp}.${member}.name`, `non-empty ${member} name is required`));
      else if (kind === 'ServiceAccount' && !str(m.namespace)) errs.push(fe.required(`${sp}.serviceAccount.namespace`, 'must specify namespace for service account'));
    });
    const res = arr(rule.resourceRules);
    const nonRes = arr(rule.nonResourceRules);
    if (res.length === 0 && nonRes.length === 0) errs.push(fe.required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    res.forEach((rr, j) => {
      const x = obj(rr);
      const rp = `${p}.resourceRules[${j}]`;
      if (arr(x.verbs).length === 0) errs.push(fe.required(`${rp}.verbs`, 'verbs must contain at least one value'));
      if (arr(x.apiGroups).length === 0) errs.push(fe.required(`${rp}.apiGroups`, 'resource rules must supply at least one api group'));
      if (arr(x.resources).length === 0) errs.push(fe.required(`${rp}.resources`, 'resource rules must supply at least one resource'));
      if (arr(x.namespaces).length === 0 && x.clusterScope !== true) errs.push(fe.required(`${rp}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
    });
    nonRes.forEach((nr, j) => {
      const x = obj(nr);
      const np = `${p}.nonResourceRules[${j}]`;
      if (arr(x.verbs).length === 0) errs.push(fe.required(`${np}.verbs`, 'verbs must contain at least one value'));
      if (arr(x.nonResourceURLs).length === 0) errs.push(fe.required(`${np}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
    });
  });
}

const flowSchemaStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    setDefault(ensure(o as Obj, 'spec'), 'matchingPrecedence', 1000); // upstream SetDefaults_FlowSchemaSpec
  },
  validate(o) {
    const errs: FieldError[] = [];
    const s = spec(o);
    if (!str(obj(s.priorityLevelConfiguration).name)) errs.push(fe.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
    const mp = s.matchingPrecedence;
    if (isInt(mp) && (mp < 1 || mp > 10000)) errs.push(fe.invalid('spec.matchingPrecedence', mp, 'must be between 1 and 10000, inclusive'));
    if (s.distinguisherMethod !== undefined && s.distinguisherMethod !== null) {
      const t = str(obj(s.distinguisherMethod).type);
      if (!DISTINGUISHERS.includes(t)) errs.push(fe.notSupported('spec.distinguisherMethod.type', t, DISTINGUISHERS));
    }
    const name = str(o.metadata?.name);
    if (name === 'exempt' && str(obj(s.priorityLevelConfiguration).name) !== 'exempt')
      errs.push(fe.invalid('spec.priorityLevelConfiguration.name', obj(s.priorityLevelConfiguration).name ?? '', 'the mandatory flow schema "exempt" must reference the priority level "exempt"'));
    validateRules(s.rules, errs);
    return errs;
  },
};

const priorityLevelStrategy: Strategy = {
  tracksGeneration: true,
  defaults(o) {
    // upstream SetDefaults_PriorityLevelConfiguration (v1): 30 shares, 0 lendable, queuing 64/8/50
    const s = ensure(o as Obj, 'spec');
    if (s.type === 'Limited' && s.limited && typeof s.limited === 'object') {
      const l = s.limited as Obj;
      setDefault(l, 'nominalConcurrencyShares', 30);
      setDefault(l, 'lendablePercent', 0);
      const lr = l.limitResponse && typeof l.limitResponse === 'object' ? (l.limitResponse as Obj) : undefined;
      if (lr?.type === 'Queue') {
        const q = ensure(lr, 'queuing');
        setDefault(q, 'queues', 64);
        setDefault(q, 'handSize', 8);
        setDefault(q, 'queueLengthLimit', 50);
      }
    }
    if (s.type === 'Exempt' && s.exempt && typeof s.exempt === 'object') {
      setDefault(s.exempt as Obj, 'nominalConcurrencyShares', 0);
      setDefault(s.exempt as Obj, 'lendablePercent', 0);
    }
  },
  validate(o) {
    const errs: FieldError[] = [];
    const s = spec(o);
    const t = str(s.type);
    const name = str(o.metadata?.name);
    if (!t) errs.push(fe.required('spec.type', 'must not be empty'));
    else if (!PL_TYPES.includes(t)) errs.push(fe.notSupported('spec.type', t, PL_TYPES));
    if ((name === 'exempt') !== (t === 'Exempt') && t) errs.push(fe.invalid('spec.type', t, "type must be 'Exempt' if and only if name is 'exempt'"));
    const percent = (p: string, v: unknown) => {
      if (v !== undefined && v !== null && (!isInt(v) || v < 0 || v > 100)) errs.push(fe.invalid(p, v, 'must be between 0 and 100, inclusive'));
    };
    if (t === 'Limited') {
      if (s.limited === undefined || s.limited === null) errs.push(fe.required('spec.limited', 'must not be empty when type is Limited'));
      const l = obj(s.limited);
      if (isInt(l.nominalConcurrencyShares) && l.nominalConcurrencyShares < 0) errs.push(fe.invalid('spec.limited.nominalConcurrencyShares', l.nominalConcurrencyShares, 'must be a non-negative integer'));
      percent('spec.limited.lendablePercent', l.lendablePercent);
      if (isInt(l.borrowingLimitPercent) && l.borrowingLimitPercent < 0) errs.push(fe.invalid('spec.limited.borrowingLimitPercent', l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
      const lr = obj(l.limitResponse);
      const lrt = str(lr.type);
      if (!LIMIT_RESPONSES.includes(lrt)) errs.push(lrt ? fe.notSupported('spec.limited.limitResponse.type', lrt, LIMIT_RESPONSES) : fe.required('spec.limited.limitResponse.type', ''));
      if (lrt === 'Reject' && lr.queuing !== undefined && lr.queuing !== null) errs.push(fe.forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
      if (lrt === 'Queue') {
        if (lr.queuing === undefined || lr.queuing === null) errs.push(fe.required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
        const q = obj(lr.queuing);
        const qp = 'spec.limited.limitResponse.queuing';
        for (const k of ['queues', 'handSize', 'queueLengthLimit']) if (isInt(q[k]) && (q[k] as number) <= 0) errs.push(fe.invalid(`${qp}.${k}`, q[k], 'must be positive'));
        if (isInt(q.queues) && q.queues > 1 << 27) errs.push(fe.invalid(`${qp}.queues`, q.queues, `must not be greater than ${1 << 27}`));
        if (isInt(q.handSize) && isInt(q.queues) && q.handSize > q.queues) errs.push(fe.invalid(`${qp}.handSize`, q.handSize, `should not be greater than queues (${q.queues})`));
      }
    } else if (s.limited !== undefined && s.limited !== null) errs.push(fe.forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (t === 'Exempt') {
      const e = obj(s.exempt);
      if (isInt(e.nominalConcurrencyShares) && e.nominalConcurrencyShares < 0) errs.push(fe.invalid('spec.exempt.nominalConcurrencyShares', e.nominalConcurrencyShares, 'must be a non-negative integer'));
      percent('spec.exempt.lendablePercent', e.lendablePercent);
    } else if (s.exempt !== undefined && s.exempt !== null) errs.push(fe.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    return errs;
  },
};

/** printFlowSchema's MissingPL: the Dangling condition's status, "?" without one. */
function missingPL(o: KubeObject): string {
  const c = arr(obj(o.status).conditions)
    .map(obj)
    .find((x) => x.type === 'Dangling');
  return c ? str(c.status) : '?';
}

const limitedCell = (o: KubeObject, get: (l: Obj) => unknown): unknown => {
  const l = spec(o).limited;
  if (!l || typeof l !== 'object') return '<none>';
  return get(l as Obj) ?? '<none>';
};
const queuingCell = (k: string) => (o: KubeObject) => limitedCell(o, (l) => (obj(obj(l.limitResponse).queuing)[k] as number | undefined) ?? (obj(l.limitResponse).type === 'Queue' ? undefined : '<none>'));

const FC = 'io.k8s.api.flowcontrol.v1.';

export const flowControlTypes: ResourceType[] = [
  builtinType({
    group: 'flowcontrol.apiserver.service.io', version: 'v1', kind: 'FlowSchema', plural: 'flowschemas', schemaRef: FC + 'FlowSchema',
    scope: 'Cluster', status: true, strategy: flowSchemaStrategy,
    columns: [
      col('PriorityLevel', (o) => str(obj(spec(o).priorityLevelConfiguration).name)),
      col('MatchingPrecedence', (o) => spec(o).matchingPrecedence ?? 0, { type: 'integer' }),
      col('DistinguisherMethod', (o) => str(obj(spec(o).distinguisherMethod).type) || '<none>'),
      ageColumn,
      col('MissingPL', missingPL),
    ],
  }),
  builtinType({
    group: 'flowcontrol.apiserver.service.io', version: 'v1', kind: 'PriorityLevelConfiguration', plural: 'prioritylevelconfigurations',
    schemaRef: FC + 'PriorityLevelConfiguration', scope: 'Cluster', status: true, strategy: priorityLevelStrategy,
    columns: [
      col('Type', (o) => str(spec(o).type)),
      col('NominalConcurrencyShares', (o) => limitedCell(o, (l) => l.nominalConcurrencyShares)),
      col('Queues', queuingCell('queues')),
      col('HandSize', queuingCell('handSize')),
      col('QueueLengthLimit', queuingCell('queueLengthLimit')),
      ageColumn,
    ],
  }),
];
