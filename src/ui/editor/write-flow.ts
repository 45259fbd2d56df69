// Every save goes through the same steps: the request with dryRun=All, its preview (ReviewDialog),
// then Confirm sends it for real. Errors become markers on the lines they name.
import { useCallback, useState } from 'react';
import type { KubeObject } from '../../client/index.js';
import type { EditorMarker } from '../monaco/index.js';
import type { Review } from './ReviewDialog.js';
import { indexText, markersFor, type FieldMarker, type FieldMessage } from './locate.js';
import { fieldProblems, sendWrite, warningProblems, type WriteRequest } from './requests.js';

export interface Failure {
  error: unknown;
  /** Field problems that name no line of the text. */
  unplaced: FieldMessage[];
  /** Field problems marked in the editor, by line. */
  placed: { line: number; field: string; message: string }[];
  /** Dry run or the real request. */
  stage: 'dry run' | 'save';
}

/** The texts the request was built from: markers are placed in them. */
export interface WriteContext {
  text: string;
  /** The JSON patch document, when one was sent (its op problems are marked there). */
  patchText?: string;
}

function toEditorMarker(m: FieldMarker): EditorMarker {
  return { line: m.startLine, column: m.startColumn, endLine: m.endLine, endColumn: m.endColumn, message: m.message, severity: m.severity, source: 'server' };
}

export interface WriteFlowOptions {
  /** Handles an error itself (conflict views), with markers of its own, or returns false for the generic display. */
  onSpecialError?: (error: unknown, ctx: WriteContext, stage: Failure['stage']) => Promise<false | { markers?: EditorMarker[] }>;
  onSaved: (object: KubeObject | undefined, warnings: string[]) => void;
}

export function useWriteFlow({ onSpecialError, onSaved }: WriteFlowOptions) {
  const [busy, setBusy] = useState(false);
  const [review, setReview] = useState<Review & { ctx: WriteContext }>();
  const [failure, setFailure] = useState<Failure>();
  const [markers, setMarkers] = useState<EditorMarker[]>([]);
  const [patchMarkers, setPatchMarkers] = useState<EditorMarker[]>([]);

  const showError = useCallback(
    async (error: unknown, ctx: WriteContext, stage: Failure['stage']) => {
      const handled = onSpecialError ? await onSpecialError(error, ctx, stage) : false;
      if (handled) {
        setMarkers(handled.markers ?? []);
        return;
      }
      const probs = fieldProblems(error);
      const placed = markersFor(ctx.text, probs.object);
      setMarkers(placed.markers.map(toEditorMarker));
      const pm: EditorMarker[] = [];
      const unplaced = [...placed.unplaced];
      if (ctx.patchText) {
        const idx = indexText(ctx.patchText);
        for (const p of probs.patchOps) {
          const loc = idx.locate([{ index: p.index }]);
          if (loc) pm.push({ line: loc.startLine, message: p.message, severity: 'error', source: 'server' });
          else unplaced.push({ field: `patch[${p.index}]`, message: p.message, severity: 'error' });
        }
      } else for (const p of probs.patchOps) unplaced.push({ field: `patch[${p.index}]`, message: p.message, severity: 'error' });
      setPatchMarkers(pm);
      setFailure({ error, unplaced, placed: placed.markers.map((m) => ({ line: m.startLine, field: m.field, message: m.message })), stage });
    },
    [onSpecialError],
  );

  /** Sends the request with dryRun=All and opens the preview. */
  const dryRun = useCallback(
    async (request: WriteRequest, ctx: WriteContext) => {
      setBusy(true);
      setFailure(undefined);
      setReview(undefined);
      setMarkers([]);
      setPatchMarkers([]);
      try {
        const r = await sendWrite(request, true);
        setMarkers(markersFor(ctx.text, warningProblems(r.warnings)).markers.map(toEditorMarker));
        setReview({ request, result: r.object, warnings: r.warnings, ctx });
      } catch (e) {
        await showError(e, ctx, 'dry run');
      } finally {
        setBusy(false);
      }
    },
    [showError],
  );

  /** Sends the previewed request for real. */
  const confirm = useCallback(async () => {
    if (!review) return;
    setBusy(true);
    try {
      const r = await sendWrite(review.request, false);
      setReview(undefined);
      setMarkers([]);
      onSaved(r.object, r.warnings);
    } catch (e) {
      setReview(undefined);
      await showError(e, review.ctx, 'save');
    } finally {
      setBusy(false);
    }
  }, [review, onSaved, showError]);

  const clear = useCallback(() => {
    setFailure(undefined);
    setReview(undefined);
    setMarkers([]);
    setPatchMarkers([]);
  }, []);

  return { busy, review, failure, markers, patchMarkers, dryRun, confirm, closeReview: () => setReview(undefined), clear };
}
