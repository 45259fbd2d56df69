// "New" for any resource type: a template from the type's schema (required fields filled), edited in
// Monaco with schema validation and completion, created with a dry run first.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { apiVersionOf, sameGroup, type ApiResource, type Discovery, type KubeObject } from '../../client/index.js';
import { EmptyState, ErrorState, LoadingState } from '../components/ErrorState.js';
import { MonacoEditor, type EditorMarker } from '../monaco/index.js';
import { Link, href, listPath, navigate, objectPath, type TypeRef } from '../router.js';
import { FailureBanner } from './EditorView.js';
import { ParseError, isObject, parseText, printObject, withTypeFirst, type TextFormat } from './documents.js';
import { useKindSchema } from './kind-schema.js';
import { attachJsonSchema, type MountedEditor } from './overlays.js';
import { ReviewDialog } from './ReviewDialog.js';
import { buildWrite, type FieldValidation } from './requests.js';
import { FieldValidationSelect } from './FieldValidationSelect.js';
import { useWriteFlow } from './write-flow.js';

interface Props {
  type: TypeRef;
  discovery: Discovery | undefined;
  discoveryError: unknown;
  /** The namespace picked in the explorer, for namespaced types. */
  namespace: string;
}

export function CreateView({ type, discovery, discoveryError, namespace }: Props) {
  const info = discovery?.resources.find((r) => sameGroup(r.group, type.group) && r.version === type.version && r.resource === type.resource);
  if (!info) {
    if (discoveryError) return <ErrorState error={discoveryError} />;
    if (!discovery) return <LoadingState label="Discovering API types…" />;
    return <EmptyState title={`${type.resource} is not served`}>The server does not serve {type.group || 'core'}/{type.version} {type.resource}.</EmptyState>;
  }
  return <CreateForm key={`${info.group}/${info.version}/${info.resource}`} info={info} namespace={namespace} />;
}

function CreateForm({ info, namespace }: { info: ApiResource; namespace: string }) {
  const { schema, error, loading } = useKindSchema(info);
  const ns = info.namespaced ? namespace || 'default' : undefined;
  const [format, setFormat] = useState<TextFormat>('yaml');
  const [text, setText] = useState<string>();
  const [fieldValidation, setFieldValidation] = useState<FieldValidation>('Strict');
  const [mounted, setMounted] = useState<MountedEditor>();
  const listHref = href(listPath(info), { ns: namespace || undefined });

  const template = useMemo(() => schema?.template({ name: `my-${info.singular || info.kind.toLowerCase()}`, namespace: ns }), [schema, info, ns]);
  useEffect(() => {
    if (template && text === undefined) setText(printObject(template, format));
  }, [template, text, format]);

  const parsed = useMemo((): { value?: unknown; error?: ParseError } => {
    if (text === undefined) return {};
    try {
      return { value: parseText(text, format) };
    } catch (e) {
      return { error: e instanceof ParseError ? e : new ParseError(String(e)) };
    }
  }, [text, format]);

  const onSaved = useCallback(
    (created: KubeObject | undefined) => {
      const m = created?.metadata;
      if (m?.name) navigate(href(objectPath(info, m.namespace, m.name), { ns: namespace || undefined }));
      else navigate(listHref);
    },
    [info, namespace, listHref],
  );
  const flow = useWriteFlow({ onSaved });
  const reviewShown = useMemo(() => flow.review && { ...flow.review, result: flow.review.result && withTypeFirst(flow.review.result, apiVersionOf(info.group, info.version), info.kind) }, [flow.review, info]);

  useEffect(() => {
    if (!mounted || format !== 'json' || !schema) return;
    return attachJsonSchema(mounted.monaco, mounted.editor.getModel(), schema.uri, schema.jsonSchema);
  }, [mounted, format, schema]);

  if (error) return <ErrorState error={error} />;
  if (loading || text === undefined) {
    if (!loading && !schema) return <EmptyState title={`No schema for ${info.kind}`}>The server's OpenAPI document does not describe {info.kind}.</EmptyState>;
    return <LoadingState label={`Reading the ${info.kind} schema…`} />;
  }

  const targetNs = isObject(parsed.value) && isObject(parsed.value.metadata) && typeof parsed.value.metadata.namespace === 'string' ? parsed.value.metadata.namespace : ns;
  const reviewCreate = () => {
    if (parsed.value === undefined) return;
    const req = buildWrite('create', { group: info.group, version: info.version, resource: info.resource, namespace: info.namespaced ? targetNs : undefined }, JSON.stringify(parsed.value), { fieldValidation });
    void flow.dryRun(req, { text });
  };
  const parseMarkers: EditorMarker[] = parsed.error?.line ? [{ line: parsed.error.line, column: parsed.error.column, message: parsed.error.message, severity: 'error', source: 'parse' }] : [];

  return (
    <div className="object-view create-view" data-testid="create-view">
      <div className="toolbar">
        <div className="crumbs">
          <Link href={listHref}>{info.resource}</Link>
          <span className="muted"> / new</span>
        </div>
        <h2 className="title">
          New {info.kind}
          <span className="muted small">
            {' '}
            {info.group || 'core'}/{info.version}
            {ns ? ` · in ${targetNs}` : ' · cluster-wide'}
          </span>
        </h2>
      </div>
      <div className="editor-view">
        <div className="editor-toolbar">
          <div className="segmented" role="radiogroup" aria-label="Format">
            {(['yaml', 'json'] as const).map((f) => (
              <button
                key={f}
                role="radio"
                aria-checked={f === format}
                className={f === format ? 'seg active' : 'seg'}
                data-testid={`edit-format-${f}`}
                disabled={!!parsed.error}
                onClick={() => {
                  if (parsed.value === undefined || f === format) return;
                  setText(printObject(parsed.value, f));
                  setFormat(f);
                }}
              >
                {f.toUpperCase()}
              </button>
            ))}
          </div>
          <FieldValidationSelect value={fieldValidation} onChange={setFieldValidation} />
          <span className="spacer" />
          <button className="btn" onClick={() => template && setText(printObject(template, format))} disabled={flow.busy}>
            Start over
          </button>
          <button className="btn primary" data-testid="review-button" disabled={!!parsed.error || flow.busy} onClick={reviewCreate}>
            {flow.busy ? 'Asking the server…' : 'Review (dry run)'}
          </button>
        </div>
        <div className="muted small mode-hint">A template from the {info.kind} schema with its required fields filled. Completion and hover come from the server's OpenAPI schema.</div>
        {parsed.error && (
          <div className="banner banner-error" data-testid="parse-error">
            {format.toUpperCase()} syntax: {parsed.error.message}
          </div>
        )}
        {flow.failure && <FailureBanner failure={flow.failure} onClose={flow.clear} onReveal={(line) => mounted?.editor.revealLineInCenter(line)} />}
        <div className="editor-panes">
          <div className="editor-pane">
            <MonacoEditor
              key={format}
              value={text}
              onChange={setText}
              language={format}
              fileName={`new-${info.kind}`}
              schemaUri={schema?.uri}
              markers={[...parseMarkers, ...flow.markers]}
              markerOwner="periscope-create"
              testId="edit-buffer"
              ariaLabel={`New ${info.kind}`}
              className="edit-buffer"
              onMount={(editor, monaco) => setMounted({ editor, monaco })}
            />
          </div>
        </div>
      </div>
      {reviewShown && <ReviewDialog review={reviewShown} current={undefined} format={format} busy={flow.busy} onConfirm={() => void flow.confirm()} onClose={flow.closeReview} />}
    </div>
  );
}
