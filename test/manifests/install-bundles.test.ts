// Ten public install bundles (test/manifests/bundles/, each naming its source, commit and render command; Gateway API
// has its own file) installed as their projects document, with the stock kubectl 1.33 and 1.27:
// - on an API server (no workload controllers, so nothing else writes): client-side apply, re-apply, server-side
//   apply, client-side again, then 1.27's client- and server-side apply: after the first apply no step writes
//   anything (every resourceVersion and generation stays); one custom resource of the bundle's CRDs is created; the
//   bundle is deleted and every object is gone, namespaces included;
// - on a living cluster (controllers, scheduler, simulated nodes), installed server-side by kubectl 1.27: every
//   Deployment, DaemonSet and StatefulSet becomes ready, then the bundle is deleted and cleanup finishes.
// The bundles run side by side on one server each.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ApiServer } from '../../src/server/app.js';
import { kubeconfigFor, kubectl, kubectlBinary } from '../helpers/kubectl.js';
import { client, testServer } from '../helpers/server.js';

const DIR = join(import.meta.dirname, 'bundles');
const TMP = mkdtempSync(join(tmpdir(), 'install-bundles-'));
const K127 = kubectlBinary('1.27');
const lines = (s: string) => s.split('\n').filter(Boolean);

interface Bundle {
  name: string;
  file: string;
  /** `kubectl apply -n` as documented (Argo CD's manifest carries no namespaces). */
  namespace?: string;
  /** One custom resource of the bundle's CRDs, and the warning upstream prints for it. */
  cr?: { yaml: string; warning?: RegExp };
  /** Webhook configurations whose backend is a simulated pod (never dialled) and which would judge `cr`. */
  webhooks?: string[];
  /**
   * Servers of its own: a webhook (failurePolicy Fail, backend a simulated pod) judges every namespace write, as
   * upstream's does until the bundle's pods answer, so no other bundle could be installed beside it.
   */
  alone?: boolean;
  /**
   * What every client-side re-apply reports `configured` although nothing is written (resourceVersions stay), as
   * upstream's kubectl does: its patch is computed on the client and is never empty for an explicit null in the
   * manifest (`data: null`, `replicas: null`: the patch deletes an absent field), for an atomic list the server
   * defaults (webhooks[].rules `scope: "*"`, NetworkPolicy ingress ports `protocol: TCP`), for a PDB selector
   * (patch strategy `replace`), and for a `retainKeys` map holding a defaulted key the manifest omits (Deployment
   * strategy without `type`: strategicpatch's diffMaps adds `$retainKeys` when hasAdditionalNewField(current, modified)).
   */
  configured?: string[];
}

const BUNDLES: Bundle[] = [
  {
    name: 'cert-manager',
    configured: [
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/cert-manager-webhook',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/cert-manager-webhook',
    ],
    file: 'cert-manager-v1.18.0.yaml',
    webhooks: ['validatingwebhookconfiguration/cert-manager-webhook', 'mutatingwebhookconfiguration/cert-manager-webhook'],
    cr: {
      yaml: 'apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: selfsigned, namespace: cert-manager}\nspec: {selfSigned: {}}\n',
    },
  },
  {
    name: 'prometheus-operator',
    file: 'prometheus-operator-v0.84.0.yaml.gz',
    cr: {
      yaml: `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, interval: 30s}]
`,
    },
  },
  {
    name: 'argo-cd',
    configured: [
      'networkpolicy.networking.k8s.io/argocd-application-controller-network-policy',
      'networkpolicy.networking.k8s.io/argocd-repo-server-network-policy',
    ],
    file: 'argo-cd-v3.0.19.yaml.gz',
    namespace: 'argocd',
    cr: {
      yaml: `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: team, namespace: argocd}
spec:
  sourceRepos: ['*']
  destinations: [{namespace: team, server: https://kubernetes.default.svc}]
`,
    },
  },
  {
    name: 'ingress-nginx',
    file: 'ingress-nginx-controller-v1.13.0.yaml',
    configured: ['configmap/ingress-nginx-controller', 'validatingwebhookconfiguration.admissionregistration.k8s.io/ingress-nginx-admission'],
  },
  { name: 'metrics-server', file: 'metrics-server-v0.8.0.yaml', configured: ['deployment.apps/metrics-server'] },
  { name: 'kube-state-metrics', file: 'kube-state-metrics-v2.16.0.yaml' },
  {
    name: 'gatekeeper',
    file: 'gatekeeper-v3.20.0.yaml',
    alone: true,
    configured: [
      'poddisruptionbudget.policy/gatekeeper-controller-manager',
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-mutating-webhook-configuration',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration',
    ],
    cr: {
      yaml: `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8srequiredlabels}
spec:
  crd:
    spec:
      names: {kind: K8sRequiredLabels}
      validation:
        openAPIV3Schema:
          type: object
          properties:
            labels: {type: array, items: {type: string}}
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package k8srequiredlabels
      violation[{"msg": msg}] {
        provided := {label | input.review.object.metadata.labels[label]}
        required := {label | label := input.parameters.labels[_]}
        missing := required - provided
        count(missing) > 0
        msg := sprintf("missing labels: %v", [missing])
      }
`,
    },
  },
  {
    name: 'kyverno',
    configured: ['admission', 'background', 'cleanup', 'reports'].map((c) => `deployment.apps/kyverno-${c}-controller`),
    file: 'kyverno-v1.15.2.yaml.gz',
    cr: {
      yaml: `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team-label}
spec:
  validationFailureAction: Audit
  rules:
  - name: check-team
    match:
      any:
      - resources: {kinds: [Pod]}
    validate:
      message: "label 'team' is required"
      pattern:
        metadata:
          labels: {team: "?*"}
`,
    },
  },
  {
    name: 'flux',
    file: 'flux-v2.5.1.yaml',
    cr: {
      yaml: `apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: GitRepository
metadata: {name: podinfo, namespace: flux-system}
spec:
  interval: 5m
  url: https://github.com/stefanprodan/podinfo
  ref: {branch: master}
`,
      warning: /^Warning: v1beta2 GitRepository is deprecated, upgrade to v1$/m,
    },
  },
  {
    name: 'metallb',
    configured: ['validatingwebhookconfiguration.admissionregistration.k8s.io/metallb-webhook-configuration'],
    file: 'metallb-v0.15.2.yaml',
    webhooks: ['validatingwebhookconfiguration/metallb-webhook-configuration'],
    cr: {
      yaml: 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: lan, namespace: metallb-system}\nspec: {addresses: [192.168.10.0/24]}\n',
    },
  },
];

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
  };
}

/** The bundle's text (gunzipped), written out for kubectl, and its documents. */
function load(b: Bundle): { path: string; docs: Doc[] } {
  const raw = readFileSync(join(DIR, b.file));
  const text = b.file.endsWith('.gz') ? gunzipSync(raw).toString() : raw.toString();
  const path = join(TMP, b.file.replace(/\.gz$/, ''));
  writeFileSync(path, text);
  return {
    path,
    docs: parseAllDocuments(text)
      .map((d) => d.toJS() as Doc)
      .filter(Boolean),
  };
}

/**
 * Objects whose client-side apply upstream refuses too: kubectl stores the whole object as JSON (Go's encoder:
 * `<`, `>`, `&` escaped as \u003c…) in the last-applied annotation, and apimachinery's ValidateAnnotations caps
 * all annotations at 256 KiB (TotalAnnotationSizeLimitB = 262144).
 */
function tooLongForClientSide(docs: Doc[]): string[] {
  return docs
    .filter((d) => {
      const json = JSON.stringify(d).replace(/[<>&]/g, '\\u003c');
      const others = Object.entries(d.metadata.annotations ?? {}).reduce((n, [k, v]) => n + k.length + v.length, 0);
      return json.length + 'kubectl.kubernetes.io/last-applied-configuration'.length + others > 262144;
    })
    .map((d) => d.metadata.name)
    .sort();
}

/** kubectl's own note when `delete -n` meets cluster-scoped objects (Argo CD's CRDs and ClusterRoles). */
const withoutScopeWarning = (s: string) => s.replace(/^Warning: deleting cluster-scoped resources, not scoped to the provided namespace\n/m, '');

type Row = Record<string, string>;
const table: Record<string, Row> = {};
function record(bundle: string, step: string, ok: boolean, detail = '') {
  (table[bundle] ??= {})[step] = ok ? `pass ${detail}`.trim() : `FAIL ${detail}`.trim();
}

interface Pair {
  servers: ApiServer[];
  /** kubeconfig of the API server (no workload controllers) and of the living cluster; the latter's URL. */
  api: string;
  apiUrl: string;
  live: string;
  liveUrl: string;
}
async function pair(): Promise<Pair> {
  const servers = await Promise.all([
    testServer(),
    testServer({
      controllers: ['*'],
      simulatedNodes: 3,
      simulatedPodStartMs: 10,
      simulatedPodReadyMs: 10,
      simulatedPodRunMs: 10,
    }),
  ]);
  return {
    servers,
    api: kubeconfigFor(servers[0]!.url),
    apiUrl: servers[0]!.url,
    live: kubeconfigFor(servers[1]!.url),
    liveUrl: servers[1]!.url,
  };
}
let shared: Pair;
let own: Pair;
const on = (b: Bundle) => (b.alone ? own : shared);
beforeAll(async () => {
  [shared, own] = await Promise.all([pair(), pair()]);
});
afterAll(async () => {
  await Promise.all([shared, own].flatMap((p) => p?.servers.map((s) => s.close()) ?? []));
  // the bundle × step table (BUNDLE_TABLE=1)
  // eslint-disable-next-line no-console
  if (process.env.BUNDLE_TABLE)
    console.log(
      Object.entries(table)
        .map(
          ([b, r]) =>
            `${b}: ${Object.entries(r)
              .map(([s, v]) => `${s}=${v}`)
              .join(' ')}`,
        )
        .join('\n'),
    );
});

const K = 180_000;

const paths = new Map<string, Promise<{ plural: string; namespaced: boolean } | undefined>>();
/** The object's path, its kind resolved through the server's discovery (as kubectl's RESTMapper does). */
async function pathOf(url: string, d: Doc, ns?: string): Promise<string | undefined> {
  const base = d.apiVersion.includes('/') ? `/apis/${d.apiVersion}` : `/api/${d.apiVersion}`;
  const key = `${url}${base} ${d.kind}`;
  if (!paths.has(key)) {
    const found = client(url)
      .get(base)
      .then((r) => {
        const res =
          r.status === 200
            ? (
                r.body.resources as {
                  name: string;
                  kind: string;
                  namespaced: boolean;
                }[]
              ).find((x) => x.kind === d.kind && !x.name.includes('/'))
            : undefined;
        if (!res) paths.delete(key); // not served (yet, or any more)
        return res && { plural: res.name, namespaced: res.namespaced };
      });
    paths.set(key, found);
  }
  const res = await paths.get(key)!;
  if (!res) return undefined;
  return `${base}${res.namespaced ? `/namespaces/${d.metadata.namespace ?? ns ?? 'default'}` : ''}/${res.plural}/${d.metadata.name}`;
}

/** `kind/namespace/name resourceVersion generation` of every object the file names that exists. */
async function versions(url: string, docs: Doc[], ns?: string): Promise<string[]> {
  const c = client(url);
  const out = await Promise.all(
    docs.map(async (d) => {
      const p = await pathOf(url, d, ns);
      if (!p) return '';
      const r = await c.get(p);
      if (r.status === 404) return '';
      expect(r.status, p).toBe(200);
      const m = r.body.metadata;
      return `${d.kind}/${m.namespace ?? ''}/${m.name} ${m.resourceVersion} ${m.generation}`;
    }),
  );
  return out.filter(Boolean).sort();
}

/**
 * Client-side apply: every object but the too-long ones applied; those fail with upstream's message (on create
 * one line, on a patch kubectl's multi-line "error when applying patch" block), and nothing else fails.
 */
function expectClientSide(r: { code: number; stdout: string; stderr: string }, tooLong: string[], verb: RegExp, configured?: string[]): string {
  for (const l of lines(r.stdout)) expect(l).toMatch(verb);
  if (configured)
    expect(
      lines(r.stdout)
        .filter((l) => l.endsWith(' configured'))
        .map((l) => l.replace(/ configured$/, ''))
        .sort(),
    ).toEqual([...configured].sort());
  const refused = [
    ...r.stderr.matchAll(
      /CustomResourceDefinition\.apiextensions\.k8s\.io "([^"]+)" is invalid: metadata\.annotations: Too long: must have at most 262144 bytes/g,
    ),
  ].map((m) => m[1]!);
  expect(refused.sort()).toEqual(tooLong);
  expect(r.stderr.match(/^(Error from server|error:)/gm) ?? []).toHaveLength(tooLong.length);
  expect(r.code).toBe(tooLong.length ? 1 : 0);
  return lines(r.stdout)
    .filter((l) => l.endsWith(' configured'))
    .join(',');
}

describe.concurrent('public install bundles', () => {
  it.for(BUNDLES)(
    '$name: apply, re-apply (nothing written), server-side, 1.27, client-side again, a custom resource, delete',
    { timeout: 240_000 },
    async (b, ctx) => {
      const { path, docs } = load(b);
      const { api: apiConfig, apiUrl } = on(b);
      const ns = b.namespace ? ['-n', b.namespace] : [];
      const tooLong = tooLongForClientSide(docs);
      if (b.namespace) expect((await kubectl(apiConfig, ['create', 'namespace', b.namespace])).code).toBe(0);
      const step = async (name: string, fn: () => Promise<string | void>) => {
        const t0 = Date.now();
        try {
          const note = await fn();
          record(b.name, name, true, `${Date.now() - t0}ms ${note ?? ''}`);
        } catch (e) {
          record(
            b.name,
            name,
            false,
            String((e as Error).message)
              .split('\n')[0]!
              .slice(0, 160),
          );
          throw e;
        }
      };

      await step('csa', async () => {
        const r = await kubectl(apiConfig, ['apply', ...ns, '-f', path], undefined, K);
        expectClientSide(r, tooLong, / created$/);
        expect(lines(r.stdout)).toHaveLength(docs.length - tooLong.length);
      });
      // the one writer besides kubectl here: the disruption controller's first status of a new PDB
      const pdbs = docs.filter((d) => d.kind === 'PodDisruptionBudget');
      const pdbPending = async () => {
        const out: string[] = [];
        for (const d of pdbs) {
          const o = (await client(apiUrl).get(`/apis/policy/v1/namespaces/${d.metadata.namespace ?? b.namespace}/poddisruptionbudgets/${d.metadata.name}`))
            .body;
          if (o.status?.observedGeneration !== o.metadata?.generation) out.push(d.metadata.name);
        }
        return out;
      };
      await ctx.expect.poll(pdbPending, { timeout: 30_000, interval: 100 }).toEqual([]);
      const first = await versions(apiUrl, docs, b.namespace);
      await step('csa-again', async () => {
        const r = await kubectl(apiConfig, ['apply', ...ns, '-f', path], undefined, K);
        const configured = expectClientSide(r, tooLong, / (unchanged|configured)$/, b.configured ?? []);
        expect(await versions(apiUrl, docs, b.namespace)).toEqual(first);
        return configured;
      });
      let all: string[] = [];
      await step('ssa', async () => {
        const r = await kubectl(apiConfig, ['apply', '--server-side', ...ns, '-f', path], undefined, K);
        expect(r.stderr).toBe('');
        expect(lines(r.stdout)).toHaveLength(docs.length);
        all = await versions(apiUrl, docs, b.namespace);
        // kubectl (since 1.26, migrateToSSAIfNecessary) first moves the kubectl-client-side-apply managedFields entry
        // to its Apply entry (csaupgrade): a metadata-only write, so resourceVersions move but no generation does;
        // only the objects client-side apply could not create are new
        const gen = (vs: string[]) => vs.map((v) => v.split(' ')).map(([o, , g]) => `${o} ${g}`);
        const created = all.filter((v) => !first.some((f) => f.split(' ')[0] === v.split(' ')[0]));
        expect(created.map((v) => v.split(' ')[0]!.split('/')[2]).sort()).toEqual(tooLong);
        expect(gen(all.filter((v) => !created.includes(v)))).toEqual(gen(first));
      });
      await step('1.27-ssa', async () => {
        // the same server-side apply by the older client: nothing written
        const r = await kubectl(apiConfig, ['apply', '--server-side', ...ns, '-f', path], undefined, K, { binary: K127 });
        expect(r.stderr).toBe('');
        expect(await versions(apiUrl, docs, b.namespace)).toEqual(all);
      });
      await step('csa-after-ssa', async () => {
        const r = await kubectl(apiConfig, ['apply', ...ns, '-f', path], undefined, K);
        const configured = expectClientSide(r, tooLong, / (unchanged|configured)$/, b.configured ?? []);
        expect(await versions(apiUrl, docs, b.namespace)).toEqual(all);
        return configured;
      });
      await step('1.27-csa', async () => {
        const r = await kubectl(apiConfig, ['apply', ...ns, '-f', path], undefined, K, { binary: K127 });
        const configured = expectClientSide(r, tooLong, / (unchanged|configured)$/, b.configured ?? []);
        expect(await versions(apiUrl, docs, b.namespace)).toEqual(all);
        return configured;
      });
      if (b.cr) {
        await step('custom-resource', async () => {
          if (b.webhooks) expect((await kubectl(apiConfig, ['delete', ...b.webhooks])).code).toBe(0);
          const r = await kubectl(apiConfig, ['create', '-f', '-'], b.cr!.yaml);
          expect(r.stdout.trim()).toMatch(/ created$/);
          if (b.cr!.warning) expect(r.stderr).toMatch(b.cr!.warning);
          else expect(r.stderr).toBe('');
          expect((await kubectl(apiConfig, ['delete', '-f', '-'], b.cr!.yaml)).code).toBe(0);
        });
      }
      await step('delete', async () => {
        const r = await kubectl(apiConfig, ['delete', ...ns, '-f', path, '--ignore-not-found', '--timeout=60s'], undefined, K);
        expect(withoutScopeWarning(r.stderr)).toBe('');
        if (b.namespace) expect((await kubectl(apiConfig, ['delete', 'namespace', b.namespace, '--timeout=60s'])).code).toBe(0);
        expect(await versions(apiUrl, docs, b.namespace)).toEqual([]);
      });
    },
  );

  it.for(BUNDLES)(
    '$name: installed server-side by kubectl 1.27 on simulated nodes, its workloads become ready; deleted, cleanup finishes',
    { timeout: 240_000 },
    async (b, ctx) => {
      const { path, docs } = load(b);
      const { live: liveConfig, liveUrl } = on(b);
      const ns = b.namespace ? ['-n', b.namespace] : [];
      if (b.namespace) expect((await kubectl(liveConfig, ['create', 'namespace', b.namespace])).code).toBe(0);
      const r = await kubectl(liveConfig, ['apply', '--server-side', ...ns, '-f', path], undefined, K, { binary: K127 });
      expect(r.stderr).toBe('');
      record(b.name, 'live-install', true);
      // ready: the controllers' own status, as `kubectl rollout status` reads it
      const c = client(liveUrl);
      const workloads = docs.filter((d) => ['Deployment', 'DaemonSet', 'StatefulSet'].includes(d.kind));
      expect(workloads.length).toBeGreaterThan(0);
      const notReady = async () => {
        const out: string[] = [];
        for (const w of workloads) {
          const o = (await c.get(`/apis/apps/v1/namespaces/${w.metadata.namespace ?? b.namespace}/${w.kind.toLowerCase()}s/${w.metadata.name}`)).body;
          const s = o.status ?? {};
          const replicas = o.spec?.replicas ?? 1;
          const ready =
            s.observedGeneration === o.metadata?.generation &&
            (w.kind === 'DaemonSet'
              ? s.desiredNumberScheduled > 0 && s.numberReady === s.desiredNumberScheduled
              : (s.readyReplicas ?? 0) === replicas && (w.kind !== 'Deployment' || s.availableReplicas === replicas));
          if (!ready) out.push(`${w.kind}/${w.metadata.name}`);
        }
        return out;
      };
      await ctx.expect.poll(notReady, { timeout: 60_000, interval: 200 }).toEqual([]);
      record(b.name, 'live-ready', true);
      // the namespace controller may remove namespaced objects before kubectl reaches them
      const d = await kubectl(liveConfig, ['delete', ...ns, '-f', path, '--ignore-not-found', '--timeout=60s'], undefined, K);
      expect(withoutScopeWarning(d.stderr)).toBe('');
      if (b.namespace) expect((await kubectl(liveConfig, ['delete', 'namespace', b.namespace, '--timeout=60s'])).code).toBe(0);
      expect(await versions(liveUrl, docs, b.namespace)).toEqual([]);
      record(b.name, 'live-cleanup', true);
    },
  );
});
