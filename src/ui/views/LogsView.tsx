// The Logs tab of a pod or a workload (every pod of a Deployment/StatefulSet/DaemonSet/Job/ReplicaSet,
// each line prefixed with pod/container): container picker (init and sidecars included), previous
// instance, follow with pause, timestamps, since/tail, search with highlight and match count, wrap,
// download. The view keeps the last 50k lines in a ring and draws only the lines in view (a fixed row
// height, wrapped lines counted in monospace columns), so a frame's work does not grow with the log.
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import type { KubeObject } from '../../client/index.js';
import { ErrorState } from '../components/ErrorState.js';
import { useCollection } from '../data/informers.js';
import { useLogStreams, type LogLine, type LogOptions, type LogTarget } from '../data/pod-logs.js';
import { MatchIndex, RowIndex, visibleRange } from '../lib/log-window.js';
import { selectorString } from '../lib/workloads.js';

type Obj = Record<string, any>;

export const MAX_LOG_LINES = 50_000;
/** Streams open at once for a workload: each holds one of the browser's six HTTP/1.1 connections per host. */
export const MAX_WORKLOAD_STREAMS = 4;
/** Row height in px (.logs-lines line-height). */
const ROW = 18;
const OVERSCAN = 12;
/** Lines a new search scans per frame (the count completes over the next frames). */
const SCAN_BUDGET = 8000;

const SINCE: [string, string][] = [
  ['', 'all time'],
  ['300', 'last 5 min'],
  ['3600', 'last hour'],
  ['21600', 'last 6 h'],
  ['86400', 'last 24 h'],
];
const TAIL: [string, string][] = [
  ['100', 'last 100'],
  ['1000', 'last 1,000'],
  ['10000', 'last 10,000'],
  ['', 'all lines'],
];

const ALL = '*';

/** Container names of a pod spec, in start order, and the one `kubectl logs` picks by default. */
function containerChoices(podSpec: Obj | undefined, annotations: Record<string, string> | undefined): { names: { name: string; role: string }[]; initial: string } {
  const init = ((podSpec?.initContainers ?? []) as Obj[]).map((c) => ({ name: c.name as string, role: c.restartPolicy === 'Always' ? 'sidecar' : 'init' }));
  const main = ((podSpec?.containers ?? []) as Obj[]).map((c) => ({ name: c.name as string, role: 'container' }));
  const names = [...init, ...main];
  const preferred = annotations?.['kubectl.kubernetes.io/default-container'];
  return { names, initial: preferred && names.some((n) => n.name === preferred) ? preferred : (main[0]?.name ?? names[0]?.name ?? '') };
}

export function LogsView({ object }: { object: KubeObject }) {
  const isPod = object.kind === 'Pod';
  const ns = object.metadata?.namespace ?? '';
  const template = isPod ? (object as Obj) : ((object as Obj).spec?.template as Obj | undefined);
  const choices = useMemo(() => containerChoices(template?.spec, template?.metadata?.annotations ?? object.metadata?.annotations), [template, object.metadata?.annotations]);
  const [container, setContainer] = useState(choices.initial);
  const [previous, setPrevious] = useState(false);
  const [follow, setFollow] = useState(true);
  const [paused, setPaused] = useState(false);
  const [timestamps, setTimestamps] = useState(false);
  const [wrap, setWrap] = useState(false);
  const [since, setSince] = useState('');
  const [tail, setTail] = useState('1000');
  const [query, setQuery] = useState('');

  // workloads: their pods, by the workload's selector
  const selector = isPod ? '' : selectorString((object as Obj).spec?.selector, object.kind === 'ReplicationController');
  const pods = useCollection<KubeObject>(!isPod && selector ? { group: '', version: 'v1', resource: 'pods', namespace: ns, representation: 'object', labelSelector: selector } : undefined);
  const podNames = useMemo(
    () => (isPod ? [object.metadata!.name!] : (pods.data?.items ?? []).filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!).sort()),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [isPod, object.metadata?.name, pods.data?.items, pods.data?.version],
  );

  const targets = useMemo<LogTarget[]>(() => {
    const containers = container === ALL ? choices.names.map((n) => n.name) : [container];
    const out: LogTarget[] = [];
    for (const pod of podNames)
      for (const c of containers) out.push({ namespace: ns, pod, container: c, prefix: isPod ? (container === ALL ? c : undefined) : `${pod}/${c}` });
    return isPod ? out : out.slice(0, MAX_WORKLOAD_STREAMS);
  }, [podNames, container, choices, ns, isPod]);
  const totalTargets = podNames.length * (container === ALL ? choices.names.length : 1);

  const opts: LogOptions = { follow: follow && !previous, previous, sinceSeconds: since ? Number(since) : undefined, tailLines: tail ? Number(tail) : undefined };
  const { buffer, version, states } = useLogStreams(targets, opts, MAX_LOG_LINES);

  // what is shown: everything up to the last line when following, frozen where the user paused
  const lastSeq = buffer.firstSeq + buffer.length - 1;
  const [frozenAt, setFrozenAt] = useState<number>();
  const shownLast = paused && frozenAt !== undefined ? Math.min(frozenAt, lastSeq) : lastSeq;
  const [scanTick, setScanTick] = useState(0);
  const matchIdx = useRef<MatchIndex<LogLine>>(undefined);
  if (!matchIdx.current) matchIdx.current = new MatchIndex<LogLine>((l) => l.text);
  const counted = matchIdx.current.update(buffer, query, shownLast, SCAN_BUDGET);
  const matchCount = matchIdx.current.count(shownLast);
  useEffect(() => {
    if (counted) return;
    const f = requestAnimationFrame(() => setScanTick((t) => t + 1));
    return () => cancelAnimationFrame(f);
  }, [counted, scanTick, version, query]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const measureRef = useRef<HTMLSpanElement>(null);
  const stick = useRef(true);
  const [atEnd, setAtEnd] = useState(true);
  const [viewport, setViewport] = useState({ top: 0, height: 600, cols: 0 });
  // the viewport's height and, for wrap, its width in monospace columns
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const measure = () => {
      const charW = (measureRef.current?.getBoundingClientRect().width ?? 0) / 100 || 7.5;
      const style = getComputedStyle(el);
      const inner = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const cols = Math.max(1, Math.floor(inner / charW));
      setViewport((v) => (v.height === el.clientHeight && v.cols === cols ? v : { ...v, height: el.clientHeight, cols }));
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const showTs = useRef(timestamps);
  showTs.current = timestamps;
  const rowIdx = useRef<RowIndex<LogLine>>(undefined);
  if (!rowIdx.current || rowIdx.current.max !== buffer.max) rowIdx.current = new RowIndex<LogLine>(buffer.max, (l) => lineWidth(l, showTs.current));
  const idx = rowIdx.current;
  idx.sync(buffer, shownLast, wrap ? viewport.cols : 0, `${timestamps}`);
  const totalRows = idx.height(buffer, shownLast);
  const viewRows = Math.ceil(viewport.height / ROW);
  // stuck to the end: draw the last screen whatever the scroll position says (it is set right after)
  const topRow = stick.current && !paused ? Math.max(0, totalRows - viewRows) : Math.floor(viewport.top / ROW);
  const range = visibleRange(idx, buffer, shownLast, topRow, viewRows, OVERSCAN);
  const firstRow = range.to >= range.from ? idx.rowOf(buffer, range.from) : 0;

  // keep the reader's place when old lines leave the front while they read further up
  const anchor = useRef<{ seq: number; row: number }>(undefined);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (stick.current && !paused) el.scrollTop = el.scrollHeight;
    else if (anchor.current && buffer.at(anchor.current.seq)) {
      const moved = anchor.current.row - idx.rowOf(buffer, anchor.current.seq);
      if (moved) el.scrollTop -= moved * ROW;
    }
    const top = idx.seqAt(buffer, Math.floor(el.scrollTop / ROW), shownLast);
    anchor.current = buffer.length ? { seq: top, row: idx.rowOf(buffer, top) } : undefined;
  });

  // what the toolbar's handlers read at the time of the click (the toolbar is memoised)
  const live = useRef({ lastSeq, shownLast, timestamps });
  live.current = { lastSeq, shownLast, timestamps };
  const download = () => {
    const { shownLast: upTo, timestamps: ts } = live.current;
    const text = buffer
      .all()
      .filter((l) => l.seq <= upTo)
      .map((l) => lineText(l, ts))
      .join('\n');
    const url = URL.createObjectURL(new Blob([text + '\n'], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${object.metadata?.name}${container && container !== ALL ? `-${container}` : ''}${previous ? '-previous' : ''}.log`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const errors = Object.entries(states).filter(([, s]) => s.phase === 'error');
  const phases = Object.values(states).map((s) => s.phase);
  const status = phases.includes('streaming') ? (opts.follow ? 'following' : 'reading') : phases.includes('reconnecting') ? 'reconnecting' : phases.includes('connecting') ? 'connecting' : phases.length ? 'ended' : 'idle';

  // the toolbar stays as it is while lines stream in (a frame renders the lines and the status only)
  const pauseLabel = paused ? `Resume${lastSeq > shownLast ? ` (${lastSeq - shownLast} new)` : ''}` : 'Pause';
  const hasLines = buffer.length > 0;
  const toolbar = useMemo(
    () => (
          <div className="logs-tools">
            <label>
              container{' '}
              <select value={container} onChange={(e) => setContainer(e.target.value)} data-testid="logs-container">
                {choices.names.map((n) => (
                  <option key={n.name} value={n.name}>
                    {n.name}
                    {n.role !== 'container' ? ` (${n.role})` : ''}
                  </option>
                ))}
                {choices.names.length > 1 && <option value={ALL}>all containers</option>}
              </select>
            </label>
            <label className="check" title="The previous, terminated instance of the container (--previous)">
              <input type="checkbox" checked={previous} onChange={(e) => setPrevious(e.target.checked)} data-testid="logs-previous" /> previous
            </label>
            <label className="check">
              <input type="checkbox" checked={follow} disabled={previous} onChange={(e) => setFollow(e.target.checked)} data-testid="logs-follow" /> follow
            </label>
            <button
              className="btn small"
              data-testid="logs-pause"
              aria-pressed={paused}
              onClick={() => {
                if (paused) {
                  setPaused(false);
                  stick.current = true;
                } else {
                  setFrozenAt(live.current.lastSeq);
                  setPaused(true);
                  // the window stops following the end: it starts from where the reader is
                  const top = scrollRef.current?.scrollTop ?? 0;
                  setViewport((v) => ({ ...v, top }));
                }
              }}
            >
              {pauseLabel}
            </button>
            <label>
              since{' '}
              <select value={since} onChange={(e) => setSince(e.target.value)} data-testid="logs-since">
                {SINCE.map(([v, l]) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
            <label>
              tail{' '}
              <select value={tail} onChange={(e) => setTail(e.target.value)} data-testid="logs-tail">
                {TAIL.map(([v, l]) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
            <label className="check">
              <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.target.checked)} data-testid="logs-timestamps" /> timestamps
            </label>
            <label className="check">
              <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} data-testid="logs-wrap" /> wrap
            </label>
            <input
              type="search"
              className="logs-search"
              placeholder="Search lines"
              aria-label="Search the log"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              data-testid="logs-search"
            />
            {query && (
              <span className="muted small" data-testid="logs-match-count">
                {matchCount.toLocaleString()} matching line{matchCount === 1 ? '' : 's'}
                {!counted && ' so far…'}
              </span>
            )}
            <span className="spacer" />
            <button className="btn small" onClick={download} disabled={!hasLines} data-testid="logs-download">
              Download
            </button>
          </div>
    ),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [choices, container, previous, follow, paused, pauseLabel, since, tail, timestamps, wrap, query, matchCount, counted, hasLines],
  );

  return (
    <div className="logs-view" data-testid="logs-view">
      {toolbar}
      <div className="logs-status muted small" data-testid="logs-status" data-status={status}>
        {status} · {buffer.length.toLocaleString()} line{buffer.length === 1 ? '' : 's'}
        {buffer.dropped > 0 && ` · older lines dropped (keeps the last ${MAX_LOG_LINES.toLocaleString()})`}
        {!isPod && ` · ${Math.min(totalTargets, MAX_WORKLOAD_STREAMS)} of ${totalTargets} pod stream${totalTargets === 1 ? '' : 's'}`}
        {!isPod && totalTargets > MAX_WORKLOAD_STREAMS && ' (open a pod for the rest)'}
      </div>
      {errors.map(([id, s]) => (
        <div key={id} data-testid="logs-error">
          {targets.length > 1 && <span className="muted small">{id}: </span>}
          <ErrorState error={s.error} compact />
        </div>
      ))}
      <div
        className={`logs-lines${wrap ? ' wrap' : ''}`}
        ref={scrollRef}
        tabIndex={0}
        role="log"
        aria-label="Log lines"
        data-testid="logs-lines"
        onScroll={(e) => {
          const el = e.currentTarget;
          const end = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          stick.current = end;
          if (end !== atEnd) setAtEnd(end);
          // stuck to the end, the window follows the last line: no render for the scroll it set itself
          if (end && !paused) return;
          const top = el.scrollTop;
          setViewport((v) => (Math.floor(v.top / ROW) === Math.floor(top / ROW) ? v : { ...v, top }));
        }}
      >
        <span ref={measureRef} className="logs-measure" aria-hidden="true">
          {'M'.repeat(100)}
        </span>
        <div className="logs-rows" style={{ height: totalRows * ROW }}>
          <div className="logs-window" style={{ transform: `translateY(${firstRow * ROW}px)` }}>
            {range.to >= range.from &&
              Array.from({ length: range.to - range.from + 1 }, (_, k) => {
                const seq = range.from + k;
                const l = buffer.at(seq);
                return l ? <LogRow key={seq} line={l} rows={idx.rowsOf(seq)} query={query} timestamps={timestamps} /> : null;
              })}
          </div>
        </div>
        {!buffer.length && <div className="muted small logs-empty">{status === 'ended' ? 'No log lines.' : 'Waiting for log lines…'}</div>}
      </div>
      {!atEnd && (
        <button
          className="btn small logs-jump"
          data-testid="logs-jump-end"
          onClick={() => {
            stick.current = true;
            setAtEnd(true);
            const el = scrollRef.current;
            if (el) el.scrollTop = el.scrollHeight;
          }}
        >
          ↓ Jump to the end
        </button>
      )}
    </div>
  );
}

function lineText(l: LogLine, timestamps: boolean): string {
  return `${l.prefix ? `[${l.prefix}] ` : ''}${timestamps && l.ts ? `${l.ts} ` : ''}${l.text}`;
}

/** lineText(l).length without building the string (a re-layout measures every line held). */
function lineWidth(l: LogLine, timestamps: boolean): number {
  return (l.prefix ? l.prefix.length + 3 : 0) + (timestamps && l.ts ? l.ts.length + 1 : 0) + l.text.length;
}

function highlight(text: string, q: string): (string | ReactElement)[] {
  const out: (string | ReactElement)[] = [];
  const lower = text.toLowerCase();
  let i = 0;
  for (let j = lower.indexOf(q); j >= 0; j = lower.indexOf(q, j + q.length)) {
    if (j > i) out.push(text.slice(i, j));
    out.push(<mark key={j}>{text.slice(j, j + q.length)}</mark>);
    i = j + q.length;
  }
  if (i < text.length) out.push(text.slice(i));
  return out;
}

/** One line; lines never change, so a row re-renders only when the query or the timestamps do. */
const LogRow = memo(function LogRow({ line, rows, query, timestamps }: { line: LogLine; rows: number; query: string; timestamps: boolean }) {
  const q = query.toLowerCase();
  const text = lineText(line, timestamps);
  const match = q !== '' && line.text.toLowerCase().includes(q);
  return (
    <div className={`log-line${match ? ' log-match' : ''}`} style={rows > 1 ? { height: rows * ROW } : undefined} data-testid={match ? 'log-match' : undefined} data-seq={line.seq}>
      {match ? highlight(text, q) : text}
    </div>
  );
});
