// Outcome toasts of explorer actions (scaled, restarted, drained, failed …), one store for the app.
import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  tone: 'ok' | 'bad';
  text: string;
}

let toasts: Toast[] = [];
let next = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function toast(tone: Toast['tone'], text: string): void {
  const id = next++;
  toasts = [...toasts.slice(-3), { id, tone, text }];
  emit();
  // successes fade; failures stay until dismissed
  if (tone === 'ok') setTimeout(() => dismiss(id), 6000);
}

function dismiss(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

export function ActionToasts() {
  const list = useSyncExternalStore(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    () => toasts,
  );
  if (!list.length) return null;
  return (
    <div className="toasts action-toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast ${t.tone}`} data-testid={`toast-${t.tone}`}>
          {t.text}
          <button className="link" onClick={() => dismiss(t.id)} aria-label="Dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
