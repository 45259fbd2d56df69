// Unsaved edits outlive the Edit tab: switching to Summary (to watch a rollout) and back finds the draft
// where it was left. Leaving the object with a draft asks first (in-app navigation and closing the page).
import { setNavigationGuard } from '../router.js';

export interface Draft {
  /** The object's route without its tab: navigating within it keeps the draft. */
  objectPath: string;
  label: string;
  text: string;
  mode: string;
  scope: string;
  format: 'yaml' | 'json';
  /** The version the edit is based on (the editor rebases from it). */
  base: unknown;
}

const drafts = new Map<string, Draft>();

export const draftStore = {
  get: (uid: string | undefined) => (uid ? drafts.get(uid) : undefined),
  set(uid: string | undefined, d: Draft): void {
    if (uid) drafts.set(uid, d);
  },
  drop(uid: string | undefined): void {
    if (uid) drafts.delete(uid);
  },
};

/** The drafts a navigation to `to` would leave behind. */
export function draftsLeftBy(to: string): Draft[] {
  const path = to.split('?')[0]!;
  return [...drafts.values()].filter((d) => !path.startsWith(`${d.objectPath}/`) && path !== d.objectPath);
}

setNavigationGuard((to) => {
  const left = draftsLeftBy(to);
  if (!left.length) return true;
  if (!window.confirm(`You have unsaved edits to ${left.map((d) => d.label).join(', ')}. Leave and discard them?`)) return false;
  for (const [uid, d] of drafts) if (left.includes(d)) drafts.delete(uid);
  return true;
});

if (typeof window !== 'undefined')
  window.addEventListener('beforeunload', (e) => {
    if (drafts.size) e.preventDefault();
  });
