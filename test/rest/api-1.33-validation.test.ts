// Validation of the fields added from 1.28 to 1.33 as upstream's pkg/apis/{batch,core}/validation at 1.33 words
// it: Job managedBy, successPolicy, backoffLimitPerIndex/maxFailedIndexes, elastic Indexed Jobs and the fields'
// immutability; volume mounts' recursiveReadOnly and mountPropagation; container resizePolicy; pod affinity
// matchLabelKeys/mismatchLabelKeys (and their create-time merge into labelSelector). One refused request per rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

let server: ApiServer;
let api: ReturnType<typeof client>;
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const PODS = '/api/v1/namespaces/default/pods';

beforeAll(async () => {
  server = await testServer();
  api = client(server.url);
});
afterAll(() => server.close());

const job = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
});

const indexed = (extra: Record<string, unknown> = {}) => ({ completionMode: 'Indexed', completions: 5, parallelism: 5, ...extra });

describe('Job spec (create)', () => {
  it.each([
    ['mb-not-path', { managedBy: 'kueue' }, 'spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")'],
    ['mb-host', { managedBy: 'Kueue.X-K8s.io/controller' }, `spec.managedBy: Invalid value: "Kueue.X-K8s.io": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    ['mb-path', { managedBy: 'example.com/a b' }, `spec.managedBy: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`],
    ['mb-long', { managedBy: `example.com/${'x'.repeat(60)}` }, 'spec.managedBy: Too long: may not be more than 63 bytes'],
    ['sp-nonindexed', { successPolicy: { rules: [{ succeededCount: 1 }] } }, 'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode'],
    ['sp-no-rules', indexed({ successPolicy: { rules: [] } }), 'spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified'],
    ['sp-too-many', indexed({ successPolicy: { rules: Array.from({ length: 21 }, () => ({ succeededCount: 1 })) } }), 'spec.successPolicy.rules: Too many: 21: must have at most 20 items'],
    ['sp-empty-rule', indexed({ successPolicy: { rules: [{}] } }), 'spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified'],
    ['sp-indexes-format', indexed({ successPolicy: { rules: [{ succeededIndexes: '0-2-4' }] } }), `spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2-4": error parsing succeededIndexes: the fragment "0-2-4" violates the requirement that an index interval can have at most two parts separated by '-'`],
    ['sp-indexes-large', indexed({ successPolicy: { rules: [{ succeededIndexes: '1,7' }] } }), 'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1,7": error parsing succeededIndexes: too large index: "7"'],
    ['sp-indexes-order', indexed({ successPolicy: { rules: [{ succeededIndexes: '3,1' }] } }), 'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3,1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1'],
    ['sp-indexes-nan', indexed({ successPolicy: { rules: [{ succeededIndexes: 'a' }] } }), 'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "a": error parsing succeededIndexes: cannot convert string to integer for index: "a"'],
    ['sp-count-completions', indexed({ successPolicy: { rules: [{ succeededCount: 6 }] } }), 'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)'],
    ['sp-count-indexes', indexed({ successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 3 }] } }), 'spec.successPolicy.rules[0].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)'],
    ['sp-count-negative', indexed({ successPolicy: { rules: [{ succeededCount: -1 }] } }), 'spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0'],
    ['blpi-nonindexed', { backoffLimitPerIndex: 1 }, 'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode'],
    ['mfi-without-blpi', indexed({ maxFailedIndexes: 1 }), 'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified'],
    ['mfi-over-completions', indexed({ backoffLimitPerIndex: 1, maxFailedIndexes: 6 }), 'spec.maxFailedIndexes: Invalid value: 6: must be less than or equal to completions'],
    ['indexed-no-completions', { completionMode: 'Indexed', parallelism: 2 }, 'spec.completions: Required value: when completion mode is Indexed'],
    ['prp-with-pfp', { podReplacementPolicy: 'TerminatingOrFailed', podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }, 'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"'],
  ])('%s', async (name, spec, cause) => {
    const r = await api.post(JOBS, job(name, spec));
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Job.batch "${name}" is invalid: ${cause}`);
  });

  it('accepts the upstream examples (managedBy with a path, a success policy on an Indexed Job)', async () => {
    const ok = await api.post(JOBS, job('accepted', indexed({ managedBy: 'kueue.x-k8s.io/multikueue', successPolicy: { rules: [{ succeededIndexes: '0,2-3', succeededCount: 1 }] } })));
    expect(ok.status, ok.text).toBe(201);
  });
});

describe('Job spec (update)', () => {
  it.each([
    ['managedBy', { managedBy: 'example.com/one' }, { managedBy: 'example.com/two' }, 'spec.managedBy: Invalid value: "example.com/two": field is immutable'],
    ['successPolicy', indexed({ successPolicy: { rules: [{ succeededCount: 1 }] } }), indexed({ successPolicy: { rules: [{ succeededCount: 2 }] } }), 'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":2}]}: field is immutable'],
    ['backoffLimitPerIndex', indexed({ backoffLimitPerIndex: 1 }), indexed({ backoffLimitPerIndex: 2 }), 'spec.backoffLimitPerIndex: Invalid value: 2: field is immutable'],
    ['completions', indexed(), indexed({ completions: 6 }), 'spec.completions: Invalid value: 6: can only be modified in tandem with spec.parallelism'],
  ])('%s', async (field, before, after, cause) => {
    const name = `upd-${field.toLowerCase()}`;
    const c = await api.post(JOBS, job(name, before));
    expect(c.status, c.text).toBe(201);
    const r = await api.patch(`${JOBS}/${name}`, { spec: after }, 'application/merge-patch+json');
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Job.batch "${name}" is invalid: ${cause}`);
  });

  it('an Indexed Job scales completions together with parallelism (elastic Indexed Jobs)', async () => {
    expect((await api.post(JOBS, job('elastic', indexed()))).status).toBe(201);
    const r = await api.patch(`${JOBS}/elastic`, { spec: { completions: 7, parallelism: 7 } }, 'application/merge-patch+json');
    expect(r.status, r.text).toBe(200);
  });
});

describe('volume mounts: recursiveReadOnly and mountPropagation', () => {
  const pod = (name: string, mount: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/mnt', ...mount }] }] },
  });
  const at = 'spec.containers[0].volumeMounts[0]';

  it.each([
    ['rro-not-readonly', { recursiveReadOnly: 'Enabled' }, `${at}.recursiveReadOnly: Forbidden: may only be specified when readOnly is true`],
    ['rro-ifpossible-not-readonly', { recursiveReadOnly: 'IfPossible', readOnly: false }, `${at}.recursiveReadOnly: Forbidden: may only be specified when readOnly is true`],
    ['rro-propagation', { recursiveReadOnly: 'Enabled', readOnly: true, mountPropagation: 'HostToContainer' }, `${at}.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified`],
    ['rro-value', { recursiveReadOnly: 'Always', readOnly: true }, `${at}.recursiveReadOnly: Unsupported value: "Always": supported values: "Disabled", "Enabled", "IfPossible"`],
    ['propagation-value', { mountPropagation: 'Shared' }, `${at}.mountPropagation: Unsupported value: "Shared": supported values: "Bidirectional", "HostToContainer", "None"`],
  ])('%s', async (name, mount, cause) => {
    const r = await api.post(PODS, pod(name, mount));
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Pod "${name}" is invalid: ${cause}`);
  });

  it('accepts Enabled on a read-only mount with propagation None, and Disabled anywhere', async () => {
    expect((await api.post(PODS, pod('rro-ok', { recursiveReadOnly: 'Enabled', readOnly: true, mountPropagation: 'None' }))).status).toBe(201);
    expect((await api.post(PODS, pod('rro-disabled', { recursiveReadOnly: 'Disabled' }))).status).toBe(201);
  });
});

describe('pod security context: appArmorProfile and supplementalGroupsPolicy', () => {
  const pod = (name: string, podSC: Record<string, unknown>, ctrSC?: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { securityContext: podSC, containers: [{ name: 'c', image: 'busybox', ...(ctrSC ? { securityContext: ctrSC } : {}) }] },
  });

  it.each([
    ['aa-no-local', { appArmorProfile: { type: 'Localhost' } }, undefined, 'spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost'],
    ['aa-padded', { appArmorProfile: { type: 'Localhost', localhostProfile: ' k8s-apparmor ' } }, undefined, 'spec.securityContext.appArmorProfile.localhostProfile: Invalid value: " k8s-apparmor ": must not be padded with whitespace'],
    ['aa-local-not-localhost', {}, { appArmorProfile: { type: 'RuntimeDefault', localhostProfile: 'x' } }, 'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost'],
    ['aa-no-type', { appArmorProfile: {} }, undefined, 'spec.securityContext.appArmorProfile.type: Required value: type is required when appArmorProfile is set'],
    ['aa-type', { appArmorProfile: { type: 'Complain' } }, undefined, 'spec.securityContext.appArmorProfile.type: Unsupported value: "Complain": supported values: "Localhost", "RuntimeDefault", "Unconfined"'],
    ['sgp', { supplementalGroupsPolicy: 'Loose' }, undefined, 'spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", "Strict"'],
  ])('%s', async (name, podSC, ctrSC, cause) => {
    const r = await api.post(PODS, pod(name, podSC, ctrSC));
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Pod "${name}" is invalid: ${cause}`);
  });
});

describe('lifecycle sleep (PodLifecycleSleepAction, zero allowed in 1.33)', () => {
  const pod = (name: string, seconds: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'busybox', lifecycle: { preStop: { sleep: { seconds } } } }] },
  });

  it('refuses a sleep longer than the grace period, accepts zero', async () => {
    const r = await api.post(PODS, pod('sleep-long', 25));
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe('Pod "sleep-long" is invalid: spec.containers[0].lifecycle.preStop.sleep: Invalid value: 25: must be non-negative and less than terminationGracePeriodSeconds (20)');
    expect((await api.post(PODS, pod('sleep-zero', 0))).status).toBe(201);
  });
});

describe('container resizePolicy (InPlacePodVerticalScaling, beta 1.33)', () => {
  const pod = (name: string, resizePolicy: unknown[], extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox', resizePolicy }], ...extra },
  });
  const at = 'spec.containers[0].resizePolicy';

  it.each([
    ['rp-resource', pod('rp-resource', [{ resourceName: 'nvidia.com/gpu', restartPolicy: 'NotRequired' }]), `${at}: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"`],
    ['rp-policy', pod('rp-policy', [{ resourceName: 'cpu', restartPolicy: 'Always' }]), `${at}: Unsupported value: "Always": supported values: "NotRequired", "RestartContainer"`],
    ['rp-duplicate', pod('rp-duplicate', [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }, { resourceName: 'cpu', restartPolicy: 'RestartContainer' }]), `${at}[1]: Duplicate value: "cpu"`],
    ['rp-never', pod('rp-never', [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }], { restartPolicy: 'Never' }), `${at}: Invalid value: "RestartContainer": must be 'NotRequired' when \`restartPolicy\` is 'Never'`],
    ['rp-init', pod('rp-init', [], { initContainers: [{ name: 'i', image: 'busybox', resizePolicy: [{ resourceName: 'storage', restartPolicy: 'NotRequired' }] }] }), 'spec.initContainers[0].resizePolicy: Unsupported value: "storage": supported values: "cpu", "memory"'],
  ])('%s', async (name, body, cause) => {
    const r = await api.post(PODS, body);
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Pod "${name}" is invalid: ${cause}`);
  });

  it('accepts a resizePolicy on init containers (AllowSidecarResizePolicy with the gate on), refuses one on an ephemeral container', async () => {
    const ok = await api.post(PODS, pod('rp-init-ok', [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }], { initContainers: [{ name: 'i', image: 'busybox', restartPolicy: 'Always', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }] }));
    expect(ok.status, ok.text).toBe(201);
    const eph = await api.post(PODS, pod('rp-ephemeral', [], { ephemeralContainers: [{ name: 'debug', image: 'busybox', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] }));
    expect(eph.status, eph.text).toBe(422);
    expect(eph.body.message).toContain('spec.ephemeralContainers[0].resizePolicy: Forbidden: cannot be set for an Ephemeral Container');
  });
});

describe('pod affinity matchLabelKeys / mismatchLabelKeys (MatchLabelKeysInPodAffinity, on since 1.31)', () => {
  const REQ = 'requiredDuringSchedulingIgnoredDuringExecution';
  const PREF = 'preferredDuringSchedulingIgnoredDuringExecution';
  const pod = (name: string, labels: Record<string, string>, affinity: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { affinity, containers: [{ name: 'c', image: 'busybox' }] },
  });
  const term = (t: Record<string, unknown>) => ({ topologyKey: 'kubernetes.io/hostname', ...t });
  const req = `spec.affinity.podAffinity.${REQ}[0]`;

  it.each([
    ['mlk-key', {}, { podAffinity: { [REQ]: [term({ labelSelector: {}, matchLabelKeys: ['bad key'] })] } }, `${req}.matchLabelKeys[0]: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
    ['mlk-no-selector', { app: 'web' }, { podAffinity: { [REQ]: [term({ matchLabelKeys: ['app'] })] } }, `${req}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`],
    ['mmlk-no-selector', { app: 'web' }, { podAntiAffinity: { [PREF]: [{ weight: 1, podAffinityTerm: term({ mismatchLabelKeys: ['app'] }) }] } }, `spec.affinity.podAntiAffinity.${PREF}[0].podAffinityTerm.mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set`],
    ['mlk-both-lists', {}, { podAffinity: { [REQ]: [term({ labelSelector: {}, matchLabelKeys: ['app'], mismatchLabelKeys: ['app'] })] } }, `${req}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and mismatchLabelKeys`],
    // the merged `app In (web)` meets the selector's own app: upstream's path is the term's, indexed by the key's position
    ['mlk-in-selector', { app: 'web' }, { podAffinity: { [REQ]: [term({ labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['app'] })] } }, `${req}[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`],
  ])('%s', async (name, labels, affinity, cause) => {
    const r = await api.post(PODS, pod(name, labels, affinity));
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toBe(`Pod "${name}" is invalid: ${cause}`);
  });

  it('merges the keys into labelSelector on create (only labels the pod has), not on update; the affinity stays immutable', async () => {
    const affinity = {
      podAffinity: { [REQ]: [term({ labelSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['cache'] }] }, matchLabelKeys: ['app', 'absent'] })] },
      podAntiAffinity: { [PREF]: [{ weight: 10, podAffinityTerm: term({ labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, mismatchLabelKeys: ['tier'] }) }] },
    };
    const c = await api.post(PODS, pod('mlk-merge', { app: 'web', tier: 'db' }, affinity));
    expect(c.status, c.text).toBe(201);
    const merged = {
      required: [{ key: 'role', operator: 'In', values: ['cache'] }, { key: 'app', operator: 'In', values: ['web'] }],
      preferred: [{ key: 'tier', operator: 'Exists' }, { key: 'tier', operator: 'NotIn', values: ['db'] }],
    };
    const selectors = (p: any) => ({
      required: p.spec.affinity.podAffinity[REQ][0].labelSelector.matchExpressions,
      preferred: p.spec.affinity.podAntiAffinity[PREF][0].podAffinityTerm.labelSelector.matchExpressions,
    });
    expect(selectors(c.body)).toEqual(merged);
    expect(c.body.spec.affinity.podAffinity[REQ][0].matchLabelKeys).toEqual(['app', 'absent']);
    expect(selectors((await api.get(`${PODS}/mlk-merge`)).body)).toEqual(merged);

    // an update (new label values) merges nothing again
    const u = await api.patch(`${PODS}/mlk-merge`, { metadata: { labels: { app: 'api', tier: 'cache' } } }, 'application/merge-patch+json');
    expect(u.status, u.text).toBe(200);
    expect(selectors(u.body)).toEqual(merged);
    const put = await api.put(`${PODS}/mlk-merge`, u.body);
    expect(put.status, put.text).toBe(200);
    expect(selectors(put.body)).toEqual(merged);

    const changed = structuredClone(put.body);
    changed.spec.affinity.podAffinity[REQ][0].matchLabelKeys = ['app'];
    const r = await api.put(`${PODS}/mlk-merge`, changed);
    expect(r.status, r.text).toBe(422);
    expect(r.body.message).toContain('Pod "mlk-merge" is invalid: spec: Forbidden: pod updates may not change fields other than');
  });

  it('accepts a mismatchLabelKeys key the selector already names (upstream refuses only matchLabelKeys duplicates)', async () => {
    const r = await api.post(PODS, pod('mmlk-in-selector', { app: 'web' }, { podAntiAffinity: { [REQ]: [term({ labelSelector: { matchLabels: { app: 'web' } }, mismatchLabelKeys: ['app'] })] } }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.spec.affinity.podAntiAffinity[REQ][0].labelSelector).toEqual({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] });
  });
});
