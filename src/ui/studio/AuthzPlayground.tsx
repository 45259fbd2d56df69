// Authorization playground: a SubjectAccessReview (built in a small form or written as YAML)
// walked through the authorizer chain, with each match condition's result.
import { useMemo, useState } from 'react';
import { parse as parseYaml } from 'yaml';
import { explainAuthorization, SAMPLE_SUBJECT_ACCESS_REVIEW } from '../../config/playground/index.js';
import { toYaml } from './yaml-edit.js';

type Jump = (path: string) => void;

interface ReviewForm {
  user: string;
  groups: string;
  mode: 'resource' | 'nonResource';
  verb: string;
  namespace: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

const INITIAL: ReviewForm = {
  user: SAMPLE_SUBJECT_ACCESS_REVIEW.spec.user,
  groups: SAMPLE_SUBJECT_ACCESS_REVIEW.spec.groups.join(', '),
  mode: 'resource',
  verb: 'get',
  namespace: 'kube-system',
  group: '',
  version: 'v1',
  resource: 'secrets',
  subresource: '',
  name: 'db-password',
  path: '/healthz',
};

/** The review as the API sends it: empty optional strings are left out (omitempty). */
function reviewFrom(f: ReviewForm): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (f.user) spec.user = f.user;
  const groups = f.groups.split(',').map((g) => g.trim()).filter(Boolean);
  if (groups.length > 0) spec.groups = groups;
  if (f.mode === 'resource') {
    const ra: Record<string, string> = {};
    for (const k of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const) if (f[k]) ra[k] = f[k];
    spec.resourceAttributes = ra;
  } else spec.nonResourceAttributes = { path: f.path, verb: f.verb };
  return { apiVersion: SAMPLE_SUBJECT_ACCESS_REVIEW.apiVersion, kind: 'SubjectAccessReview', spec };
}

function formFrom(review: unknown, prev: ReviewForm): ReviewForm {
  const spec = ((review as { spec?: unknown })?.spec ?? review ?? {}) as Record<string, unknown>;
  const ra = (spec.resourceAttributes ?? undefined) as Record<string, unknown> | undefined;
  const nra = (spec.nonResourceAttributes ?? undefined) as Record<string, unknown> | undefined;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    ...prev,
    user: s(spec.user),
    groups: Array.isArray(spec.groups) ? spec.groups.join(', ') : '',
    mode: nra && !ra ? 'nonResource' : 'resource',
    verb: s(ra?.verb ?? nra?.verb),
    namespace: s(ra?.namespace),
    group: s(ra?.group),
    version: s(ra?.version),
    resource: s(ra?.resource),
    subresource: s(ra?.subresource),
    name: s(ra?.name),
    path: s(nra?.path) || prev.path,
  };
}

const VERDICT_LABEL: Record<string, string> = {
  allow: 'allows',
  deny: 'denies',
  sent: 'selected',
  skipped: 'not selected',
  'error-deny': 'error → deny',
  'error-no-opinion': 'error → no opinion',
  consulted: 'consulted',
  unreached: 'not reached',
};

export function AuthzPlayground({ doc, onJump }: { doc: unknown; onJump: Jump }) {
  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [form, setForm] = useState<ReviewForm>(INITIAL);
  const [yamlText, setYamlText] = useState(() => toYaml(reviewFrom(INITIAL)));

  const { review, yamlError } = useMemo((): { review: unknown; yamlError?: string } => {
    if (mode === 'form') return { review: reviewFrom(form) };
    try {
      return { review: parseYaml(yamlText) as unknown };
    } catch (err) {
      return { review: undefined, yamlError: (err as Error).message.split('\n')[0] };
    }
  }, [mode, form, yamlText]);
  const result = useMemo(() => (review === undefined ? undefined : explainAuthorization(doc, review)), [doc, review]);
  const field = (k: keyof ReviewForm, label: string) => (
    <label className="pg-field">
      <span className="small muted">{label}</span>
      <input className="sf-input mono" value={form[k]} spellCheck={false} data-testid={`sar-${k}`} onChange={(e) => setForm({ ...form, [k]: e.target.value })} />
    </label>
  );

  return (
    <div className="playground" data-testid="authz-playground">
      <p className="muted small">
        Each webhook&apos;s match conditions are evaluated against the review&apos;s spec as <code>request</code>. A false condition skips the webhook; an error applies its failurePolicy. Missing fields raise
        &ldquo;No such key&rdquo; as on the server: guard them with <code>has()</code>.
      </p>
      <div className="tabs pg-tabs">
        <button type="button" className={`tab${mode === 'form' ? ' active' : ''}`} data-testid="sar-mode-form" onClick={() => mode === 'yaml' && (setForm(formFrom(review, form)), setMode('form'))}>
          Form
        </button>
        <button type="button" className={`tab${mode === 'yaml' ? ' active' : ''}`} data-testid="sar-mode-yaml" onClick={() => mode === 'form' && (setYamlText(toYaml(reviewFrom(form))), setMode('yaml'))}>
          YAML
        </button>
      </div>
      {mode === 'form' ? (
        <div className="pg-block pg-sar-form">
          <div className="pg-grid">
            {field('user', 'user')}
            {field('groups', 'groups (comma-separated)')}
          </div>
          <div className="sf-variants" role="radiogroup" aria-label="Request kind">
            <label className={`sf-variant${form.mode === 'resource' ? ' active' : ''}`}>
              <input type="radio" checked={form.mode === 'resource'} onChange={() => setForm({ ...form, mode: 'resource' })} data-testid="sar-resource" />
              Resource request
            </label>
            <label className={`sf-variant${form.mode === 'nonResource' ? ' active' : ''}`}>
              <input type="radio" checked={form.mode === 'nonResource'} onChange={() => setForm({ ...form, mode: 'nonResource' })} data-testid="sar-non-resource" />
              Non-resource request
            </label>
          </div>
          <div className="pg-grid">
            {field('verb', 'verb')}
            {form.mode === 'resource' ? (
              <>
                {field('namespace', 'namespace')}
                {field('group', 'group (empty for core)')}
                {field('version', 'version')}
                {field('resource', 'resource')}
                {field('subresource', 'subresource')}
                {field('name', 'name')}
              </>
            ) : (
              field('path', 'path')
            )}
          </div>
        </div>
      ) : (
        <div className="pg-block">
          <textarea className="sf-input mono" rows={12} value={yamlText} spellCheck={false} data-testid="sar-yaml" aria-label="SubjectAccessReview YAML" onChange={(e) => setYamlText(e.target.value)} />
          {yamlError && <div className="bad small">{yamlError}</div>}
        </div>
      )}
      {result && (
        <div className="pg-result" data-testid="authz-result">
          {result.requestProblems.length > 0 && (
            <ul className="pg-notes small warn">
              {result.requestProblems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          <div className="pg-summary" data-testid="authz-summary">
            {result.summary}
          </div>
          <ol className="pg-steps">
            {result.steps.map((s) => (
              <li key={s.index} className={`pg-step pg-${s.verdict}`} data-testid="authz-step" data-name={s.name} data-verdict={s.verdict}>
                <div className="pg-step-head">
                  <span className="pill">{VERDICT_LABEL[s.verdict]}</span> <strong>{s.name || '(unnamed)'}</strong> <span className="muted">{s.type}</span>{' '}
                  <button type="button" className="link mono small" onClick={() => onJump(s.path)}>
                    {s.path}
                  </button>
                </div>
                <div className="small">{s.detail}</div>
                {s.conditions.length > 0 && (
                  <table className="simple pg-table">
                    <tbody>
                      {s.conditions.map((c, i) => (
                        <tr key={i} className={`pg-cond-${c.status}`} data-testid="condition" data-status={c.status}>
                          <td className="pg-icon">{c.status === 'true' ? '✓' : c.status === 'false' ? '✗' : '!'}</td>
                          <td className="mono">{c.expression}</td>
                          <td>{c.status === 'error' ? c.detail : c.status}</td>
                          <td>
                            <button type="button" className="link mono small" onClick={() => onJump(c.path)}>
                              {c.path}
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}
