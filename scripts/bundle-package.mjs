/**
 * Bundles a package's tsc output (dist/index.js and the modules it imports) into one ES module,
 * dist/bundle.js, which the package's `exports` point at. Run from the package directory after
 * tsc: `node ../../scripts/bundle-package.mjs [--keep ./zod.js,./vendor.js]`.
 *
 * Why: Node's ESM loader pays for every module it resolves, reads, compiles and links. The kernel,
 * the stores and the primitives were about eighty modules, a fifth of each start; three files
 * load in well under half that time.
 *
 * What stays external, imported exactly as without the bundle:
 * - every dependency and peer dependency, and every `@memory-service/*` package, so a package
 *   exists once in the process however it is reached (the kernel above all: one MemoryError, one
 *   set of hooks, one tool registry for the server, the plugins and third-party plugins);
 * - the relative imports named by --keep, which stay separate files of dist/ (the kernel's
 *   dist/zod.js is also `@memory-service/kernel/zod`: one module, one zod);
 * - Node built-ins.
 * The types stay tsc's (dist/index.d.ts), and the bundle's source map leads back to src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const cwd = process.cwd();
const args = process.argv.slice(2);
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 ? (args[keepAt + 1] ?? '').split(',').filter(Boolean) : [];
for (const k of keep) if (!k.startsWith('./')) throw new Error(`--keep takes paths relative to dist/ (./name.js), not ${k}`);

const pkg = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), '@memory-service/*', ...keep];
const dist = path.join(cwd, 'dist');
const entry = path.join(dist, 'index.js');
if (!fs.existsSync(entry)) throw new Error(`${pkg.name}: no ${path.relative(cwd, entry)} to bundle (run tsc first)`);

const result = await build({
  entryPoints: [entry],
  outfile: path.join(dist, 'bundle.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // Class and function names stay as in the sources (error names, stack traces).
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});

// Only the package's own modules may be inside: anything else would be a second copy of a module
// other code imports by name.
const foreign = Object.keys(result.metafile.inputs).filter((file) => !path.resolve(file).startsWith(dist + path.sep));
if (foreign.length) throw new Error(`${pkg.name}: the bundle would inline modules from outside dist/: ${foreign.join(', ')}`);
const exported = pkg.exports?.['.']?.import;
if (exported !== './dist/bundle.js') throw new Error(`${pkg.name}: package.json exports["."].import must be ./dist/bundle.js, not ${exported}`);

// The bundle must export exactly what tsc's entry exports.
const [fromBundle, fromIndex] = await Promise.all([import(pathToFileURL(path.join(dist, 'bundle.js')).href), import(pathToFileURL(entry).href)]);
const names = (m) => Object.keys(m).sort().join(',');
if (names(fromBundle) !== names(fromIndex)) throw new Error(`${pkg.name}: dist/bundle.js does not export what dist/index.js exports`);
