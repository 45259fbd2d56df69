// The built-in runtime of `kubectl exec` into a simulated container: a few commands over what the container
// really has according to its spec (environment, mounted files, host name), and a small `sh -c` for them.
// Nothing runs on the host. Supported: env, printenv, cat, ls, hostname, echo, pwd, true, false, sleep, date,
// exit N, and sh/bash/ash -c SCRIPT (or an interactive sh reading commands from stdin) with ; && || newlines,
// quotes, $VAR/${VAR}/$?, and the redirections >&2 1>&2 2>&1 >/dev/null 2>/dev/null. Anything else exits 127
// with the shell's "not found" text, as a container without that program would.
import type { Readable } from 'node:stream';
import { resolvePath, type FileTree } from './container-view.js';
import { withTerminal } from './terminal.js';
import { delay, until } from './abortable.js';

export interface ProcessIO {
  stdin?: Readable;
  stdout(b: Buffer | string): Promise<void>;
  stderr(b: Buffer | string): Promise<void>;
  signal: AbortSignal;
  /** the client asked for a terminal (exec -t) */
  tty?: boolean;
}

export interface BuiltinContext {
  env: [string, string][];
  files: FileTree;
  hostname: string;
}

/** Longest script or stdin line the simulated shell reads (ARG_MAX-like bound). */
const MAX_LINE = 128 * 1024;
const MAX_SLEEP_MS = 24 * 3600_000;

/** Reads stdin as lines or chunks, with a bounded buffer. */
export class StdinReader {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  private waiter?: () => void;
  constructor(private readonly stream: Readable | undefined) {
    if (!stream) {
      this.ended = true;
      return;
    }
    stream.on('data', (c: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, c]) : c;
      if (this.buf.length > MAX_LINE) stream.pause();
      this.wake();
    });
    stream.on('end', () => ((this.ended = true), this.wake()));
    stream.on('close', () => ((this.ended = true), this.wake()));
    stream.on('error', () => ((this.ended = true), this.wake()));
  }
  private wake() {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
  private wait(signal: AbortSignal): Promise<void> {
    return until((wake) => (this.waiter = wake), signal);
  }
  /** Next chunk, or undefined at EOF. */
  async chunk(signal: AbortSignal): Promise<Buffer | undefined> {
    while (this.buf.length === 0 && !this.ended && !signal.aborted) await this.wait(signal);
    if (this.buf.length === 0) return undefined;
    const b = this.buf;
    this.buf = Buffer.alloc(0);
    this.stream?.resume();
    return b;
  }
  /** Next line without its newline, or undefined at EOF. */
  async line(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl >= 0 || this.buf.length >= MAX_LINE || (this.ended && this.buf.length)) {
        const end = nl >= 0 ? nl : this.buf.length;
        const line = this.buf.subarray(0, end).toString('utf8');
        this.buf = this.buf.subarray(Math.min(this.buf.length, end + 1));
        this.stream?.resume();
        return line;
      }
      if (this.ended || signal.aborted) return undefined;
      await this.wait(signal);
    }
  }
}

type Word = string;
interface Command {
  words: Word[];
  /** fd 1 and 2 targets: 1 stdout, 2 stderr, 0 /dev/null */
  out: 0 | 1 | 2;
  err: 0 | 1 | 2;
}
interface Step {
  cmd: Command;
  /** how this step is joined to the previous one */
  op: ';' | '&&' | '||';
}

class SyntaxError extends Error {}

/** Parses a script into steps, expanding variables as it goes (`$?` is expanded when the step runs). */
function parse(script: string): Step[] {
  const steps: Step[] = [];
  let words: Word[] = [];
  let out: 0 | 1 | 2 = 1;
  let err: 0 | 1 | 2 = 2;
  let op: Step['op'] = ';';
  let i = 0;
  const flush = (nextOp: Step['op']) => {
    if (words.length) steps.push({ cmd: { words, out, err }, op });
    else if (nextOp !== ';' || op !== ';') throw new SyntaxError(`syntax error: unexpected "${nextOp}"`);
    words = [];
    out = 1;
    err = 2;
    op = nextOp;
  };
  while (i < script.length) {
    const ch = script[i]!;
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    if (ch === '\n' || ch === ';') {
      if (words.length) flush(';');
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < script.length && script[i] !== '\n') i++;
      continue;
    }
    if (script.startsWith('&&', i) || script.startsWith('||', i)) {
      flush(script.slice(i, i + 2) as '&&' | '||');
      i += 2;
      continue;
    }
    if (ch === '|' || ch === '&' || ch === '<' || ch === '(' || ch === ')' || ch === '`') throw new SyntaxError(`"${ch}" is not supported by the simulated shell`);
    const redir = /^(?:([12])?>&([12])|([12])?>\s*\/dev\/null)/.exec(script.slice(i));
    if (redir) {
      const fd = Number(redir[1] ?? redir[3] ?? 1);
      const to = redir[2] ? (Number(redir[2]) as 1 | 2) : 0;
      // n>&m points n where m points now
      const target: 0 | 1 | 2 = to === 0 ? 0 : to === 1 ? out : err;
      if (fd === 1) out = target;
      else err = target;
      i += redir[0].length;
      continue;
    }
    if (ch === '>') throw new SyntaxError("can't create file: Read-only file system");
    // a word: quoted parts are joined with unquoted ones
    let w = '';
    while (i < script.length && !' \t\n;|&<>()`'.includes(script[i]!)) {
      const c = script[i]!;
      if (c === "'") {
        const end = script.indexOf("'", i + 1);
        if (end < 0) throw new SyntaxError('unterminated quoted string');
        w += script.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (i < script.length && script[i] !== '"') {
          if (script[i] === '\\' && i + 1 < script.length && '$`"\\\n'.includes(script[i + 1]!)) {
            w += script[i + 1];
            i += 2;
          } else if (script[i] === '$') {
            const v = variable(script, i);
            w += v.text;
            i = v.end;
          } else w += script[i++];
        }
        if (i >= script.length) throw new SyntaxError('unterminated quoted string');
        i++;
      } else if (c === '\\') {
        if (i + 1 < script.length && script[i + 1] !== '\n') w += script[i + 1];
        i += 2;
      } else if (c === '$') {
        const v = variable(script, i);
        w += v.text;
        i = v.end;
      } else w += script[i++];
    }
    words.push(w);
  }
  if (words.length) flush(';');
  else if (op !== ';') throw new SyntaxError('syntax error: unexpected end of file');
  return steps;
}

/** Variables are kept as markers and expanded when the step runs (so `$?` is the previous status). */
const MARK = '\u0000';
function variable(s: string, i: number): { text: string; end: number } {
  const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*|\?)\}/.exec(s.slice(i));
  const bare = braced ? undefined : /^\$([A-Za-z_][A-Za-z0-9_]*|\?)/.exec(s.slice(i));
  const m = braced ?? bare;
  if (!m) return { text: '$', end: i + 1 };
  return { text: `${MARK}${m[1]}${MARK}`, end: i + m[0].length };
}

function expandMarks(w: string, env: Map<string, string>, status: number): string {
  if (!w.includes(MARK)) return w;
  return w.replace(/\u0000([^\u0000]*)\u0000/g, (_a, name: string) => (name === '?' ? String(status) : (env.get(name) ?? '')));
}

class Exit {
  constructor(readonly code: number) {}
}

/** Runs argv as the container's entry to exec would: a shell for sh -c, else one command. Returns the exit code. */
export async function runBuiltin(argv: string[], ctx: BuiltinContext, io: ProcessIO): Promise<number> {
  if (io.tty) io = withTerminal(io);
  const env = new Map(ctx.env);
  const stdin = new StdinReader(io.stdin);
  const shell = new Shell(ctx, env, io, stdin);
  try {
    return await shell.exec(argv, 1, 2, true);
  } catch (e) {
    if (e instanceof Exit) return e.code;
    throw e;
  }
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

class Shell {
  private status = 0;
  constructor(
    private readonly ctx: BuiltinContext,
    private readonly env: Map<string, string>,
    private readonly io: ProcessIO,
    private readonly stdin: StdinReader,
  ) {}

  private writer(fd: 0 | 1 | 2) {
    return (b: Buffer | string) => (fd === 0 ? Promise.resolve() : fd === 1 ? this.io.stdout(b) : this.io.stderr(b));
  }

  async script(text: string): Promise<number> {
    let steps: Step[];
    try {
      steps = parse(text);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      await this.io.stderr(`sh: ${e.message}\n`);
      return (this.status = 2);
    }
    for (const { cmd, op } of steps) {
      if (op === '&&' && this.status !== 0) continue;
      if (op === '||' && this.status === 0) continue;
      const words = cmd.words.map((w) => expandMarks(w, this.env, this.status));
      this.status = await this.exec(words, cmd.out, cmd.err, false);
      if (this.io.signal.aborted) break;
    }
    return this.status;
  }

  async exec(argv: string[], outFd: 0 | 1 | 2, errFd: 0 | 1 | 2, top: boolean): Promise<number> {
    const out = this.writer(outFd);
    const err = this.writer(errFd);
    const [cmd0, ...args] = argv;
    if (cmd0 === undefined) return 0;
    const name = base(cmd0);
    // variable assignments on their own set shell variables
    if (!top && /^[A-Za-z_][A-Za-z0-9_]*=/.test(cmd0) && args.length === 0) {
      const eq = cmd0.indexOf('=');
      this.env.set(cmd0.slice(0, eq), cmd0.slice(eq + 1));
      return 0;
    }
    switch (name) {
      case 'sh':
      case 'bash':
      case 'ash':
      case 'dash': {
        if (args[0] === '-c') {
          if (args[1] === undefined) {
            await err(`${name}: -c requires an argument\n`);
            return 2;
          }
          return this.script(args[1].slice(0, MAX_LINE));
        }
        if (args.length > 0 && !args[0]!.startsWith('-')) {
          await err(`${name}: can't open '${args[0]}': No such file or directory\n`);
          return 2;
        }
        // interactive: commands from stdin, one line at a time
        for (;;) {
          // busybox's prompt for root, on a terminal only
          if (this.io.tty) await this.io.stdout('/ # ');
          const line = await this.stdin.line(this.io.signal);
          if (line === undefined) return this.status;
          await this.script(line);
        }
      }
      case 'exit': {
        const n = args[0] === undefined ? this.status : Number.parseInt(args[0], 10);
        throw new Exit(Number.isNaN(n) ? 2 : ((n % 256) + 256) % 256);
      }
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'env':
        if (args.length) break;
        await out([...this.env].map(([k, v]) => `${k}=${v}\n`).join(''));
        return 0;
      case 'printenv': {
        if (args.length === 0) {
          await out([...this.env].map(([k, v]) => `${k}=${v}\n`).join(''));
          return 0;
        }
        let code = 0;
        for (const a of args) {
          if (this.env.has(a)) await out(`${this.env.get(a)}\n`);
          else code = 1;
        }
        return code;
      }
      case 'echo': {
        const noNewline = args[0] === '-n';
        const text = (noNewline ? args.slice(1) : args).join(' ');
        await out(noNewline ? text : text + '\n');
        return 0;
      }
      case 'hostname':
        await out(`${this.ctx.hostname}\n`);
        return 0;
      case 'pwd':
        await out('/\n');
        return 0;
      case 'date':
        await out(`${new Date().toUTCString().replace('GMT', 'UTC')}\n`);
        return 0;
      case 'sleep': {
        const s = Number(args[0]);
        if (!Number.isFinite(s) || s < 0) {
          await err(`sleep: invalid number '${args[0] ?? ''}'\n`);
          return 1;
        }
        await delay(Math.min(s * 1000, MAX_SLEEP_MS), this.io.signal);
        return 0;
      }
      case 'cat':
        return this.cat(args, out, err);
      case 'ls':
        return this.ls(args, out, err);
      default:
        break;
    }
    await err(`sh: ${cmd0}: not found\n`);
    return 127;
  }

  private async cat(args: string[], out: (b: Buffer | string) => Promise<void>, err: (b: Buffer | string) => Promise<void>): Promise<number> {
    const files = args.filter((a) => a !== '-u');
    if (files.length === 0) files.push('-');
    let code = 0;
    for (const f of files) {
      if (f === '-') {
        for (let c = await this.stdin.chunk(this.io.signal); c; c = await this.stdin.chunk(this.io.signal)) await out(c);
        continue;
      }
      const p = resolvePath('/', f);
      const data = this.ctx.files.files.get(p);
      if (data) await out(data);
      else if (this.isDir(p)) {
        await err(`cat: read error: Is a directory\n`);
        code = 1;
      } else {
        await err(`cat: can't open '${f}': No such file or directory\n`);
        code = 1;
      }
    }
    return code;
  }

  private isDir(p: string): boolean {
    if (this.ctx.files.dirs.has(p)) return true;
    const prefix = p === '/' ? '/' : p + '/';
    for (const k of this.ctx.files.files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  private entries(dir: string): string[] {
    const prefix = dir === '/' ? '/' : dir + '/';
    const names = new Set<string>();
    for (const k of [...this.ctx.files.files.keys(), ...this.ctx.files.dirs]) {
      if (k.startsWith(prefix) && k.length > prefix.length) names.add(k.slice(prefix.length).split('/')[0]!);
    }
    return [...names].sort();
  }

  private async ls(args: string[], out: (b: Buffer | string) => Promise<void>, err: (b: Buffer | string) => Promise<void>): Promise<number> {
    const flags = args.filter((a) => a.startsWith('-') && a.length > 1).join('');
    const all = flags.includes('a');
    const long = flags.includes('l');
    const paths = args.filter((a) => !a.startsWith('-') || a.length === 1);
    if (paths.length === 0) paths.push('/');
    let code = 0;
    const lines: string[] = [];
    const fmt = (dir: string, n: string) => {
      const p = resolvePath(dir, n);
      if (!long) return n;
      const data = this.ctx.files.files.get(p);
      return data ? `-rw-r--r--    1 root     root     ${String(data.length).padStart(8)} ${n}` : `drwxr-xr-x    2 root     root            0 ${n}`;
    };
    for (const a of paths) {
      const p = resolvePath('/', a);
      if (this.ctx.files.files.has(p)) lines.push(fmt('/', a));
      else if (this.isDir(p)) {
        if (paths.length > 1) lines.push(`${a}:`);
        const names = this.entries(p).filter((n) => all || !n.startsWith('.'));
        lines.push(...(all ? ['.', '..'] : []).map((n) => fmt(p, n)), ...names.map((n) => fmt(p, n)));
      } else {
        await err(`ls: ${a}: No such file or directory\n`);
        code = 1;
      }
    }
    if (lines.length) await out(lines.join('\n') + '\n');
    return code;
  }
}
