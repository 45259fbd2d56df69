// Serves the built explorer (SPA): files from the build directory, index.html for client routes.
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

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

export function createStaticHandler(dir: string): ((req: IncomingMessage, res: ServerResponse, path: string) => boolean) | undefined {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return undefined;
  return (req, res, path) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const rel = normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, '');
    let file = join(root, rel);
    if (!file.startsWith(root)) return false;
    let isAsset = true;
    if (!existsSync(file) || !statSync(file).isFile()) {
      // client-side routes get the app shell; missing assets are a plain 404
      if (extname(rel) !== '') return false;
      file = join(root, 'index.html');
      isAsset = false;
    }
    const st = statSync(file);
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', st.size);
    res.setHeader('Cache-Control', isAsset && rel.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.writeHead(200);
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
    return true;
  };
}
