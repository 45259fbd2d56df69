// The benchmark's build: the explorer as shipped plus the ceiling page (bench/static), into dist-bench/.
// The explorer's own build (vite.config.ts, dist/) never contains the ceiling page.
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vite';
import base from '../vite.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export default mergeConfig(base, {
  root,
  build: {
    outDir: 'dist-bench',
    emptyOutDir: true,
    rollupOptions: { input: { main: `${root}index.html`, bench: `${root}bench/static/index.html` } },
  },
});
