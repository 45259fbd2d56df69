// A controlled Monaco editor: `value` in, `onChange` out, with problem markers, an optional JSON
// Schema (by uri, see registerYamlSchema) and a plain textarea fallback when Monaco cannot load.
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import type * as Monaco from 'monaco-editor';
import { useMonaco, type MonacoApi } from './load.js';
import { bindModelToSchema } from './schemas.js';

export interface EditorMarker {
  /** 1-based positions; the end defaults to the end of the start line. */
  line: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  message: string;
  severity: 'error' | 'warning' | 'info';
  source?: string;
}

export interface MonacoEditorProps {
  value: string;
  onChange?: (value: string) => void;
  language?: 'yaml' | 'json' | 'plaintext' | (string & {});
  /** Validate and complete against the schema registered under this uri. */
  schemaUri?: string;
  /** Model file name (its extension picks nothing; `language` does); keeps URIs readable in hovers. */
  fileName?: string;
  markers?: readonly EditorMarker[];
  /** Owner of the markers, so several sources can mark the same model. */
  markerOwner?: string;
  readOnly?: boolean;
  className?: string;
  style?: CSSProperties;
  testId?: string;
  ariaLabel?: string;
  options?: Monaco.editor.IStandaloneEditorConstructionOptions;
  onMount?: (editor: Monaco.editor.IStandaloneCodeEditor, monaco: MonacoApi) => void;
}

let modelCounter = 0;

/** The one span in which two texts differ: offsets into the old text and the new one. */
export function changedSpan(from: string, to: string): { start: number; oldEnd: number; newEnd: number } {
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let oldEnd = from.length;
  let newEnd = to.length;
  while (oldEnd > start && newEnd > start && from.charCodeAt(oldEnd - 1) === to.charCodeAt(newEnd - 1)) {
    oldEnd--;
    newEnd--;
  }
  // never split a surrogate pair
  if (start > 0 && /[\uD800-\uDBFF]/.test(from[start - 1]!)) start--;
  return { start, oldEnd: Math.max(oldEnd, start), newEnd: Math.max(newEnd, start) };
}

const SEVERITY = { error: 8, warning: 4, info: 2 } as const; // monaco.MarkerSeverity values

function toMarkerData(model: Monaco.editor.ITextModel, m: EditorMarker): Monaco.editor.IMarkerData {
  const lines = model.getLineCount();
  const line = Math.min(Math.max(1, m.line), lines);
  const endLine = Math.min(Math.max(line, m.endLine ?? line), lines);
  return {
    startLineNumber: line,
    startColumn: m.column ?? model.getLineFirstNonWhitespaceColumn(line) ?? 1,
    endLineNumber: endLine,
    endColumn: m.endColumn ?? model.getLineMaxColumn(endLine),
    message: m.message,
    severity: SEVERITY[m.severity],
    source: m.source,
  };
}

export function MonacoEditor(props: MonacoEditorProps) {
  const { value, language = 'yaml', schemaUri, markers, markerOwner = 'periscope', readOnly = false } = props;
  const host = useRef<HTMLDivElement>(null);
  const { api, failed } = useMonaco();
  const editorRef = useRef<Monaco.editor.IStandaloneCodeEditor>(undefined);
  const modelRef = useRef<Monaco.editor.ITextModel>(undefined);
  const applying = useRef(false);
  // Texts this editor reported through onChange since React last caught up with the model. A render
  // carrying one of them is an echo of the user's own typing (maybe an older keystroke than the
  // model holds now), never an outside change: writing it back would undo keys and move the cursor.
  const emitted = useRef(new Set<string>());
  const latest = useRef(props);
  latest.current = props;
  const [name] = useState(() => `m${++modelCounter}-${(props.fileName ?? 'document').replace(/\.(ya?ml|json)$/, '').replace(/[^\w.-]/g, '_')}`);
  const ext = language === 'json' ? 'json' : language === 'yaml' ? 'yaml' : 'txt';

  useEffect(() => {
    if (!api || !host.current) return;
    const uri = api.Uri.parse(`inmemory://periscope/${name}.${ext}`);
    const model = api.editor.createModel(latest.current.value, language, uri);
    const editor = api.editor.create(host.current, {
      model,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      tabSize: 2,
      readOnly,
      ariaLabel: latest.current.ariaLabel,
      fixedOverflowWidgets: true,
      // completion opens while typing, as Monaco's YAML does: YAML keys and values tokenize as strings,
      // which Monaco's default leaves to Ctrl+Space
      quickSuggestions: { other: true, strings: true, comments: false },
      // Enter stays a newline while the list is open (Tab accepts): typed YAML is never rewritten by a suggestion
      acceptSuggestionOnEnter: 'off',
      ...latest.current.options,
    });
    modelRef.current = model;
    editorRef.current = editor;
    const sub = model.onDidChangeContent(() => {
      if (applying.current) return;
      const text = model.getValue();
      emitted.current.add(text);
      latest.current.onChange?.(text);
    });
    latest.current.onMount?.(editor, api);
    return () => {
      sub.dispose();
      editor.dispose();
      model.dispose();
      editorRef.current = undefined;
      modelRef.current = undefined;
    };
    // The editor lives as long as the component; later prop changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);

  useEffect(() => {
    if (!schemaUri) return;
    return bindModelToSchema(schemaUri, `**/${name}.${ext}`);
  }, [schemaUri, name, ext]);

  // Outside changes (form edits, templates) are applied as one undoable edit of only the span that
  // differs, so the cursor and scroll position stay where the user left them.
  useEffect(() => {
    const model = modelRef.current;
    if (!model) return;
    const current = model.getValue();
    if (current === value) {
      emitted.current.clear();
      return;
    }
    if (emitted.current.has(value)) return; // a late echo of our own onChange
    emitted.current.clear();
    applying.current = true;
    try {
      if (editorRef.current?.getOption(api!.editor.EditorOption.readOnly)) model.setValue(value);
      else {
        const span = changedSpan(current, value);
        const start = model.getPositionAt(span.start);
        const end = model.getPositionAt(span.oldEnd);
        editorRef.current?.pushUndoStop();
        model.pushEditOperations(
          editorRef.current?.getSelections() ?? [],
          [{ range: new api!.Range(start.lineNumber, start.column, end.lineNumber, end.column), text: value.slice(span.start, span.newEnd) }],
          () => null,
        );
        editorRef.current?.pushUndoStop();
      }
    } finally {
      applying.current = false;
    }
  }, [value, api]);

  useEffect(() => {
    editorRef.current?.updateOptions({ readOnly });
  }, [readOnly, api]);

  // Later changes of `options` (a toggled gutter, say) apply to the live editor.
  const optionsKey = JSON.stringify(props.options ?? {});
  useEffect(() => {
    if (props.options) editorRef.current?.updateOptions(props.options);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [optionsKey, api]);

  useEffect(() => {
    const model = modelRef.current;
    if (!api || !model) return;
    if (model.getLanguageId() !== language) api.editor.setModelLanguage(model, language);
  }, [language, api]);

  useEffect(() => {
    const model = modelRef.current;
    if (!api || !model) return;
    api.editor.setModelMarkers(model, markerOwner, (markers ?? []).map((m) => toMarkerData(model, m)));
  }, [markers, markerOwner, api, value]);

  const className = `monaco-host ${props.className ?? ''}`.trim();
  if (failed) {
    return (
      <div className={className} style={props.style} data-testid={props.testId} data-editor="fallback">
        <div className="monaco-fallback-note">Editor unavailable ({failed}); plain text editing.</div>
        <textarea
          className="monaco-fallback"
          value={value}
          readOnly={readOnly}
          aria-label={props.ariaLabel}
          spellCheck={false}
          onChange={(e) => props.onChange?.(e.target.value)}
        />
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
