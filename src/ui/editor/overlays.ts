// Editor add-ons: the managed-fields gutter (which manager owns the field on each line) and the
// kind's JSON Schema for JSON models (monaco-yaml covers YAML ones).
import { useEffect, useMemo, useState } from 'react';
import type * as Monaco from 'monaco-editor';
import type { ManagedFieldsEntry } from '../../client/index.js';
import type { MonacoApi } from '../monaco/index.js';
import { ownersByLine } from './locate.js';

export const OWNER_COLOURS = 6;

/** Managers in a stable order, each with a colour slot. */
export function managerColours(entries: ManagedFieldsEntry[] | undefined): Map<string, number> {
  const names = [...new Set((entries ?? []).map((e) => e.manager ?? '(unknown)'))].sort();
  return new Map(names.map((n, i) => [n, i % OWNER_COLOURS]));
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export interface MountedEditor {
  editor: Monaco.editor.IStandaloneCodeEditor;
  monaco: MonacoApi;
}

/** Gutter marks on each line whose field a manager owns; hovering one names the owners. */
export function useOwnersOverlay(mounted: MountedEditor | undefined, text: string, entries: ManagedFieldsEntry[] | undefined, enabled: boolean): void {
  const settled = useDebounced(text, 150);
  const colours = useMemo(() => managerColours(entries), [entries]);
  useEffect(() => {
    if (!mounted) return;
    const { editor, monaco } = mounted;
    const lines = enabled ? ownersByLine(settled, entries) : [];
    const decorations: Monaco.editor.IModelDeltaDecoration[] = lines.map((l) => {
      const first = l.owners[0]!;
      const shared = new Set(l.owners.map((o) => o.manager)).size > 1;
      return {
        range: new monaco.Range(l.line, 1, l.line, 1),
        options: {
          glyphMarginClassName: `mf-glyph mf-c${colours.get(first.manager) ?? 0}${shared ? ' mf-shared' : ''}`,
          glyphMarginHoverMessage: {
            value: `**${first.field}** owned by ${l.owners.map((o) => `\`${o.manager}\` (${o.operation}${o.subresource ? `, ${o.subresource}` : ''})`).join(', ')}`,
          },
        },
      };
    });
    const collection = editor.createDecorationsCollection(decorations);
    editor.updateOptions({ glyphMargin: enabled });
    return () => collection.clear();
  }, [mounted, settled, entries, enabled, colours]);
}

/** Validates and completes a JSON model against a schema (the JSON language service's own settings). */
export function attachJsonSchema(monaco: MonacoApi, model: Monaco.editor.ITextModel | null, uri: string, schema: object | undefined): () => void {
  if (!model || !schema) return () => {};
  const defaults = monaco.languages.json.jsonDefaults;
  const fileMatch = model.uri.toString();
  const schemaUri = `${uri}#json-${fileMatch}`;
  const current = defaults.diagnosticsOptions;
  defaults.setDiagnosticsOptions({
    ...current,
    validate: true,
    enableSchemaRequest: false,
    schemas: [...(current.schemas ?? []).filter((s) => s.uri !== schemaUri), { uri: schemaUri, fileMatch: [fileMatch], schema }],
  });
  return () => {
    const now = defaults.diagnosticsOptions;
    defaults.setDiagnosticsOptions({ ...now, schemas: (now.schemas ?? []).filter((s) => s.uri !== schemaUri) });
  };
}
