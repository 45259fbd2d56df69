// What a command run in a simulated container reads and writes (built-in shell, terminal, host processes).
import type { Readable } from 'node:stream';

export interface ProcessIO {
  stdin?: Readable;
  stdout(b: Buffer | string): Promise<void>;
  stderr(b: Buffer | string): Promise<void>;
  signal: AbortSignal;
  /** the client asked for a terminal (exec -t) */
  tty?: boolean;
}
