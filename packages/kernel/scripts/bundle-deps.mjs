/**
 * Writes three of tsc's outputs again as esbuild bundles, so a start loads a few files where the
 * dependencies' own builds are well over a hundred modules:
 * - dist/zod.js and dist/zod-mini.js (src/zod.ts, src/zod-mini.ts): zod's classic and mini APIs
 *   over one shared chunk, so the process holds one zod core;
 * - dist/vendor.js (src/vendor.ts): tapable and the parts of semver the kernel uses.
 * Types stay tsc's (the .d.ts files re-export the packages' own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// Earlier chunks, and tsc's source maps of the rewritten files, which no longer describe them.
const stale = new Set(['zod.js.map', 'zod-mini.js.map', 'vendor.js.map']);
for (const f of fs.readdirSync(dist)) if (f.startsWith('chunk-') || stale.has(f)) fs.rmSync(path.join(dist, f));
const common = { outdir: dist, allowOverwrite: true, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' };
const entry = (name) => ({ [name]: path.join(root, 'src', `${name}.ts`) });
await build({ ...common, entryPoints: { ...entry('zod'), ...entry('zod-mini') }, splitting: true, chunkNames: 'chunk-[hash]' });
await build({
  ...common,
  entryPoints: entry('vendor'),
  // tapable is CommonJS and requires Node built-ins: the bundle gets a real require for them.
  banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(process.execPath);" },
});
