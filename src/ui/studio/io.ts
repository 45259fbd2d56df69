// Getting documents in and out of the studio: file open, clipboard, download, drafts.
import type { ConfigKind } from '../../config/index.js';

export function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Copies text; falls back to a hidden textarea where the async clipboard is unavailable (plain http). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    /* fall through */
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

export function readFileText(file: File): Promise<string> {
  return file.text();
}

const draftKey = (kind: ConfigKind) => `periscope.studio.${kind}`;

export function loadDraft(kind: ConfigKind): string | undefined {
  try {
    return localStorage.getItem(draftKey(kind)) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveDraft(kind: ConfigKind, text: string): void {
  try {
    localStorage.setItem(draftKey(kind), text);
  } catch {
    /* storage full or unavailable: drafts are a convenience */
  }
}
