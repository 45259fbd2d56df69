// Reload of the AuthenticationConfiguration file (upstream reloads --authentication-config when its
// content changes): a valid new version replaces the running one; an invalid one is logged with its
// problems and the last good version stays.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ConfigLoadError, formatLoadProblem, loadServerConfigs } from '../../config/load.js';
import type { AuthenticationConfiguration } from '../../config/types.js';

export interface ReloadOptions {
  file: string;
  anonymousAuthFlagSet: boolean;
  /** Applies a valid configuration; throwing keeps the previous one. */
  apply(config: AuthenticationConfiguration): void | Promise<void>;
  log(line: string): void;
}

/** Loads and validates the file (the same loader as at start). */
export async function loadAuthenticationConfig(file: string, anonymousAuthFlagSet: boolean): Promise<AuthenticationConfiguration> {
  const loaded = await loadServerConfigs({ authenticationConfig: file, anonymousAuthFlagSet });
  return loaded.authentication!;
}

export class ConfigReloader {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private lastHash = '';
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ReloadOptions) {}

  /** Remembers the running content and watches the file's directory (editors and ConfigMaps replace files). */
  async start(): Promise<void> {
    this.lastHash = await this.hash();
    try {
      this.watcher = watch(dirname(this.opts.file), (_event, name) => {
        if (name !== null && name !== basename(this.opts.file) && !String(name).startsWith('..')) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.reload(), 50);
      });
      this.watcher.on('error', (e) => this.opts.log(`authentication config watch: ${e.message}`));
    } catch (e) {
      this.opts.log(`cannot watch ${this.opts.file}: ${(e as Error).message}; it is not reloaded`);
    }
  }

  private async hash(): Promise<string> {
    try {
      return createHash('sha256').update(await readFile(this.opts.file)).digest('hex');
    } catch {
      return '';
    }
  }

  /** Reloads when the content changed; resolves once applied or rejected. */
  reload(): Promise<void> {
    this.running = this.running.then(async () => {
      const h = await this.hash();
      if (h === '' || h === this.lastHash) return;
      this.lastHash = h;
      try {
        const cfg = await loadAuthenticationConfig(this.opts.file, this.opts.anonymousAuthFlagSet);
        await this.opts.apply(cfg);
        this.opts.log(`reloaded AuthenticationConfiguration from ${this.opts.file}`);
      } catch (e) {
        const detail = e instanceof ConfigLoadError ? e.problems.filter((p) => p.severity === 'error').map((p) => `  ${formatLoadProblem(p)}`).join('\n') : `  ${(e as Error).message}`;
        this.opts.log(`error reloading AuthenticationConfiguration from ${this.opts.file}; keeping the previous configuration:\n${detail}`);
      }
    });
    return this.running;
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }
}
