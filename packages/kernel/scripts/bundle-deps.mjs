/**
 * Writes three of tsc's outputs again as esbuild bundles, so a start loads a few files where the
 * dependencies' own builds are well over a hundred modules:
 * - dist/zod.js and dist/zod-mini.js (src/zod.ts, src/zod-mini.ts): zod's classic and mini APIs
 *   over one shared chunk, so the process holds one zod core;
 * - dist/zod-locales.cjs: zod's translated error messages (`z.locales`), loaded on first use. They
 *   are more than half of zod's source and, being mostly non-ASCII, make the whole chunk a two-byte
 *   string that is slower to decode and compile; the default English messages stay in the chunk;
 * - dist/vendor.js (src/vendor.ts): tapable.
 * Types stay tsc's (the .d.ts files re-export the packages' own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// Earlier chunks, and tsc's source maps of the rewritten files, which no longer describe them.
const stale = new Set(['zod.js.map', 'zod-mini.js.map', 'vendor.js.map', 'zod-locales.cjs']);
for (const f of fs.readdirSync(dist)) if (f.startsWith('chunk-') || stale.has(f)) fs.rmSync(path.join(dist, f));
const common = { outdir: dist, allowOverwrite: true, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' };
const entry = (name) => ({ [name]: path.join(root, 'src', `${name}.ts`) });

const LOCALES_INDEX = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const localesEntry = fileURLToPath(import.meta.resolve('zod/v4/locales'));
if (!LOCALES_INDEX.test(localesEntry)) throw new Error(`zod's locales are not where this script expects them: ${localesEntry}`);
const localeNames = Object.keys(await import('zod/v4/locales'));
const identifier = /^[A-Za-z_$][\w$]*$/;
for (const name of localeNames) if (!identifier.test(name)) throw new Error(`zod locale export ${name} is not an identifier`);

/**
 * zod's `locales` namespace (classic, mini and core re-export it) becomes functions of the same
 * names that require dist/zod-locales.cjs on the first call and forward to the real locale.
 * @type {import('esbuild').Plugin}
 */
const lazyLocales = {
  name: 'kernel-lazy-zod-locales',
  setup(b) {
    b.onResolve({ filter: /locales[\\/]index\.js$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { real: true } });
      if (real.errors.length || !LOCALES_INDEX.test(real.path)) return undefined;
      return { path: 'zod-locales', namespace: 'lazy-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-locales' }, () => ({
      loader: 'js',
      contents: [
        "import { createRequire } from 'node:module';",
        'let real;',
        "const load = () => (real ??= createRequire(import.meta.url)('./zod-locales.cjs'));",
        ...localeNames.map((n) => `export function ${n}() { return load().${n}.apply(this, arguments); }`),
      ].join('\n'),
    }));
  },
};

await build({
  ...common,
  entryPoints: { ...entry('zod'), ...entry('zod-mini') },
  splitting: true,
  chunkNames: 'chunk-[hash]',
  plugins: [lazyLocales],
  // Minified: zod's source is parsed at every start, and V8's parse time follows its length. It also
  // drops the comments, a few of them non-ASCII. Without keepNames: zod's functions keep their
  // minified names (its error and schema names are strings it sets itself), where the helper
  // redefined `name` on about 4,700 functions a start, inner ones once per schema made, each
  // then holding a property dictionary of its own (about 430 bytes and 2 µs apiece).
  minify: true,
});
await build({ ...common, entryPoints: { 'zod-locales': localesEntry }, format: 'cjs', outExtension: { '.js': '.cjs' } });
// The chunk must hold no translated messages: one left would load the two-byte source again.
for (const f of fs.readdirSync(dist).filter((f) => f.startsWith('chunk-'))) {
  if (/[^\x00-\x7f]/.test(fs.readFileSync(path.join(dist, f), 'utf8'))) throw new Error(`${f} still holds non-ASCII text (a zod locale?)`);
}
await build({
  ...common,
  entryPoints: entry('vendor'),
  // tapable is CommonJS and requires Node built-ins: the bundle gets a real require for them.
  banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(process.execPath);" },
});
