// Serves the built explorer (SPA): files from the build directory, index.html for client routes.
import { createReadStream, existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The explorer's pages: only its own scripts, styles and workers (Monaco sets inline styles; its
 * workers are files of the build); no framing (clickjacking); connections only to this origin.
 */
export const EXPLORER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Files up to this size are kept in memory once read; the whole cache holds at most STATIC_CACHE_BYTES. */
const CACHED_FILE_MAX = 8 << 20;
const STATIC_CACHE_BYTES = 64 << 20;

/**
 * The build's files, read once: a file is then answered in one write, not in 64 KiB stream chunks that
 * each wait for an event-loop turn (on a server busy right after start, its controllers scanning every
 * object, streaming the explorer's bundle took most of a second). A changed file (new mtime or size)
 * is read again.
 */
class FileCache {
  private files = new Map<string, { mtimeMs: number; size: number; body: Buffer }>();
  private bytes = 0;

  get(file: string, st: Stats): Buffer | undefined {
    if (st.size > CACHED_FILE_MAX) return undefined;
    const hit = this.files.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.body;
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      return undefined;
    }
    if (body.length !== st.size) return body; // changing under us: serve it, keep nothing
    if (hit) this.bytes -= hit.size;
    if (this.bytes + body.length > STATIC_CACHE_BYTES) return body;
    this.files.set(file, { mtimeMs: st.mtimeMs, size: st.size, body });
    this.bytes += body.length;
    return body;
  }
}

/** Serves `path`, the request's decoded path (http/chain.ts). */
export function createStaticHandler(dir: string): ((req: IncomingMessage, res: ServerResponse, path: string) => boolean) | undefined {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return undefined;
  const cache = new FileCache();
  return (req, res, path) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const decoded = path; // decoded once, by the chain (decodePath): never again
    if (decoded.includes('\0')) return false;
    const rel = normalize(decoded).replace(/^(\.\.[/\\])+/, '');
    let file = join(root, rel);
    if (file !== root && !file.startsWith(root + sep)) return false;
    let isAsset = true;
    if (!existsSync(file) || !statSync(file).isFile()) {
      // client-side routes get the app shell; missing assets are a plain 404
      if (extname(rel) !== '') return false;
      file = join(root, 'index.html');
      isAsset = false;
    }
    const st = statSync(file);
    const body = req.method === 'HEAD' ? undefined : cache.get(file, st);
    for (const [k, v] of Object.entries(EXPLORER_SECURITY_HEADERS)) res.setHeader(k, v);
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', body?.length ?? st.size);
    res.setHeader('Cache-Control', isAsset && rel.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.writeHead(200);
    if (req.method === 'HEAD') res.end();
    else if (body) res.end(body);
    else createReadStream(file).pipe(res);
    return true;
  };
}
