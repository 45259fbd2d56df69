// Periodic compaction like the upstream apiserver's compactor: each tick
// compacts at the revision seen on the previous tick, so at least one full
// interval of history always stays available to watchers and paged lists.
import type { RevisionedStore } from './types.js';

export interface CompactorOptions {
  /** Called when a tick fails (default: console.warn). */
  onError?: (err: unknown) => void;
}

/** Starts compacting every intervalMs (0 disables). Returns stop, which resolves once no tick is running. */
export function startCompactor(
  store: RevisionedStore,
  intervalMs: number,
  opts: CompactorOptions = {},
): () => Promise<void> {
  if (!(intervalMs > 0)) return async () => {};
  const onError = opts.onError ?? ((err: unknown) => console.warn('storage compaction failed:', err));
  let lastRevision = 0;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const tick = async (): Promise<void> => {
    try {
      if (lastRevision > 0) await store.compact(lastRevision);
      lastRevision = await store.currentRevision();
    } catch (err) {
      onError(err);
    }
  };
  const schedule = (): void => {
    timer = setTimeout(() => {
      running = tick().finally(() => {
        if (!stopped) schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
