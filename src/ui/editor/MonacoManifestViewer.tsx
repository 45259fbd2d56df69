// The object view's YAML/JSON tab in a read-only Monaco editor (folding, search, the type's schema
// for hovers), provided to ObjectView through ManifestViewerContext.
import { useMemo } from 'react';
import type { ManifestViewerProps } from '../components/ManifestViewer.js';
import { MonacoEditor } from '../monaco/index.js';

export function MonacoManifestViewer({ object, format, text }: ManifestViewerProps) {
  const fileName = useMemo(() => `${object.kind ?? 'object'}-${object.metadata?.name ?? ''}`, [object.kind, object.metadata?.name]);
  return (
    <MonacoEditor
      key={format}
      value={text}
      language={format}
      readOnly
      fileName={fileName}
      testId="manifest"
      ariaLabel={`${object.kind ?? 'Object'} ${object.metadata?.name ?? ''} as ${format.toUpperCase()}`}
      className="manifest-monaco"
      options={{ folding: true, renderValidationDecorations: 'off', domReadOnly: true }}
    />
  );
}
