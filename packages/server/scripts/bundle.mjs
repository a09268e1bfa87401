/**
 * Bundles the `memory-service` command (dist/cli.js, compiled by tsc) with the MCP SDK and the
 * packages the SDK pulls in into dist/bundle/, so a start reads a few files instead of hundreds
 * (bin/memory-service.js imports dist/bundle/cli.js).
 *
 * What stays external, loaded from node_modules exactly as without the bundle:
 * - @memory-service/* (the kernel above all): plugins import @memory-service/kernel themselves, and
 *   a bundled second kernel would split MemoryError, the hooks and the tool registry in two;
 * - zod: the SDK's imports of `zod` and `zod/v4` are pointed at `@memory-service/kernel/zod`, and
 *   of `zod/v4-mini` at `@memory-service/kernel/zod-mini`, the kernel's bundle of zod (see
 *   packages/kernel/src/zod.ts): one zod for the kernel, the plugins and the SDK, loaded from
 *   three files instead of zod's hundred modules;
 * - better-sqlite3 (native), fastify and the server's other dependencies.
 * zod/v3 is the exception: only the SDK's zod-3 compatibility code imports it, no zod-3 schema
 * exists in this process, and bundling lets esbuild drop the unused module (zod declares its
 * modules free of side effects) instead of loading zod 3 at every start.
 *
 * The HTTP transport stays in lazily loaded chunks (code splitting), as `import('./http.js')` is.
 *
 * The SDK's ajv JSON Schema validator is loaded on first use: every SDK Server builds one at
 * construction, but a server only uses it to check elicitation answers. Imports of the SDK's
 * validation/ajv-provider.js get src/lazy-ajv-provider.ts instead, which requires the real
 * provider from node_modules on the first getValidator() call. ajv is not in the bundle at all
 * (the build fails if it is): a bundled module is parsed at every start even when never run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const BUNDLED = '@modelcontextprotocol/sdk';
const externalPackages = [...Object.keys(pkg.dependencies ?? {}).filter((dep) => dep !== BUNDLED), 'zod', 'better-sqlite3'];

/** zod entries the SDK imports, and the kernel's bundled equivalents. */
const KERNEL_ZOD = { zod: '@memory-service/kernel/zod', 'zod/v4': '@memory-service/kernel/zod', 'zod/v4-mini': '@memory-service/kernel/zod-mini' };

const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/** @type {import('esbuild').Plugin} */
const externals = {
  name: 'memory-service-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const spec = args.path;
      if (spec === 'zod/v3') return undefined;
      const zodEntry = KERNEL_ZOD[spec];
      if (zodEntry) return { path: zodEntry, external: true };
      // The default export of node:process is the process object; importing the builtin as an
      // ES module would first build its facade, which reads every getter of process.
      if (spec === 'node:process' || spec === 'process') return { path: 'process', namespace: 'global-process' };
      if (spec.startsWith('node:')) return { path: spec, external: true };
      const name = packageOf(spec);
      if (name.startsWith('@memory-service/') || externalPackages.includes(name)) return { path: spec, external: true };
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'global-process' }, () => ({ contents: 'export default process;', loader: 'js' }));
  },
};

const AJV_PROVIDER = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;

/** tsc's output of src/lazy-ajv-provider.ts, which stands in for the SDK's ajv-provider.js. */
const LAZY_AJV_PROVIDER = path.join(root, 'dist', 'lazy-ajv-provider.js');

/** @type {import('esbuild').Plugin} */
const lazyAjv = {
  name: 'memory-service-lazy-ajv',
  setup(b) {
    b.onResolve({ filter: /ajv-provider\.js$|^@modelcontextprotocol\/sdk\/validation\/ajv$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { real: true } });
      if (real.errors.length || !AJV_PROVIDER.test(real.path)) return undefined;
      return { path: LAZY_AJV_PROVIDER };
    });
  },
};

const SDK_TYPES = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/;

/**
 * The SDK's types.js builds a few hundred zod schemas at load, each a top-level const, and esbuild
 * must keep every one (a call may have side effects). Each const's initializer is wrapped in an
 * arrow function called at once and marked pure: evaluated at the same point as before when the
 * const is used, dropped with the const when nothing in the bundle uses it.
 * @type {import('esbuild').Plugin}
 */
const pureSdkSchemas = {
  name: 'memory-service-pure-sdk-schemas',
  setup(b) {
    b.onLoad({ filter: /[\\/]types\.js$/ }, (args) => {
      if (!SDK_TYPES.test(args.path)) return undefined;
      const source = fs.readFileSync(args.path, 'utf8');
      const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
      const edits = [];
      for (const node of program.body) {
        const decl = node.type === 'ExportNamedDeclaration' ? node.declaration : node;
        if (!decl || decl.type !== 'VariableDeclaration' || decl.kind !== 'const') continue;
        for (const d of decl.declarations) {
          if (!d.init || d.init.type === 'Literal' || d.init.type === 'Identifier' || d.init.type.endsWith('FunctionExpression')) continue;
          edits.push({ at: d.init.end, text: ')()' }, { at: d.init.start, text: '/* @__PURE__ */ (() => ' });
        }
      }
      if (edits.length < 100) throw new Error(`the SDK's types.js has ${edits.length} top-level schema consts; expected a few hundred`);
      edits.sort((x, y) => y.at - x.at);
      let out = source;
      for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at);
      return { contents: out, loader: 'js' };
    });
  },
};

const outdir = path.join(root, 'dist', 'bundle');
fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(root, 'dist', 'cli.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [lazyAjv, pureSdkSchemas, externals],
  // Class and function names stay as in the sources (error names, stack traces).
  keepNames: true,
  sourcemap: true,
  sourcesContent: false,
  // A bundled CommonJS module that requires a Node built-in gets a real require.
  banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});

// zod/v3 must have been dropped whole: a kept part would load a private zod 3 at start again.
const keptZod3 = Object.values(result.metafile.outputs)
  .flatMap((o) => Object.entries(o.inputs))
  .filter(([file, info]) => /node_modules\/zod\//.test(file) && info.bytesInOutput > 0);
if (keptZod3.length) {
  throw new Error(`bundle keeps parts of zod: ${keptZod3.map(([file]) => file).join(', ')}`);
}

// ajv must not be in the bundle: it is parsed at every start even where it is never evaluated.
const keptAjv = Object.keys(result.metafile.inputs).filter((file) => /node_modules\/(ajv|ajv-formats)\//.test(file));
if (keptAjv.length) throw new Error(`bundle inlines ajv: ${keptAjv.slice(0, 5).join(', ')}`);

// Every zod import must go to the kernel's bundle: any other would load zod's own build beside it.
const zodImports = Object.values(result.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.external && /^zod(\/|$)/.test(i.path));
if (zodImports.length) {
  throw new Error(`bundle imports zod entries the kernel does not bundle: ${[...new Set(zodImports.map((i) => i.path))].join(', ')}`);
}
