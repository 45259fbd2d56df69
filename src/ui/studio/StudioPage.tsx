// The config studio: author the server's configuration documents with a model-driven form kept in
// two-way sync with a schema-validated YAML editor, see every problem, try the result in
// playgrounds, and take the document away as a file.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type * as Monaco from 'monaco-editor';
import {
  CONFIG_JSON_SCHEMAS,
  CONFIG_KINDS,
  DEFAULT_TRACING_ENDPOINT,
  TYPE_MODELS,
  isConfigKind,
  parseConfigText,
  validateConfigDocument,
  type ConfigKind,
  type ConfigProblem,
} from '../../config/index.js';
import { MonacoDiff, MonacoEditor, registerYamlSchema } from '../monaco/index.js';
import { Link, navigate } from '../router.js';
import { AuthnPlayground } from './AuthnPlayground.js';
import { AuthzPlayground } from './AuthzPlayground.js';
import { ConfigForm, type FormApi } from './ConfigForm.js';
import { EncryptionPlayground } from './EncryptionPlayground.js';
import { copyText, downloadText, loadDraft, readFileText, saveDraft, withExportSpelling, type ExportSpelling } from './io.js';
import { problemMarkers, problemRange } from './markers.js';
import { ancestors } from './paths.js';
import { ProblemsPanel } from './ProblemsPanel.js';
import { EXPORT_FILE_NAMES, SERVER_FLAGS, starterText, templatesFor } from './templates.js';
import { editYamlText, normalizeImportedText, YamlEditError, type EditOp } from './yaml-edit.js';

export const STUDIO_KIND_LABELS: Record<ConfigKind, string> = {
  AdmissionConfiguration: 'Admission',
  AuthenticationConfiguration: 'Authentication',
  AuthorizationConfiguration: 'Authorization',
  EncryptionConfiguration: 'Encryption',
  TracingConfiguration: 'Tracing',
};

const HAS_PLAYGROUND: Partial<Record<ConfigKind, string>> = {
  AuthenticationConfiguration: 'Try a token',
  AuthorizationConfiguration: 'Try an access review',
  EncryptionConfiguration: 'Try a resource',
};

export const studioPath = (kind?: string) => (kind ? `/studio/${encodeURIComponent(kind)}` : '/studio');

const schemaUri = (kind: ConfigKind) => `inmemory://periscope/schemas/${kind}.json`;

export function StudioPage({ kind }: { kind?: string }) {
  useEffect(() => {
    document.title = `${kind && isConfigKind(kind) ? `${STUDIO_KIND_LABELS[kind]} · ` : ''}Config studio · Periscope`;
  }, [kind]);
  return (
    <div className="studio" data-testid="studio">
      <nav className="studio-kinds tabs" aria-label="Configuration kinds">
        <Link href={studioPath()} className={`tab${!kind ? ' active' : ''}`}>
          Config studio
        </Link>
        {CONFIG_KINDS.map((k) => (
          <Link key={k} href={studioPath(k)} className={`tab${k === kind ? ' active' : ''}`} data-testid={`studio-kind-${k}`} aria-current={k === kind ? 'page' : undefined}>
            {STUDIO_KIND_LABELS[k]}
          </Link>
        ))}
      </nav>
      {kind === undefined ? <StudioHome /> : isConfigKind(kind) ? <KindStudio key={kind} kind={kind} /> : <div className="state">No configuration kind {kind}.</div>}
    </div>
  );
}

function StudioHome() {
  return (
    <div className="studio-home">
      <p className="muted">
        Author the documents the API server reads at start (group <code>apiserver.config.service.io/v1</code>): a form generated from the configuration model, kept in sync with a YAML editor that
        validates against the same model, every problem listed as the server would report it, and playgrounds that run tokens, access reviews and resource names through the document.
      </p>
      <div className="tiles studio-tiles">
        {CONFIG_KINDS.map((k) => (
          <Link key={k} href={studioPath(k)} data-testid={`studio-tile-${k}`}>
            <strong>{k}</strong>
            <span className="muted small">{TYPE_MODELS[k].description}</span>
            <span className="muted small mono">{SERVER_FLAGS[k]}</span>
          </Link>
        ))}
      </div>
    </div>
  );
}

/** Kinds of other pages' documents found in imported text, to offer opening them there. */
function docKind(doc: unknown): string | undefined {
  const k = (doc as { kind?: unknown } | undefined)?.kind;
  return typeof k === 'string' ? k : undefined;
}

function KindStudio({ kind }: { kind: ConfigKind }) {
  const [text, setText] = useState(() => loadDraft(kind) ?? starterText(kind));
  /** The text as last loaded (page open, template, file, paste), for the Changes view. */
  const [baseline, setBaseline] = useState(text);
  const [rightTab, setRightTab] = useState<'yaml' | 'changes'>('yaml');
  const [tab, setTab] = useState<'form' | 'playground'>('form');
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<{ text: string; tone: 'ok' | 'bad' }>();
  const [spelling, setSpelling] = useState<ExportSpelling>('periscope');
  const [pasting, setPasting] = useState(false);
  const [revealed, setRevealed] = useState<number>();
  const editorRef = useRef<Monaco.editor.IStandaloneCodeEditor>(undefined);
  const formRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const lastGood = useRef<unknown>(undefined);

  useEffect(() => registerYamlSchema(schemaUri(kind), [], CONFIG_JSON_SCHEMAS[kind]), [kind]);
  useEffect(() => {
    const t = setTimeout(() => saveDraft(kind, text), 300);
    return () => clearTimeout(t);
  }, [kind, text]);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(undefined), 4000);
    return () => clearTimeout(t);
  }, [notice]);

  const parsed = useMemo(() => parseConfigText(text), [text]);
  if (parsed.doc !== undefined) lastGood.current = parsed.doc;
  const doc = parsed.doc ?? lastGood.current;
  const syntaxBroken = parsed.doc === undefined;
  const problems = useMemo<ConfigProblem[]>(() => [...parsed.problems, ...(parsed.doc !== undefined ? validateConfigDocument(parsed.doc) : [])], [parsed]);
  const byPath = useMemo(() => {
    const m = new Map<string, ConfigProblem[]>();
    for (const p of problems) m.set(p.path, [...(m.get(p.path) ?? []), p]);
    return m;
  }, [problems]);
  const markers = useMemo(() => problemMarkers(text, problems), [text, problems]);
  const otherKind = docKind(parsed.doc);

  const edit = useCallback((ops: EditOp[]) => {
    if (ops.length === 0) return;
    setText((t) => {
      try {
        return editYamlText(t, ops);
      } catch (err) {
        if (err instanceof YamlEditError) return t;
        throw err;
      }
    });
  }, []);

  const formApi: FormApi = useMemo(
    () => ({
      edit,
      problems: byPath,
      disabled: syntaxBroken,
      collapsed,
      toggle: (p) =>
        setCollapsed((s) => {
          const n = new Set(s);
          if (n.has(p)) n.delete(p);
          else n.add(p);
          return n;
        }),
    }),
    [edit, byPath, syntaxBroken, collapsed],
  );

  const revealInYaml = useCallback(
    (path: string, problem?: ConfigProblem) => {
      const range = problemRange(text, problem ?? { path, message: '', severity: 'error' });
      if (!range) return;
      setRightTab('yaml');
      setRevealed(range.line);
      const editor = editorRef.current;
      if (!editor) return;
      editor.revealLineInCenter(range.line);
      editor.setSelection({ startLineNumber: range.line, startColumn: range.column, endLineNumber: range.endLine, endColumn: Math.min(range.endColumn, 1e5) });
    },
    [text],
  );

  /** Opens the form on a path: expands its sections, scrolls to the nearest existing field, focuses it. */
  const focusInForm = useCallback((path: string) => {
    setTab('form');
    const chain = ancestors(path);
    setCollapsed((s) => (chain.some((c) => s.has(c)) ? new Set([...s].filter((c) => !chain.includes(c))) : s));
    // After the form has rendered the expanded sections.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const root = formRef.current;
        if (!root) return;
        for (const c of chain) {
          const el = root.querySelector<HTMLElement>(`[data-path="${CSS.escape(c)}"]`);
          if (!el) continue;
          el.scrollIntoView({ block: 'center' });
          const target = el.matches('input, select, textarea, button') ? el : el.querySelector<HTMLElement>('input:not([type=radio]), select, textarea, button.sf-add, button');
          (target ?? el).focus({ preventScroll: true });
          el.classList.remove('sf-flash');
          void el.offsetWidth; // restart the highlight animation
          el.classList.add('sf-flash');
          root.dataset.focusedPath = c;
          return;
        }
      }),
    );
  }, []);

  const jump = useCallback(
    (path: string, problem?: ConfigProblem) => {
      focusInForm(path);
      revealInYaml(path, problem);
    },
    [focusInForm, revealInYaml],
  );

  const importText = (raw: string, source: string) => {
    const normalized = normalizeImportedText(raw);
    const k = docKind(parseConfigText(normalized).doc);
    if (k && k !== kind && isConfigKind(k)) {
      saveDraft(k, normalized);
      setNotice({ text: `${source} holds a ${k}: opened on its page`, tone: 'ok' });
      navigate(studioPath(k));
      return;
    }
    setText(normalized);
    setBaseline(normalized);
    setNotice({ text: `${source} loaded`, tone: 'ok' });
  };

  const playground = HAS_PLAYGROUND[kind];
  const errors = problems.filter((p) => p.severity === 'error').length;

  return (
    <div className="studio-kind" data-kind={kind}>
      <div className="studio-toolbar toolbar">
        <label className="small">
          Template{' '}
          <select
            className="sf-select"
            data-testid="template-picker"
            value=""
            onChange={(e) => {
              const t = templatesFor(kind).find((x) => x.id === e.target.value);
              if (t) {
                const fresh = t.text();
                setText(fresh);
                setBaseline(fresh);
                setNotice({ text: `template "${t.title}" loaded`, tone: 'ok' });
              }
            }}
          >
            <option value="">start from…</option>
            {templatesFor(kind).map((t) => (
              <option key={t.id} value={t.id} title={t.description}>
                {t.title}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn small" data-testid="open-file" onClick={() => fileRef.current?.click()}>
          Open file…
        </button>
        <input
          ref={fileRef}
          type="file"
          accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml,text/plain"
          hidden
          data-testid="file-input"
          onChange={async (e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) importText(await readFileText(f), f.name);
          }}
        />
        <button type="button" className="btn small" data-testid="paste-open" onClick={() => setPasting(true)}>
          Paste…
        </button>
        <span className="toolbar-sep" />
        <label className="check small" title="A real kube-apiserver reads only apiserver.config.k8s.io; Periscope reads either">
          Export for{' '}
          <select value={spelling} onChange={(e) => setSpelling(e.target.value as ExportSpelling)} data-testid="export-spelling">
            <option value="periscope">Periscope (apiserver.config.service.io)</option>
            <option value="upstream">kube-apiserver (apiserver.config.k8s.io)</option>
          </select>
        </label>
        <button
          type="button"
          className="btn small"
          data-testid="copy-yaml"
          onClick={() =>
            copyText(withExportSpelling(text, spelling)).then(
              () => setNotice({ text: 'YAML copied to the clipboard', tone: 'ok' }),
              (err: unknown) => setNotice({ text: `copy failed: ${(err as Error).message}`, tone: 'bad' }),
            )
          }
        >
          Copy YAML
        </button>
        <button type="button" className="btn small" data-testid="download-yaml" onClick={() => downloadText(EXPORT_FILE_NAMES[kind], withExportSpelling(text, spelling))}>
          Download {EXPORT_FILE_NAMES[kind]}
        </button>
        <span className="spacer" />
        {notice && (
          <span className={`studio-notice small ${notice.tone}`} role="status" data-testid="studio-notice">
            {notice.text}
          </span>
        )}
        <span className={`pill ${errors === 0 ? 'cond-true' : 'cond-false'}`} data-testid="studio-status" data-errors={errors}>
          {errors === 0 ? 'valid' : `${errors} ${errors === 1 ? 'error' : 'errors'}`}
        </span>
      </div>
      {otherKind && otherKind !== kind && isConfigKind(otherKind) && (
        <div className="banner">
          This document is a {otherKind}.{' '}
          <Link href={studioPath(otherKind)} onClick={() => saveDraft(otherKind, text)}>
            Open it on the {STUDIO_KIND_LABELS[otherKind]} page
          </Link>
        </div>
      )}
      <div className="studio-body">
        <div className="studio-left">
          {playground && (
            <div className="tabs studio-tabs">
              <button type="button" className={`tab${tab === 'form' ? ' active' : ''}`} data-testid="tab-form" onClick={() => setTab('form')}>
                Form
              </button>
              <button type="button" className={`tab${tab === 'playground' ? ' active' : ''}`} data-testid="tab-playground" onClick={() => setTab('playground')}>
                Playground: {playground}
              </button>
            </div>
          )}
          <div className="studio-pane" ref={formRef}>
            {syntaxBroken && tab === 'form' && (
              <div className="banner banner-reconnecting" data-testid="form-locked">
                The YAML does not parse; the form shows the last readable version until it is fixed.
              </div>
            )}
            {kind === 'TracingConfiguration' && <TracingSummary doc={doc} />}
            {tab === 'form' || !playground ? (
              <ConfigForm kind={kind} doc={doc} api={formApi} />
            ) : kind === 'AuthenticationConfiguration' ? (
              <AuthnPlayground doc={doc} onJump={(p) => jump(p)} />
            ) : kind === 'AuthorizationConfiguration' ? (
              <AuthzPlayground doc={doc} onJump={(p) => jump(p)} />
            ) : (
              <EncryptionPlayground doc={doc} onJump={(p) => jump(p)} />
            )}
          </div>
        </div>
        <div className="studio-right">
          <div className="tabs studio-tabs">
            <button type="button" className={`tab${rightTab === 'yaml' ? ' active' : ''}`} data-testid="tab-yaml" onClick={() => setRightTab('yaml')}>
              YAML
            </button>
            <button type="button" className={`tab${rightTab === 'changes' ? ' active' : ''}`} data-testid="tab-changes" onClick={() => setRightTab('changes')}>
              Changes{text === baseline ? '' : ' •'}
            </button>
          </div>
          {rightTab === 'changes' && (
            <div className="studio-yaml" data-testid="studio-changes">
              <MonacoDiff original={baseline} modified={text} language="yaml" testId="changes-diff" sideBySide={false} />
            </div>
          )}
          <div className="studio-yaml" data-testid="studio-yaml" data-revealed-line={revealed} hidden={rightTab !== 'yaml'}>
            <MonacoEditor
              value={text}
              onChange={setText}
              language="yaml"
              fileName={`${kind}.yaml`}
              schemaUri={schemaUri(kind)}
              markers={markers}
              ariaLabel={`${kind} YAML`}
              testId="yaml-editor"
              onMount={(ed) => (editorRef.current = ed)}
            />
          </div>
          <ProblemsPanel problems={problems} onSelect={(p) => jump(p.path, p)} />
          <div className="studio-flag muted small">
            Start the server with <code>{SERVER_FLAGS[kind]}={EXPORT_FILE_NAMES[kind]}</code>
          </div>
        </div>
      </div>
      {pasting && <PasteDialog onClose={() => setPasting(false)} onUse={(t) => (setPasting(false), importText(t, 'pasted text'))} />}
    </div>
  );
}

/** What a tracing document amounts to, in words. */
function TracingSummary({ doc }: { doc: unknown }) {
  const d = (doc ?? {}) as { endpoint?: unknown; samplingRatePerMillion?: unknown };
  const endpoint = typeof d.endpoint === 'string' && d.endpoint !== '' ? d.endpoint : `${DEFAULT_TRACING_ENDPOINT} (default)`;
  const rate = d.samplingRatePerMillion;
  const sampling =
    typeof rate === 'number'
      ? `${rate.toLocaleString('en-US')} of every million requests without a sampled parent span (${(rate / 10_000).toLocaleString('en-US', { maximumFractionDigits: 4 })}%)`
      : 'only requests whose parent span is sampled';
  return (
    <div className="banner studio-summary" data-testid="tracing-summary">
      Spans go to <code>{endpoint}</code> over plain gRPC; sampled: {sampling}.
    </div>
  );
}

function PasteDialog({ onClose, onUse }: { onClose: () => void; onUse: (text: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <div className="overlay" role="dialog" aria-label="Paste a document" onClick={onClose}>
      <div className="dialog studio-paste" onClick={(e) => e.stopPropagation()}>
        <h3>Paste a document</h3>
        <p className="muted small">YAML or JSON. It replaces the document being edited (undo in the YAML editor brings it back).</p>
        <textarea className="sf-input mono" rows={14} autoFocus value={value} spellCheck={false} data-testid="paste-text" onChange={(e) => setValue(e.target.value)} />
        <div className="sf-row">
          <span className="spacer" />
          <button type="button" className="btn small" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn small primary" data-testid="paste-use" disabled={value.trim() === ''} onClick={() => onUse(value)}>
            Use this document
          </button>
        </div>
      </div>
    </div>
  );
}
