import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The explorer is served by the API server from dist/; `vite` dev mode proxies API calls to a running server.
const apiTarget = process.env.PERISCOPE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', chunkSizeWarningLimit: 8000, sourcemap: false },
  // Monaco (config studio, object editor): workers are ES modules; the dev server pre-bundles the YAML worker
  // up front, otherwise it re-optimizes on first use and reloads the page.
  worker: { format: 'es' },
  optimizeDeps: { include: ['monaco-yaml', 'monaco-yaml/yaml.worker.js'] },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/apis', '/openapi', '/version', '/readyz'].map((p) => [
        p,
        {
          target: apiTarget,
          changeOrigin: true,
          // The API server refuses writes from other origins; the dev server's own pages speak for its origin.
          configure: (proxy: { on(ev: 'proxyReq', fn: (proxyReq: { setHeader(k: string, v: string): void }, req: { headers: Record<string, string | string[] | undefined> }) => void): void }) =>
            proxy.on('proxyReq', (proxyReq, req) => {
              if (req.headers.origin === `http://${req.headers.host}`) proxyReq.setHeader('origin', new URL(apiTarget).origin);
            }),
        },
      ]),
    ),
  },
});
