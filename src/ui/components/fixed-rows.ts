// Windowing for rows of one fixed height: the visible range is arithmetic on scrollTop, so nothing is
// proportional to the row count (a general virtualizer keeps a measurement per row and rebuilt all
// 100k of them whenever its inputs changed, ~25 ms a time while chunks were arriving).
import { useCallback, useLayoutEffect, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';

export interface FixedRow {
  index: number;
  /** Offset from the top of the scrolled content, px. */
  start: number;
}

export interface FixedRows {
  items: FixedRow[];
  totalSize: number;
  /** Scrolls the least distance that shows row `index` whole. */
  scrollToIndex(index: number): void;
}

/** The rows of `count` in (or within `overscan` rows of) the scroll element's viewport. */
export function useFixedRows(scrollRef: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan: number): FixedRows {
  const [view, setView] = useState({ top: 0, height: 0 });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const read = (sync: boolean) => {
      const next = { top: el.scrollTop, height: el.clientHeight };
      const apply = () => setView((v) => (v.top === next.top && v.height === next.height ? v : next));
      // on scroll: rendered before the frame is painted (no blank rows while scrolling)
      if (sync) flushSync(apply);
      else apply();
    };
    read(false);
    const onScroll = () => read(true);
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => read(false));
    ro?.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro?.disconnect();
    };
  }, [scrollRef]);

  const items: FixedRow[] = [];
  if (count > 0) {
    const first = Math.max(0, Math.floor(view.top / rowHeight) - overscan);
    const last = Math.min(count - 1, Math.ceil((view.top + view.height) / rowHeight) + overscan);
    for (let i = first; i <= last; i++) items.push({ index: i, start: i * rowHeight });
  }
  const scrollToIndex = useCallback(
    (index: number) => {
      const el = scrollRef.current;
      if (!el) return;
      const top = index * rowHeight;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
    },
    [scrollRef, rowHeight],
  );
  return { items, totalSize: count * rowHeight, scrollToIndex };
}
