// Editing one object in Monaco. By default like `kubectl edit`: the live object, saved as a patch of
// the user's changes with a resourceVersion precondition. Explicit modes send server-side apply, merge
// patch, JSON patch, strategic merge patch or replace. Every save is a dry run first.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, apiVersionOf, type ApiResource, type Discovery, type KubeObject, type ResourceRef } from '../../client/index.js';
import { useObjectReader } from '../data/queries.js';
import { describeError, TraceId } from '../components/ErrorState.js';
import { applyMergePatch, createMergePatch, withoutPath } from '../lib/patches.js';
import { quietRebase } from './quiet-rebase.js';
import { draftStore } from './drafts.js';
import { MonacoEditor, type EditorMarker } from '../monaco/index.js';
import { ApplyConflictsPanel, RebasePanel } from './ConflictPanels.js';
import { ParseError, applyConfiguration, editableObject, isObject, parseText, printObject, withTypeFirst, type TextFormat } from './documents.js';
import { concretePath, extractOwned, parseFieldPath } from './field-paths.js';
import { useIsCustomResource, useKindSchema } from './kind-schema.js';
import { markersFor } from './locate.js';
import { attachJsonSchema, managerColours, useOwnersOverlay, type MountedEditor } from './overlays.js';
import { ReviewDialog } from './ReviewDialog.js';
import { FIELD_MANAGER, MODE_LABEL, applyConflicts, buildWrite, computePatch, editPatchMode, errorText, isStaleConflict, type ApplyConflict, type EditMode, type FieldValidation, type PatchMode } from './requests.js';
import { FieldValidationSelect } from './FieldValidationSelect.js';
import { useWriteFlow, type Failure, type WriteContext } from './write-flow.js';
import { useAccess } from '../data/permissions.js';

type ApplyScope = 'object' | 'owned';

const MODES: EditMode[] = ['edit', 'apply', 'merge', 'json', 'strategic', 'replace'];

const MODE_HINT: Record<EditMode, string> = {
  edit: 'Edit the object as kubectl edit does: your changes are saved as a patch against the version you started from (strategic merge for built-in kinds, JSON merge for custom resources), refused if someone changed the object since.',
  apply: `Server-side apply as "${FIELD_MANAGER}": the YAML is your configuration; fields set to values another manager owns conflict unless forced.`,
  merge: 'Edit the object: the JSON merge patch from your changes is computed on the right and sent (lists are replaced whole).',
  json: 'Edit the object: RFC 6902 operations are generated on the right, with test ops guarding the old values; the ops are editable.',
  strategic: 'Edit the object: lists merge by their keys (containers by name, ports by port…); the patch is computed on the right.',
  replace: 'PUT the whole object with its resourceVersion: if anyone changed it since, the server refuses (409) and you can rebase.',
};

/** The document each mode edits, for one version of the object. */
function initialFor(mode: EditMode, obj: KubeObject, scope: ApplyScope): unknown {
  if (mode !== 'apply') return editableObject(obj);
  if (scope === 'object') return applyConfiguration(obj);
  const mine = obj.metadata?.managedFields?.find((e) => e.manager === FIELD_MANAGER && e.operation === 'Apply');
  const owned = (mine ? extractOwned(obj, mine.fieldsV1) : {}) as Record<string, unknown>;
  const meta = isObject(owned.metadata) ? owned.metadata : {};
  const id = { name: obj.metadata?.name, ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}) };
  return { apiVersion: obj.apiVersion, kind: obj.kind, ...owned, metadata: { ...id, ...meta } };
}

/** Moves the edits made to one starting document onto another (switching mode or apply scope). */
function carryEdits(fromInitial: unknown, edited: unknown, toInitial: unknown): unknown {
  return applyMergePatch(toInitial, createMergePatch(fromInitial, edited));
}

interface Props {
  info: ApiResource;
  /** The object as the watch reports it now. */
  object: KubeObject;
  discovery: Discovery;
}

export function EditorView({ info, object: live, discovery }: Props) {
  const typed = useCallback((o: KubeObject) => withTypeFirst(o, apiVersionOf(info.group, info.version), info.kind), [info]);
  const object = useMemo(() => typed(live), [typed, live]);
  const ref: ResourceRef = useMemo(
    () => ({ group: info.group, version: info.version, resource: info.resource, namespace: object.metadata?.namespace, name: object.metadata?.name }),
    [info, object.metadata?.namespace, object.metadata?.name],
  );
  const crdTypes = useMemo(() => discovery.resources.filter((r) => r.resource === 'customresourcedefinitions' && r.preferred && r.verbs.includes('watch')), [discovery]);
  const isCustom = useIsCustomResource(info, crdTypes);
  const { schema } = useKindSchema(info);
  // replace is an update, every other mode a patch: a mode whose verb the user lacks is disabled
  const access = useAccess(info, object.metadata?.namespace);
  const verbOf = (m: EditMode) => (m === 'replace' ? 'update' : 'patch');
  const lacks = (m: EditMode) => access.can(verbOf(m), { name: object.metadata?.name }) === false;

  const uid = object.metadata?.uid;
  const [draft] = useState(() => draftStore.get(uid));
  const [mode, setMode] = useState<EditMode>((draft?.mode as EditMode) ?? 'edit');
  const [scope, setScope] = useState<ApplyScope>((draft?.scope as ApplyScope) ?? 'object');
  const [format, setFormat] = useState<TextFormat>(draft?.format ?? 'yaml');
  const [base, setBase] = useState<KubeObject>((draft?.base as KubeObject) ?? object);
  const [text, setText] = useState(() => draft?.text ?? printObject(initialFor('edit', object, 'object'), 'yaml'));
  // the draft is kept while it differs from the version it is based on
  const pristine = useMemo(() => printObject(initialFor(mode, base, scope), format), [mode, base, scope, format]);
  useEffect(() => {
    if (text === pristine) draftStore.drop(uid);
    else {
      const objectPath = window.location.pathname.replace(/\/[^/]*$/, '');
      draftStore.set(uid, { objectPath, label: `${info.kind} ${object.metadata?.name}`, text, mode, scope, format, base });
    }
  }, [text, pristine, uid, mode, scope, format, base, info.kind, object.metadata?.name]);
  const [patchDraft, setPatchDraft] = useState<string>();
  const [fieldValidation, setFieldValidation] = useState<FieldValidation>('Strict');
  const [force, setForce] = useState(false);
  const [guardRv, setGuardRv] = useState(true);
  const [showOwners, setShowOwners] = useState(false);
  const [conflicts, setConflicts] = useState<ApplyConflict[]>();
  const [rebase, setRebase] = useState<{ theirs: KubeObject; reason: string }>();
  const [saved, setSaved] = useState<{ rv?: string; warnings: string[] }>();
  const [mounted, setMounted] = useState<MountedEditor>();
  // resourceVersions this editor has based on or written: the watch reporting them is no news
  const known = useRef(new Set<string | undefined>([object.metadata?.resourceVersion]));
  const [, bump] = useState(0);

  const parsed = useMemo((): { value?: unknown; error?: ParseError } => {
    try {
      return { value: parseText(text, format) };
    } catch (e) {
      return { error: e instanceof ParseError ? e : new ParseError(String(e)) };
    }
  }, [text, format]);

  // the patch type sent: the edit mode's own, or the one Edit picks for the kind
  const sentPatch: PatchMode | undefined = mode === 'edit' ? (isCustom === undefined ? undefined : editPatchMode(isCustom)) : mode === 'merge' || mode === 'json' || mode === 'strategic' ? mode : undefined;
  const patchMode = mode === 'merge' || mode === 'json' || mode === 'strategic';
  const computed = useMemo(() => {
    if (!sentPatch || parsed.value === undefined) return undefined;
    try {
      const p = computePatch(sentPatch, initialFor(mode, base, scope) as KubeObject, parsed.value, { guardResourceVersion: mode === 'edit' || guardRv, schema: schema?.patchSchema });
      return JSON.stringify(p, null, 2);
    } catch (e) {
      return `// ${(e as Error).message}`;
    }
  }, [sentPatch, mode, parsed.value, base, scope, guardRv, schema]);
  const patchText = (patchMode ? patchDraft : undefined) ?? computed ?? '';
  const emptyPatch = !!sentPatch && /^(\{\}|\[\])$/.test(patchText.replace(/\s/g, ''));

  const [quietNote, setQuietNote] = useState<string>();
  const readObject = useObjectReader();
  // what a quiet rebase reads; kept in a ref so the write flow's callbacks see the current edit
  const current = useRef({ mode, base, scope, format, patchDraft: undefined as string | undefined });
  current.current = { mode, base, scope, format, patchDraft: mode === 'merge' || mode === 'json' || mode === 'strategic' ? patchDraft : undefined };

  /**
   * Moves the edit onto `next` when the server's change touches none of the edited fields (any mode:
   * Edit, apply, the patch modes, replace); returns the note to show, or undefined on an overlap. A JSON
   * patch the user wrote by hand is theirs to rebase: never silently.
   */
  const quietlyRebase = useCallback(
    (edited: unknown, next: KubeObject): string | undefined => {
      const { mode: m, base: b, scope: sc, format: f, patchDraft: pd } = current.current;
      if (pd !== undefined) return undefined;
      const r = quietRebase(initialFor(m, b, sc), edited, initialFor(m, next, sc));
      if (!r) return undefined;
      const rv = next.metadata?.resourceVersion;
      known.current.add(rv);
      setBase(next);
      setText(printObject(r.merged, f));
      const fields = r.theirs.filter((x) => x !== 'metadata.resourceVersion');
      return `Moved your edit onto resourceVersion ${rv}${fields.length ? `: the server changed ${fields.slice(0, 3).join(', ')}${fields.length > 3 ? ` and ${fields.length - 3} more` : ''}, none of the fields you edited` : ''}.`;
    },
    [],
  );

  const onSpecialError = useCallback(
    async (error: unknown, ctx: WriteContext): Promise<false | { markers?: EditorMarker[] }> => {
      const c = applyConflicts(error);
      if (c.length) {
        setConflicts(c);
        const placed = markersFor(ctx.text, c.map((x) => ({ field: x.field, message: `conflict: owned by "${x.manager}"`, severity: 'warning' as const })));
        return { markers: placed.markers.map((m) => ({ line: m.startLine, column: m.startColumn, endColumn: m.endColumn, message: m.message, severity: 'warning', source: 'apply' })) };
      }
      if (isStaleConflict(error)) {
        try {
          // the object moved between the review and the save: disjoint changes (controllers writing
          // status) move the edit on, to review again; an overlap opens the conflict view
          const theirs = typed(await readObject(ref));
          let edited: unknown;
          try {
            edited = parseText(ctx.text, current.current.format);
          } catch {
            edited = undefined;
          }
          const note = edited === undefined ? undefined : quietlyRebase(edited, theirs);
          if (note) {
            setQuietNote(`${note} Review again to save.`);
            return {};
          }
          setRebase({ theirs, reason: `The server refused the write: ${(error as Error).message}` });
          return {};
        } catch {
          return false;
        }
      }
      return false;
    },
    [readObject, ref, typed, quietlyRebase],
  );

  const onSaved = useCallback(
    (result: KubeObject | undefined, warnings: string[]) => {
      if (result) {
        const full = typed(result);
        known.current.add(result.metadata?.resourceVersion);
        setBase(full);
        setText(printObject(initialFor(mode, full, scope), format));
      }
      setPatchDraft(undefined);
      setForce(false);
      setSaved({ rv: result?.metadata?.resourceVersion, warnings });
    },
    [mode, scope, format, typed],
  );

  const flow = useWriteFlow({ onSpecialError, onSaved });

  /** Dry-runs the current edit (or, from the conflict panel, an edited text or forced apply). */
  const review = (over: { text?: string; force?: boolean } = {}) => {
    // what the editor shows is what is reviewed: the model, should React not have caught up with it yet
    const shown = mounted?.editor.getValue();
    const t = over.text ?? (shown !== undefined && shown !== text && (mode === 'apply' || mode === 'replace') ? shown : text);
    setConflicts(undefined);
    setRebase(undefined);
    setSaved(undefined);
    let body = t;
    let ctx: WriteContext = { text: t };
    if (mode === 'replace') body = JSON.stringify(parseText(t, format));
    else if (mode !== 'apply') {
      body = patchText;
      ctx = { text: t, patchText: body };
    }
    const kind = mode === 'edit' ? sentPatch : mode;
    if (!kind) return;
    void flow.dryRun(buildWrite(kind, ref, body, { fieldValidation, force: over.force ?? force }), ctx);
  };

  const resetTo = (m: EditMode, sc: ApplyScope, f: TextFormat, carry: boolean) => {
    const next = initialFor(m, base, sc);
    const value = carry && parsed.value !== undefined ? carryEdits(initialFor(mode, base, scope), parsed.value, next) : next;
    setText(printObject(value, f));
    setPatchDraft(undefined);
    setConflicts(undefined);
    setRebase(undefined);
    flow.clear();
  };

  const switchMode = (m: EditMode) => {
    if (m === mode) return;
    resetTo(m, scope, format, true);
    setMode(m);
  };
  const switchScope = (sc: ApplyScope) => {
    resetTo(mode, sc, format, true);
    setScope(sc);
  };
  const switchFormat = (f: TextFormat) => {
    if (f === format || parsed.value === undefined) return;
    setText(printObject(parsed.value, f));
    setFormat(f);
  };

  const dropConflicting = () => {
    if (!conflicts || parsed.value === undefined) return;
    let v: unknown = parsed.value;
    for (const c of conflicts) {
      const path = concretePath(v, parseFieldPath(c.field));
      if (path) v = withoutPath(v, path);
    }
    const t = printObject(v, format);
    setText(t);
    review({ text: t });
  };
  const forceApply = () => {
    setForce(true);
    review({ force: true });
  };

  // live awareness: the watch saw a version this editor did not start from or write
  const liveRv = object.metadata?.resourceVersion;
  // (not while a write is in flight: its own watch event may arrive before its answer)
  const changedOnServer = !!liveRv && liveRv !== base.metadata?.resourceVersion && !known.current.has(liveRv) && !flow.busy;

  // a server change that touches none of the edited fields (controllers writing status, someone's label)
  // moves the edit onto the new version with a quiet note; only an overlap keeps the banner and diff
  useEffect(() => {
    // every mode: Edit, apply, the patch modes and replace (a hand-written JSON patch excepted)
    if (!changedOnServer || rebase || flow.review || parsed.value === undefined) return;
    const note = quietlyRebase(parsed.value, object);
    if (note) setQuietNote(note);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [changedOnServer, liveRv, rebase, flow.review]);

  const onRebase = (merged: unknown, theirs: KubeObject) => {
    known.current.add(theirs.metadata?.resourceVersion);
    setBase(theirs);
    setText(printObject(merged, format));
    setPatchDraft(undefined);
    setRebase(undefined);
    flow.clear();
  };
  const onTakeTheirs = (theirs: KubeObject) => {
    known.current.add(theirs.metadata?.resourceVersion);
    setBase(theirs);
    setText(printObject(initialFor(mode, theirs, scope), format));
    setPatchDraft(undefined);
    setRebase(undefined);
    flow.clear();
  };

  useOwnersOverlay(mounted, text, base.metadata?.managedFields, showOwners);
  // bring the first field the server named into view
  const firstPlaced = flow.failure?.placed[0]?.line;
  useEffect(() => {
    if (!firstPlaced || !mounted) return;
    // the error banner just took room above the editor: measure before scrolling
    mounted.editor.layout();
    mounted.editor.revealLineInCenter(firstPlaced);
  }, [firstPlaced, flow.failure, mounted]);
  useEffect(() => {
    if (!mounted || format !== 'json' || !schema) return;
    return attachJsonSchema(mounted.monaco, mounted.editor.getModel(), schema.uri, schema.jsonSchema);
  }, [mounted, format, schema]);

  const parseMarkers: EditorMarker[] = parsed.error?.line ? [{ line: parsed.error.line, column: parsed.error.column, message: parsed.error.message, severity: 'error', source: 'parse' }] : [];
  const bufferMarkers = useMemo(() => [...parseMarkers, ...flow.markers], [parsed.error, flow.markers]); // eslint-disable-line react-hooks/exhaustive-deps
  const strategicBlocked = isCustom !== false;
  const reviewBlocked =
    !!parsed.error || flow.busy || (!!sentPatch && (emptyPatch || patchText.startsWith('//'))) || (mode === 'strategic' && strategicBlocked) || (mode === 'edit' && !sentPatch);
  const colours = useMemo(() => managerColours(base.metadata?.managedFields), [base.metadata?.managedFields]);
  const reviewShown = useMemo(() => flow.review && { ...flow.review, result: flow.review.result && typed(flow.review.result) }, [flow.review, typed]);

  return (
    <div className="editor-view" data-testid="editor-view" data-mode={mode}>
      <div className="editor-toolbar">
        <div className="segmented" role="radiogroup" aria-label="Edit mode">
          {MODES.map((m) => (
            <button
              key={m}
              role="radio"
              aria-checked={m === mode}
              className={m === mode ? 'seg active' : 'seg'}
              data-testid={`edit-mode-${m}`}
              disabled={(m === 'strategic' && strategicBlocked) || lacks(m)}
              title={
                lacks(m)
                  ? access.missing(verbOf(m), { name: object.metadata?.name })
                  : m === 'strategic' && strategicBlocked
                    ? isCustom
                      ? 'Custom resources take no strategic merge patches (the server answers 415)'
                      : 'Checking the type…'
                    : MODE_HINT[m]
              }
              onClick={() => switchMode(m)}
            >
              {MODE_LABEL[m]}
            </button>
          ))}
        </div>
        <div className="segmented" role="radiogroup" aria-label="Format">
          {(['yaml', 'json'] as const).map((f) => (
            <button key={f} role="radio" aria-checked={f === format} className={f === format ? 'seg active' : 'seg'} data-testid={`edit-format-${f}`} onClick={() => switchFormat(f)} disabled={!!parsed.error}>
              {f.toUpperCase()}
            </button>
          ))}
        </div>
        <FieldValidationSelect value={fieldValidation} onChange={setFieldValidation} />
        {mode === 'apply' && (
          <>
            <label className="check" title="Take ownership of fields other managers own">
              <input type="checkbox" data-testid="apply-force" checked={force} onChange={(e) => setForce(e.target.checked)} /> force
            </label>
            <label className="check" title="What the configuration starts from">
              start from
              <select data-testid="apply-scope" value={scope} onChange={(e) => switchScope(e.target.value as ApplyScope)}>
                <option value="object">the whole object</option>
                <option value="owned">the fields {FIELD_MANAGER} owns</option>
              </select>
            </label>
          </>
        )}
        {patchMode && (
          <label className="check" title="Make the patch fail if the object changed since you loaded it">
            <input type="checkbox" data-testid="guard-rv" checked={guardRv} onChange={(e) => setGuardRv(e.target.checked)} /> lock on resourceVersion
          </label>
        )}
        <label className="check" title="Gutter marks: which manager owns each field">
          <input type="checkbox" data-testid="owners-toggle" checked={showOwners} onChange={(e) => setShowOwners(e.target.checked)} /> owners
        </label>
        <span className="spacer" />
        <button className="btn" data-testid="reset-edit" onClick={() => resetTo(mode, scope, format, false)} disabled={flow.busy}>
          Reset
        </button>
        <button className="btn primary" data-testid="review-button" onClick={() => review()} disabled={reviewBlocked} title="Send with dryRun=All and preview the result">
          {flow.busy ? 'Asking the server…' : 'Review (dry run)'}
        </button>
      </div>
      <div className="muted small mode-hint">
        {MODE_HINT[mode]} Base: resourceVersion <span className="mono" data-testid="edit-base-rv">{base.metadata?.resourceVersion}</span>.
        {mode === 'edit' && (
          <span data-testid="edit-status">
            {' '}
            {!sentPatch ? 'Checking the type…' : emptyPatch ? 'No changes yet.' : `Changes found: a ${sentPatch === 'strategic' ? 'strategic merge' : 'JSON merge'} patch will be sent.`}
          </span>
        )}
      </div>

      {object.metadata?.deletionTimestamp && (
        <div className="banner banner-deleting" data-testid="edit-deleting">
          Being deleted since {object.metadata.deletionTimestamp}
          {object.metadata.finalizers?.length ? `; waiting for finalizers: ${object.metadata.finalizers.join(', ')}` : ''}. Edits can still remove finalizers; new ones cannot be added.
        </div>
      )}
      {quietNote && !changedOnServer && (
        <div className="muted small" data-testid="quiet-rebase" role="status">
          {quietNote}
        </div>
      )}
      {changedOnServer && !rebase && (
        <div className="banner banner-warn" data-testid="live-changed">
          This object changed on the server while you were editing (resourceVersion {base.metadata?.resourceVersion} → {liveRv}).
          <button className="btn small" data-testid="live-diff" onClick={() => setRebase({ theirs: object, reason: 'A watch reported a newer version of the object.' })}>
            See the diff and rebase
          </button>
          <button
            className="link small"
            onClick={() => {
              known.current.add(liveRv);
              bump((n) => n + 1);
            }}
          >
            ignore
          </button>
        </div>
      )}
      {saved && (
        <div className="banner banner-ok" data-testid="saved-banner">
          Saved{saved.rv ? ` · resourceVersion ${saved.rv}` : ''}.{saved.warnings.length ? ` Warnings: ${saved.warnings.join('; ')}` : ''}
        </div>
      )}
      {parsed.error && (
        <div className="banner banner-error" data-testid="parse-error">
          {format.toUpperCase()} syntax: {parsed.error.message}
          {parsed.error.line ? ` (line ${parsed.error.line})` : ''}
        </div>
      )}
      {flow.failure && <FailureBanner failure={flow.failure} onClose={flow.clear} onReveal={(line) => mounted?.editor.revealLineInCenter(line)} />}
      {conflicts && <ApplyConflictsPanel conflicts={conflicts} busy={flow.busy} onForce={forceApply} onDrop={dropConflicting} onClose={() => setConflicts(undefined)} />}
      {rebase && parsed.value !== undefined && (
        <RebasePanel
          base={initialFor(mode, base, scope)}
          yours={parsed.value}
          theirs={initialFor(mode, rebase.theirs, scope)}
          format={format}
          reason={rebase.reason}
          onRebase={(merged) => onRebase(merged, rebase.theirs)}
          onTakeTheirs={() => onTakeTheirs(rebase.theirs)}
          onClose={() => setRebase(undefined)}
        />
      )}

      <div className={patchMode ? 'editor-panes split' : 'editor-panes'}>
        <div className="editor-pane">
          <div className="pane-title">{mode === 'apply' ? 'Your configuration' : 'The object'}</div>
          <MonacoEditor
            key={format}
            value={text}
            onChange={setText}
            language={format}
            fileName={`${info.kind}-${object.metadata?.name ?? ''}`}
            schemaUri={schema?.uri}
            markers={bufferMarkers}
            markerOwner="periscope-edit"
            testId="edit-buffer"
            ariaLabel="Object editor"
            className="edit-buffer"
            options={{ glyphMargin: showOwners }}
            onMount={(editor, monaco) => setMounted({ editor, monaco })}
          />
        </div>
        {patchMode && (
          <div className="editor-pane">
            <div className="pane-title">
              {mode === 'json' ? 'JSON patch (RFC 6902)' : mode === 'merge' ? 'Merge patch (RFC 7386)' : 'Strategic merge patch'} sent
              {patchDraft !== undefined ? (
                <>
                  {' '}
                  <span className="pill" data-testid="patch-edited">
                    edited by hand
                  </span>
                  <button className="link small" data-testid="patch-recompute" onClick={() => setPatchDraft(undefined)}>
                    recompute from the object
                  </button>
                </>
              ) : (
                <span className="muted small"> · computed from your edit{emptyPatch ? ' · no changes yet' : ''}</span>
              )}
            </div>
            <MonacoEditor value={patchText} onChange={setPatchDraft} language="json" testId="patch-buffer" ariaLabel="Patch document" className="patch-buffer" markers={flow.patchMarkers} markerOwner="periscope-patch" />
          </div>
        )}
      </div>
      {showOwners && (
        <div className="owners-legend" data-testid="owners-legend">
          {[...colours].map(([m, c]) => (
            <span key={m} className="legend-item">
              <span className={`mf-swatch mf-c${c}`} /> {m}
            </span>
          ))}
          <span className="muted small">lines marked with two colours have several owners; hover a mark for details</span>
        </div>
      )}
      {reviewShown && <ReviewDialog review={reviewShown} current={object} format={format} busy={flow.busy} onConfirm={() => void flow.confirm()} onClose={flow.closeReview} />}
    </div>
  );
}

export function FailureBanner({ failure, onClose, onReveal }: { failure: Failure; onClose: () => void; onReveal?: (line: number) => void }) {
  const { title } = describeError(failure.error);
  const e = failure.error;
  return (
    <div className="banner banner-error" data-testid="edit-error" data-code={e instanceof ApiError ? e.code : undefined} role="alert">
      <strong>
        {failure.stage === 'dry run' ? 'Dry run refused' : 'Save refused'}: {title}
      </strong>{' '}
      {errorText(e)}
      <TraceId error={e} />
      {failure.unplaced.length > 0 && (
        <ul className="plain-list">
          {failure.unplaced.map((u, i) => (
            <li key={i}>
              <code>{u.field}</code> {u.message}
            </li>
          ))}
        </ul>
      )}
      {failure.placed.length > 0 && (
        <ul className="plain-list">
          {failure.placed.map((p, i) => (
            <li key={i} data-testid="placed-marker" data-line={p.line}>
              <button className="link small" onClick={() => onReveal?.(p.line)} disabled={!onReveal}>
                line {p.line}
              </button>
              : <code>{p.field}</code> {p.message}
            </li>
          ))}
        </ul>
      )}
      <button className="link small" onClick={onClose}>
        dismiss
      </button>
    </div>
  );
}
