/**
 * Writes dist/zod.js and dist/zod-mini.js (over tsc's re-exports of zod) as esbuild bundles of
 * src/zod.ts and src/zod-mini.ts that share one chunk: one zod core per process, loaded from three files instead of about a
 * hundred modules (see src/zod.ts). Types stay tsc's (dist/zod.d.ts re-exports zod's own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// Earlier chunks, and tsc's source maps of the two files, which no longer describe them.
for (const f of fs.readdirSync(dist)) if (f.startsWith('zod-chunk-') || f === 'zod.js.map' || f === 'zod-mini.js.map') fs.rmSync(path.join(dist, f));
await build({
  entryPoints: { zod: path.join(root, 'src', 'zod.ts'), 'zod-mini': path.join(root, 'src', 'zod-mini.ts') },
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'zod-chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
