/**
 * Builds dist/launch.cjs, the launcher as CommonJS, from tsc's dist/launch.js: the command's bin
 * is CommonJS (packages/server/bin/package.json) and requires it, so a start from the image loads
 * no ES module at all. Node's ES module loader costs a start about 20 ms on Node 20 (its resolver,
 * the module jobs, their promises), for the three small files the bin and the launcher were.
 *
 * `import.meta.url` is the only import.meta the launcher uses; here it is this file's own URL.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

await build({
  entryPoints: [path.join(dist, 'launch.js')],
  outfile: path.join(dist, 'launch.cjs'),
  bundle: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__launcherUrl' },
  banner: { js: 'const __launcherUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});
