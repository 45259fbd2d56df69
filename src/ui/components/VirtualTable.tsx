// A virtualized table: only the visible rows are in the DOM, so 100k rows scroll like 100.
// Rows past the loaded ones render as placeholders and ask for more as they come into view.
import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { useNow } from '../lib/age.js';
import { useFixedRows } from './fixed-rows.js';
import { cellText, objectOfRow, statusTone, type Row, type ViewColumn } from '../lib/table-view.js';
import { columnWidths, wantedWidths } from '../lib/column-widths.js';

export const ROW_HEIGHT = 30;

export interface SortState {
  id: string;
  desc: boolean;
}

export interface VirtualTableProps {
  rows: readonly Row[];
  /** Rows known to exist but not loaded yet (drawn as placeholders). */
  placeholders: number;
  columns: ViewColumn[];
  /** Bumps when rows changed in place. */
  version: number;
  keyOf(row: Row): string;
  sort?: SortState;
  onSort?(id: string): void;
  selected: number;
  onSelect(index: number): void;
  onOpen?(row: Row, index: number): void;
  rowHref?(row: Row): string | undefined;
  onRangeChange?(first: number, last: number): void;
  label?: string;
  /** Multi-select (bulk actions): keys of the checked rows; Space or the row's box toggles one. */
  checked?: ReadonlySet<string>;
  onToggle?(row: Row): void;
}

interface RowProps {
  row: Row;
  index: number;
  columns: ViewColumn[];
  selected: boolean;
  now: number;
  start: number;
  href?: string;
  onClick(index: number, e: MouseEvent): void;
  checked?: boolean;
  onToggle?(row: Row): void;
}

const TableRowView = memo(function TableRowView({ row, index, columns, selected, now, start, href, onClick, checked, onToggle }: RowProps) {
  const obj = objectOfRow(row);
  const deleting = !!obj?.metadata?.deletionTimestamp;
  return (
    <div
      className={`vrow${selected ? ' selected' : ''}${deleting ? ' deleting' : ''}${checked ? ' checked' : ''}`}
      data-checked={onToggle ? String(!!checked) : undefined}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-row-index={index}
      style={{ transform: `translateY(${start}px)` }}
      onClick={(e) => onClick(index, e)}
    >
      {columns.map((c, i) => {
        const text = cellText(c, row, now);
        const tone = statusTone(c, text);
        const cls = `vcell${c.numeric ? ' num' : ''}${c.timestamp ? ' age' : ''}${tone ? ` tone-${tone}` : ''}`;
        if (i === 0 && href)
          return (
            <div role="gridcell" className={cls} key={c.id} title={text}>
              {onToggle && (
                <input
                  type="checkbox"
                  className="row-check"
                  tabIndex={-1}
                  checked={!!checked}
                  aria-label={`Select ${text}`}
                  data-testid="row-check"
                  onClick={(e) => e.stopPropagation()}
                  onChange={() => onToggle(row)}
                />
              )}
              <a href={href} tabIndex={-1} onClick={(e) => e.preventDefault()}>
                {text}
              </a>
            </div>
          );
        const title = c.timestamp ? String(c.value(row) ?? obj?.metadata?.creationTimestamp ?? '') : text;
        return (
          <div role="gridcell" className={cls} key={c.id} title={title}>
            {text}
          </div>
        );
      })}
    </div>
  );
});

export function VirtualTable(props: VirtualTableProps) {
  const { rows, placeholders, columns, sort, onSort, selected, onSelect, onOpen, rowHref, onRangeChange, keyOf, label } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLDivElement>(null);
  const count = rows.length + placeholders;
  const hasAges = columns.some((c) => c.timestamp || c.ticking);
  const clock = useNow();
  const now = hasAges ? clock : 0;
  const virtualizer = useFixedRows(scrollRef, count, ROW_HEIGHT, 10);
  const items = virtualizer.items.map((vi) => ({ ...vi, key: vi.index < rows.length ? keyOf(rows[vi.index]!) : `placeholder-${vi.index}` }));
  // keep the header's columns over the body's when the body shows a vertical scrollbar
  const spacerRef = useRef<HTMLDivElement>(null);
  const [widthPx, setWidthPx] = useState(0);
  const [chPx, setChPx] = useState(0);
  useEffect(() => {
    // one ch of the rows' font, measured where the rows are drawn
    const body = scrollRef.current;
    if (!body) return;
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
    probe.textContent = '0'.repeat(100);
    body.appendChild(probe);
    setChPx(probe.getBoundingClientRect().width / 100);
    probe.remove();
  }, []);
  useEffect(() => {
    const body = scrollRef.current;
    const head = headRef.current;
    if (!body || !head || typeof ResizeObserver === 'undefined') return;
    const sync = () => {
      head.style.paddingRight = `${body.offsetWidth - body.clientWidth}px`;
      setWidthPx(body.clientWidth);
    };
    const ro = new ResizeObserver(sync);
    ro.observe(body);
    if (spacerRef.current) ro.observe(spacerRef.current);
    sync();
    return () => ro.disconnect();
  }, []);
  const gridRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    // after the jump box or a link elsewhere led here: the list takes the keys (j/k/Enter) at once
    if (!active || active === document.body || !document.getElementById('main')?.contains(active)) gridRef.current?.focus({ preventScroll: true });
  }, []);
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    onRangeChange?.(first, last);
  }, [first, last, count, onRangeChange]);

  // widths from the first rows; recomputed when the columns change, not on every update
  const widthSig = columns.map((c) => c.id).join('|');
  const wanted = useMemo(() => wantedWidths(columns, rows), [widthSig, rows.length > 0]); // eslint-disable-line react-hooks/exhaustive-deps
  // the minimums together fit the table's width (in ch of the rows' font) where the whole columns allow
  const budget = widthPx > 0 && chPx > 0 ? Math.floor(widthPx / chPx) : undefined;
  const widths = useMemo(() => columnWidths(columns, wanted, budget), [wanted, budget]); // eslint-disable-line react-hooks/exhaustive-deps

  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    let next = selected;
    switch (e.key) {
      case 'ArrowDown':
      case 'j':
        next = Math.min(count - 1, selected + 1);
        break;
      case 'ArrowUp':
      case 'k':
        next = Math.max(0, selected - 1);
        break;
      case 'PageDown':
        next = Math.min(count - 1, selected + page);
        break;
      case 'PageUp':
        next = Math.max(0, selected - page);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = count - 1;
        break;
      case 'Enter':
        if (selected >= 0 && selected < rows.length) onOpen?.(rows[selected]!, selected);
        e.preventDefault();
        return;
      case ' ':
        if (props.onToggle && selected >= 0 && selected < rows.length) props.onToggle(rows[selected]!);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    if (next !== selected && next >= 0) {
      onSelect(next);
      virtualizer.scrollToIndex(next);
    }
  };

  const onRowClick = useCallback(
    (index: number, e: MouseEvent) => {
      onSelect(index);
      const row = rows[index];
      if (!row) return;
      if (e.metaKey || e.ctrlKey) {
        const h = rowHref?.(row);
        if (h) window.open(h, '_blank');
        return;
      }
      onOpen?.(row, index);
    },
    [rows, onSelect, onOpen, rowHref],
  );

  return (
    <div
      ref={gridRef}
      className="vtable"
      role="grid"
      aria-label={label}
      aria-rowcount={count + 1}
      data-testid="resource-table"
      data-rows={rows.length}
      data-version={props.version}
      tabIndex={0}
      onKeyDown={onKey}
      style={{ ['--cols' as string]: widths.template, ['--minw' as string]: `${widths.total}ch` }}
    >
      <div className="vhead-wrap" ref={headRef}>
      <div className="vhead" role="row" aria-rowindex={1}>
        {columns.map((c) => {
          const active = sort?.id === c.id;
          return (
            <div
              key={c.id}
              role="columnheader"
              className={`vcell${c.numeric ? ' num' : ''}${active ? ' sorted' : ''}`}
              aria-sort={active ? (sort!.desc ? 'descending' : 'ascending') : 'none'}
              title={c.description || c.name}
              tabIndex={onSort ? 0 : undefined}
              onClick={() => onSort?.(c.id)}
              onKeyDown={(e) => {
                // sortable from the keyboard: Tab to a header, Enter or Space
                if (onSort && (e.key === 'Enter' || e.key === ' ')) {
                  e.preventDefault();
                  e.stopPropagation();
                  onSort(c.id);
                }
              }}
            >
              {c.name}
              {active && <span className="sort-arrow">{sort!.desc ? ' ▼' : ' ▲'}</span>}
            </div>
          );
        })}
      </div>
      </div>
      <div
        className="vbody"
        ref={scrollRef}
        onScroll={(e) => {
          if (headRef.current) headRef.current.scrollLeft = e.currentTarget.scrollLeft;
        }}
      >
        <div className="vspacer" ref={spacerRef} style={{ height: virtualizer.totalSize }}>
          {items.map((vi) => {
            const row = rows[vi.index];
            if (!row)
              return (
                <div key={vi.key} className="vrow placeholder" role="row" aria-rowindex={vi.index + 2} data-placeholder={vi.index} style={{ transform: `translateY(${vi.start}px)` }}>
                  <div className="vcell">
                    <span className="skeleton" />
                  </div>
                </div>
              );
            return (
              <TableRowView
                key={vi.key}
                row={row}
                index={vi.index}
                columns={columns}
                selected={vi.index === selected}
                now={now}
                start={vi.start}
                href={rowHref?.(row)}
                onClick={onRowClick}
                checked={props.checked?.has(keyOf(row))}
                onToggle={props.onToggle}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
