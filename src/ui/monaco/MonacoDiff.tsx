// A Monaco diff editor between two texts (read-only by default); models follow the props.
import { useEffect, useRef, type CSSProperties } from 'react';
import type * as Monaco from 'monaco-editor';
import { useMonaco, type MonacoApi } from './load.js';

export interface MonacoDiffProps {
  original: string;
  modified: string;
  language?: 'yaml' | 'json' | 'plaintext' | (string & {});
  readOnly?: boolean;
  /** Side by side when there is room (default); inline otherwise. */
  sideBySide?: boolean;
  className?: string;
  style?: CSSProperties;
  testId?: string;
  options?: Monaco.editor.IStandaloneDiffEditorConstructionOptions;
  /** Edits of the modified side, when not read-only. */
  onChange?: (modified: string) => void;
  onMount?: (editor: Monaco.editor.IStandaloneDiffEditor, monaco: MonacoApi) => void;
}

export function MonacoDiff(props: MonacoDiffProps) {
  const { original, modified, language = 'yaml', readOnly = true, sideBySide = true } = props;
  const host = useRef<HTMLDivElement>(null);
  const { api, failed } = useMonaco();
  const editorRef = useRef<Monaco.editor.IStandaloneDiffEditor>(undefined);
  const models = useRef<{ original: Monaco.editor.ITextModel; modified: Monaco.editor.ITextModel }>(undefined);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    if (!api || !host.current) return;
    const editor = api.editor.createDiffEditor(host.current, {
      automaticLayout: true,
      readOnly,
      originalEditable: false,
      renderSideBySide: sideBySide,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      // the gutter menu's debounced toolbar update outlives a diff editor closed with its dialog and throws
      // "AbstractContextKeyService has been disposed" (microsoft/monaco-editor#4581); a read-only diff has no use for it
      renderGutterMenu: false,
      ...latest.current.options,
    });
    const m = {
      original: api.editor.createModel(latest.current.original, language),
      modified: api.editor.createModel(latest.current.modified, language),
    };
    editor.setModel(m);
    models.current = m;
    editorRef.current = editor;
    const sub = m.modified.onDidChangeContent(() => latest.current.onChange?.(m.modified.getValue()));
    latest.current.onMount?.(editor, api);
    return () => {
      sub.dispose();
      editor.dispose();
      m.original.dispose();
      m.modified.dispose();
      models.current = undefined;
      editorRef.current = undefined;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);

  useEffect(() => {
    const m = models.current;
    if (m && m.original.getValue() !== original) m.original.setValue(original);
  }, [original, api]);

  useEffect(() => {
    const m = models.current;
    if (m && m.modified.getValue() !== modified) m.modified.setValue(modified);
  }, [modified, api]);

  useEffect(() => {
    const m = models.current;
    if (!api || !m) return;
    api.editor.setModelLanguage(m.original, language);
    api.editor.setModelLanguage(m.modified, language);
  }, [language, api]);

  useEffect(() => {
    editorRef.current?.updateOptions({ readOnly, renderSideBySide: sideBySide });
  }, [readOnly, sideBySide, api]);

  const className = `monaco-host ${props.className ?? ''}`.trim();
  if (failed) {
    return (
      <div className={className} style={props.style} data-testid={props.testId} data-editor="fallback">
        <div className="monaco-fallback-note">Diff editor unavailable ({failed}).</div>
        <div className="monaco-fallback-diff">
          <pre>{original}</pre>
          <pre>{modified}</pre>
        </div>
      </div>
    );
  }
  return (
    <div className={className} style={props.style} data-testid={props.testId} data-editor={api ? 'monaco' : 'loading'}>
      {!api && <div className="monaco-loading muted small">Loading editor…</div>}
      <div ref={host} className="monaco-surface" />
    </div>
  );
}
