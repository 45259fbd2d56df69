// Getting documents in and out of the studio: file open, clipboard, download, drafts.
import { parseDocument } from 'yaml';
import type { ConfigKind } from '../../config/index.js';
import { CONFIG_GROUP, CONFIG_GROUP_ALIAS } from '../../config/model.js';

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

/** Which server an exported document is for: ours (neutral group) or a real kube-apiserver (upstream group). */
export type ExportSpelling = 'periscope' | 'upstream';

/**
 * The document with its apiVersion group spelled for the server that will read it: a real kube-apiserver
 * reads only `apiserver.config.k8s.io`; Periscope reads both. Comments and layout are kept; a document
 * of another group (or one that does not parse) is returned as it is.
 */
export function withExportSpelling(text: string, spelling: ExportSpelling): string {
  const doc = parseDocument(text);
  if (doc.errors.length) return text;
  const av = doc.get('apiVersion');
  if (typeof av !== 'string') return text;
  const m = /^(apiserver\.config\.(?:service|k8s)\.io)\/(.+)$/.exec(av);
  if (!m) return text;
  const group = spelling === 'upstream' ? CONFIG_GROUP_ALIAS : CONFIG_GROUP;
  if (m[1] === group) return text;
  doc.set('apiVersion', `${group}/${m[2]}`);
  return doc.toString({ lineWidth: 0 });
}
