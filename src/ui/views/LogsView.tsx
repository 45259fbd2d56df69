// The Logs tab of a pod or a workload (every pod of a Deployment/StatefulSet/DaemonSet/Job/ReplicaSet,
// each line prefixed with pod/container): container picker (init and sidecars included), previous
// instance, follow with pause, timestamps, since/tail, search with highlight and match count, wrap,
// download. The view keeps the last 50k lines; lines render in blocks the browser skips while off-screen.
import { memo, useLayoutEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import type { KubeObject } from '../../client/index.js';
import { ErrorState } from '../components/ErrorState.js';
import { useCollection } from '../data/informers.js';
import { useLogStreams, type LogBuffer, type LogLine, type LogOptions, type LogTarget } from '../data/pod-logs.js';
import { selectorString } from '../lib/workloads.js';

type Obj = Record<string, any>;

export const MAX_LOG_LINES = 50_000;
/** Streams open at once for a workload: each holds one of the browser's six HTTP/1.1 connections per host. */
export const MAX_WORKLOAD_STREAMS = 4;
const BLOCK = 100;

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
  const matches = useMatches(buffer, version, query, shownLast);

  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [atEnd, setAtEnd] = useState(true);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current && !paused) el.scrollTop = el.scrollHeight;
  }, [version, paused, wrap, timestamps]);

  const firstBlock = Math.floor(buffer.firstSeq / BLOCK);
  const lastBlock = Math.floor(shownLast / BLOCK);
  const blocks: number[] = [];
  if (buffer.length) for (let b = firstBlock; b <= lastBlock; b++) blocks.push(b);

  const download = () => {
    const text = buffer
      .all()
      .filter((l) => l.seq <= shownLast)
      .map((l) => lineText(l, timestamps))
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

  return (
    <div className="logs-view" data-testid="logs-view">
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
              setFrozenAt(lastSeq);
              setPaused(true);
            }
          }}
        >
          {paused ? `Resume${lastSeq > shownLast ? ` (${lastSeq - shownLast} new)` : ''}` : 'Pause'}
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
            {matches.length} matching line{matches.length === 1 ? '' : 's'}
          </span>
        )}
        <span className="spacer" />
        <button className="btn small" onClick={download} disabled={!buffer.length} data-testid="logs-download">
          Download
        </button>
      </div>
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
        }}
      >
        {blocks.map((b) => (
          <LogBlock
            key={b}
            buffer={buffer}
            from={Math.max(b * BLOCK, buffer.firstSeq)}
            to={Math.min(b * BLOCK + BLOCK - 1, shownLast)}
            query={query}
            timestamps={timestamps}
          />
        ))}
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

/** Seqs of the lines matching the query (case-insensitive), counted incrementally as lines arrive. */
function useMatches(buffer: LogBuffer, version: number, query: string, shownLast: number): number[] {
  const state = useRef({ query: '', through: -1, seqs: [] as number[] });
  return useMemo(() => {
    const s = state.current;
    const q = query.toLowerCase();
    if (s.query !== q || s.through > buffer.firstSeq + buffer.length - 1) Object.assign(s, { query: q, through: buffer.firstSeq - 1, seqs: [] });
    if (!q) return [];
    let drop = 0;
    while (drop < s.seqs.length && s.seqs[drop]! < buffer.firstSeq) drop++;
    if (drop) s.seqs = s.seqs.slice(drop);
    for (let seq = Math.max(s.through + 1, buffer.firstSeq); seq <= shownLast; seq++) {
      const l = buffer.at(seq);
      if (l && l.text.toLowerCase().includes(q)) s.seqs.push(seq);
    }
    s.through = Math.max(s.through, shownLast);
    return s.seqs.filter((x) => x <= shownLast);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [buffer, version, query, shownLast]);
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

/** Lines `from`..`to` (seqs) as one element; lines never change, so a block re-renders only when it grows. */
const LogBlock = memo(function LogBlock({ buffer, from, to, query, timestamps }: { buffer: LogBuffer; from: number; to: number; query: string; timestamps: boolean }) {
  const q = query.toLowerCase();
  const children: (string | ReactElement)[] = [];
  let plain = '';
  for (let seq = from; seq <= to; seq++) {
    const l = buffer.at(seq);
    if (!l) continue;
    const text = lineText(l, timestamps);
    if (q && l.text.toLowerCase().includes(q)) {
      if (plain) children.push(plain);
      plain = '';
      children.push(
        <span key={seq} className="log-match" data-testid="log-match">
          {highlight(text, q)}
        </span>,
        '\n',
      );
    } else plain += text + '\n';
  }
  if (plain) children.push(plain);
  return (
    <pre className="log-block" style={{ containIntrinsicSize: `auto ${(to - from + 1) * 18}px` }}>
      {children}
    </pre>
  );
});
