// The Terminal tab of a pod: xterm.js over the exec WebSocket (v5, falling back to v4), sized to its
// box (resize events follow), with a container and command picker. When the socket cannot open, the
// same request without an upgrade says why: forbidden (403), no exec on this server, or a bad request.
import '@xterm/xterm/css/xterm.css';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import type { KubeObject } from '../../client/index.js';
import { diagnoseExec, openExec, type ExecSession, type ExecTarget } from '../data/exec.js';
import { useAccess } from '../data/permissions.js';
import type { ApiResource } from '../../client/index.js';

type Obj = Record<string, any>;

const COMMANDS = ['sh', '/bin/sh', '/bin/bash', 'env', 'ls -la /'];

/** argv of a command line: split on spaces, quotes kept together ("a b" → one item). */
export function argv(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

type Phase = { kind: 'idle' } | { kind: 'connecting' } | { kind: 'open'; protocol: string } | { kind: 'ended'; text: string; tone: 'ok' | 'bad' | 'muted' };

export default function TerminalView({ pod, info }: { pod: KubeObject; info: ApiResource | undefined }) {
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  const containers: string[] = [
    ...((spec.initContainers ?? []) as Obj[]).filter((c) => c.restartPolicy === 'Always').map((c) => c.name as string),
    ...((spec.containers ?? []) as Obj[]).map((c) => c.name as string),
  ];
  const preferred = pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'];
  const [container, setContainer] = useState(preferred && containers.includes(preferred) ? preferred : (containers[0] ?? ''));
  const [command, setCommand] = useState('sh');
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [run, setRun] = useState(0);
  const host = useRef<HTMLDivElement>(null);
  const access = useAccess(info, pod.metadata?.namespace);
  // upstream authorizes a WebSocket exec as `get` (and, with AuthorizePodWebsocketUpgradeCreatePermission, `create`) on pods/exec
  const forbidden = access.can('create', { name: pod.metadata?.name, subresource: 'exec' }) === false && access.can('get', { name: pod.metadata?.name, subresource: 'exec' }) === false;

  useEffect(() => {
    if (!run || !host.current) return;
    const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5000, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current);
    try {
      fit.fit();
    } catch {
      // not laid out yet: the observer below fits once it is
    }
    const target: ExecTarget = { namespace: pod.metadata!.namespace!, pod: pod.metadata!.name!, container, command: argv(command), tty: true };
    setPhase({ kind: 'connecting' });
    let session: ExecSession | undefined;
    let disposed = false;
    session = openExec(target, {
      onOpen: (protocol) => {
        if (disposed) return;
        setPhase({ kind: 'open', protocol });
        session?.resize(term.cols, term.rows);
        term.focus();
      },
      onOutput: (data) => term.write(data),
      onEnd: (end) => {
        if (disposed) return;
        if (end.kind === 'exit') setPhase({ kind: 'ended', text: `Session ended: exit code ${end.code}`, tone: end.code === 0 ? 'ok' : 'bad' });
        else if (end.kind === 'closed') setPhase({ kind: 'ended', text: 'Session closed', tone: 'muted' });
        else if (end.message) setPhase({ kind: 'ended', text: end.message, tone: 'bad' });
        else
          void diagnoseExec(target).then((d) => {
            if (disposed) return;
            const text =
              d.kind === 'forbidden'
                ? `Exec is forbidden for you: ${d.message}`
                : d.kind === 'unsupported'
                  ? `This server does not support exec into pods (${d.message})`
                  : d.kind === 'upgrade'
                    ? 'The WebSocket upgrade failed (a proxy in between may not pass WebSockets)'
                    : d.message;
            setPhase({ kind: 'ended', text, tone: 'bad' });
          });
      },
    });
    const data = term.onData((d) => session?.send(d));
    const resized = term.onResize(({ cols, rows }) => session?.resize(cols, rows));
    const ro = new ResizeObserver(() => {
      try {
        fit.fit();
      } catch {
        // detached
      }
    });
    ro.observe(host.current);
    return () => {
      disposed = true;
      ro.disconnect();
      data.dispose();
      resized.dispose();
      session?.close();
      session = undefined;
      term.dispose();
    };
    // a session lives until the user starts another one
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [run]);

  const connected = phase.kind === 'open' || phase.kind === 'connecting';
  return (
    <div className="terminal-view" data-testid="terminal-view">
      <form
        className="logs-tools"
        onSubmit={(e) => {
          e.preventDefault();
          setRun((r) => r + 1);
        }}
      >
        <label>
          container{' '}
          <select value={container} onChange={(e) => setContainer(e.target.value)} data-testid="terminal-container">
            {containers.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          command{' '}
          <input list="terminal-commands" value={command} onChange={(e) => setCommand(e.target.value)} data-testid="terminal-command" aria-label="Command" />
          <datalist id="terminal-commands">
            {COMMANDS.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </label>
        <button className="btn small primary" type="submit" disabled={!container || !command.trim() || forbidden} data-testid="terminal-connect" title={forbidden ? access.missing('create', { name: pod.metadata?.name, subresource: 'exec' }) : undefined}>
          {connected ? 'Restart session' : run ? 'Reconnect' : 'Connect'}
        </button>
        <span className={`small ${phase.kind === 'ended' ? (phase.tone === 'bad' ? 'bad' : phase.tone === 'ok' ? '' : 'muted') : 'muted'}`} data-testid="terminal-status" data-phase={phase.kind}>
          {phase.kind === 'idle' && (forbidden ? `Exec is forbidden for you: ${access.missing('create', { name: pod.metadata?.name, subresource: 'exec' })}` : 'Not connected')}
          {phase.kind === 'connecting' && 'Connecting…'}
          {phase.kind === 'open' && `Connected (${phase.protocol})`}
          {phase.kind === 'ended' && phase.text}
        </span>
      </form>
      <div className="terminal-host" ref={host} data-testid="terminal" />
    </div>
  );
}
