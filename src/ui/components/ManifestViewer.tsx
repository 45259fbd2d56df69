// The manifest viewer behind a context, so an editor (Monaco, issue 9) can replace it without touching
// the object view: provide another component through ManifestViewerContext.
import { createContext, memo, useContext, useMemo, type ComponentType } from 'react';
import type { KubeObject } from '../../client/index.js';
import { highlight } from '../lib/highlight.js';

export type ManifestFormat = 'yaml' | 'json';

export interface ManifestViewerProps {
  object: KubeObject;
  format: ManifestFormat;
  /** The object serialised in `format` (what is shown). */
  text: string;
}

const MAX_HIGHLIGHT = 400_000;

export const HighlightedManifest = memo(function HighlightedManifest({ text, format }: ManifestViewerProps) {
  const lines = useMemo(() => (text.length > MAX_HIGHLIGHT ? undefined : highlight(text.replace(/\n$/, ''), format)), [text, format]);
  return (
    <pre className={`manifest lang-${format}`} data-testid="manifest" tabIndex={0}>
      {lines
        ? lines.map((toks, i) => (
            <span className="line" key={i}>
              {toks.map((t, j) =>
                t.cls === 'plain' ? (
                  t.text
                ) : (
                  <span key={j} className={`tok-${t.cls}`}>
                    {t.text}
                  </span>
                ),
              )}
              {'\n'}
            </span>
          ))
        : text}
    </pre>
  );
});

export const ManifestViewerContext = createContext<ComponentType<ManifestViewerProps>>(HighlightedManifest);

export function ManifestViewer(props: ManifestViewerProps) {
  const Impl = useContext(ManifestViewerContext);
  return <Impl {...props} />;
}
