// A terminal's line discipline for the built-in shell when exec asks for a TTY (kubectl exec -it, the
// explorer's xterm.js terminal): what a pty in cooked mode does for a real shell — echo what is typed,
// erase with backspace, end lines on Enter (CR), ^C drops the line, ^D on an empty line is end of input,
// and output newlines become CR LF. Escape sequences (arrow keys) are ignored.
import { PassThrough, type Readable } from 'node:stream';
import type { ProcessIO } from './builtin-shell.js';

/** Longest line kept while typing (a pty's canonical buffer is 4 KiB). */
const MAX_LINE = 4096;

export function withTerminal(io: ProcessIO): ProcessIO {
  const crlf = (b: Buffer | string) => (typeof b === 'string' ? b : b.toString('utf8')).replace(/\r?\n/g, '\r\n');
  const stdout = (b: Buffer | string) => io.stdout(crlf(b));
  const stderr = (b: Buffer | string) => io.stderr(crlf(b));
  if (!io.stdin) return { ...io, stdout, stderr };
  const cooked = new PassThrough();
  let line = '';
  let escape = 0;
  const raw: Readable = io.stdin;
  raw.on('data', (chunk: Buffer) => {
    let echo = '';
    for (const ch of chunk.toString('utf8')) {
      if (escape > 0) {
        // ESC [ ... final byte: skip the sequence
        if (escape === 1 && ch !== '[' && ch !== 'O') escape = 0;
        else if (escape > 1 && ch >= '@' && ch <= '~') escape = 0;
        else escape++;
        continue;
      }
      if (ch === '\x1b') escape = 1;
      else if (ch === '\r' || ch === '\n') {
        echo += '\r\n';
        cooked.write(line + '\n');
        line = '';
      } else if (ch === '\x7f' || ch === '\b') {
        if (line.length) {
          line = [...line].slice(0, -1).join('');
          echo += '\b \b';
        }
      } else if (ch === '\x03') {
        echo += '^C\r\n';
        line = '';
        cooked.write('\n');
      } else if (ch === '\x04') {
        if (line === '') cooked.end();
        else {
          cooked.write(line);
          line = '';
        }
      } else if (ch >= ' ' && line.length < MAX_LINE) {
        line += ch;
        echo += ch;
      }
    }
    if (echo) void io.stdout(echo);
  });
  raw.on('end', () => cooked.end());
  raw.on('close', () => cooked.end());
  return { ...io, stdin: cooked, stdout, stderr };
}
