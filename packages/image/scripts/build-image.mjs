/**
 * Builds the server image: dist/server.cjs, one CommonJS script holding the `memory-service`
 * command (the server's own bundle, which carries the MCP SDK), the kernel with its zod, the
 * stores and every first-party plugin, and dist/image.json, which names what it was built from
 * (src/launch.ts reads both).
 *
 * One script, because V8 keeps a code cache for a script (vm.Script cachedData) and Node 20 has
 * none for ES modules. What stays outside, loaded from node_modules when first needed as in the
 * modules: the SQLite drivers (native), fastify (HTTP only), the SDK's ajv validator (first
 * elicitation), yaml (first config.yaml) and semver (an unusual kernel range).
 *
 * `import.meta.url` has no meaning in a script: each file's use of it becomes the URL of that
 * same file in its package, found at run time from the package roots the launcher resolves, so a
 * createRequire or a `new URL('./tool-schemas.json', import.meta.url)` reaches what it reached.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { FIRST_PARTY_PLUGINS } from '@memory-service/server';
import { unwrapInferredNames } from './inferred-names.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const IMAGE = 'server.cjs';

/** Loaded when first needed, from node_modules, as in the modules. */
/** Built-in modules loaded at their first use rather than at start (see the rewrite after the build). */
const LAZY_BUILTINS = new Set(['node:crypto']);

const EXTERNAL = ['better-sqlite3', 'better-sqlite3-napi', 'fastify', '@fastify/*', 'ajv', 'ajv-formats', 'yaml', 'semver'];

const serverIndex = fileURLToPath(import.meta.resolve('@memory-service/server'));
const serverCli = path.join(path.dirname(serverIndex), 'bundle', 'cli.js');
if (!fs.existsSync(serverCli)) throw new Error(`the server's bundle is missing (${serverCli}): build @memory-service/server first`);

/** The package a file belongs to: the nearest package.json with a name, and the file's path in it. */
const packageCache = new Map();
function packageOf(file) {
  let dir = path.dirname(file);
  for (;;) {
    if (packageCache.has(dir)) break;
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      const name = JSON.parse(fs.readFileSync(pj, 'utf8')).name;
      if (name) {
        packageCache.set(dir, name);
        break;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json with a name above ${file}`);
    dir = up;
  }
  return { name: packageCache.get(dir), root: dir, file: path.relative(dir, file).split(path.sep).join('/') };
}

/** @type {import('esbuild').Plugin} */
const fileUrls = {
  name: 'memory-service-image-file-urls',
  setup(b) {
    b.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const { name, file } = packageOf(args.path);
      const contents = source.replaceAll('import.meta.url', `__imageFileUrl(${JSON.stringify(name)}, ${JSON.stringify(file)})`);
      if (contents.includes('import.meta')) throw new Error(`${args.path} uses import.meta other than import.meta.url`);
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

const entry = [
  `export { main } from ${JSON.stringify(serverCli)};`,
  ...FIRST_PARTY_PLUGINS.map((spec, i) => `import * as p${i} from ${JSON.stringify(spec)};`),
  `export const plugins = { ${FIRST_PARTY_PLUGINS.map((spec, i) => `${JSON.stringify(spec)}: p${i}`).join(', ')} };`,
].join('\n');

fs.mkdirSync(dist, { recursive: true });
const outfile = path.join(dist, IMAGE);
const result = await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'image-entry.js', loader: 'js' },
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [fileUrls],
  // Class and function names as in the sources (error names such as PluginNotPreloaded, stack traces).
  keepNames: true,
  // White space and syntax minified, identifiers kept: every start reads the whole script and copies
  // it into V8's heap, so its size is start-up time (1.77 MB -> 1.26 MB, spawn to tools/list about
  // 10 ms shorter). Its line numbers meant nothing to a reader before either (one bundle, no source
  // map); MEMORY_IMAGE=0 starts from the packages' modules for debugging.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: {
    js: [
      'const __imageFileUrl = (pkg, rel) => require("node:url").pathToFileURL(require("node:path").join(__imagePackageRoots[pkg], rel)).href;',
      // __toESM is esbuild's, defined below in the same function before any module runs.
      'const __builtins = new Map();',
      'const __builtin = (name) => { let m = __builtins.get(name); if (m === undefined) __builtins.set(name, (m = __toESM(require(name), 1))); return m; };',
      'const __lazyBuiltin = (name, namespace) => new Proxy({}, { get: (_, key) => (namespace ? __builtin(name) : require(name))[key] });',
    ].join('\n'),
  },
  metafile: true,
  logLevel: 'warning',
});

// ASCII only: one character outside Latin-1 (a dash in a comment) makes V8 keep the whole source
// as a two-byte string, twice the memory for as long as the server runs. \u escapes mean the same
// in strings, templates and regular expressions, and are plain text in comments.
const text = fs.readFileSync(outfile, 'utf8');
const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// Node's built-in modules: esbuild gives each bundled file's import of one its own namespace
// object (__toESM copies every export of the module onto a new object as a getter: 19 copies of
// node:fs, 16 of node:path), and requires each at the file's load, node:crypto with its fourteen
// internal modules included although nothing uses it before the first write of a key or id.
// One namespace per built-in, and node:crypto's loaded at its first use (a property read through a
// Proxy: what the code reads is a function of the module's, called as before).
const builtins = ascii
  .replace(/__toESM\(require\("(node:[a-z0-9_/]+)"\)(?:,1)?\)/g, (_, name) =>
    LAZY_BUILTINS.has(name) ? `__lazyBuiltin(${JSON.stringify(name)}, true)` : `__builtin(${JSON.stringify(name)})`,
  )
  .replace(/(?<![\w$.])require\("(node:[a-z0-9_/]+)"\)/g, (call, name) => (LAZY_BUILTINS.has(name) ? `__lazyBuiltin(${JSON.stringify(name)}, false)` : call));
// keepNames: esbuild names each function and class through a helper, one per bundle inside the
// image (eleven), that defines `name` on it. A function whose `name` is redefined leaves V8's fast
// properties for a dictionary of its own: about 430 bytes and 2 microseconds each, for the 3,300
// functions named while the image loads (1.4 MB of the heap at ready, before the first request).
// Nearly all of them already have that name; the helper now defines it only where it differs
// (a function renamed by the bundling, or anonymous), with the same result for every function.
let nameHelpers = 0;
const named = builtins.replace(/\(target,value\)=>(__defProp\d*)\(target,"name",\{value,configurable:!0\}\)/g, (_, defProp) => {
  nameHelpers++;
  return `(target,value)=>target.name===value?target:${defProp}(target,"name",{value,configurable:!0})`;
});
const helperDefinitions = (builtins.match(/[^\w$]__name\d*=/g) ?? []).length;
if (nameHelpers === 0 || nameHelpers !== helperDefinitions) {
  throw new Error(`esbuild's keepNames helper changed shape: ${nameHelpers} rewritten of ${helperDefinitions} __name definitions (update build-image.mjs)`);
}

// Most functions the helper still named were arrows and function expressions, which have no name
// as its argument; where the name would be inferred anyway, the call goes (inferred-names.mjs).
// In the kernel's bundle of zod (minified, built without keepNames) every call goes.
const ZOD_MODULES = /^\.\.\/kernel\/dist\/(?:zod|zod-mini|chunk-[A-Z0-9]+)\.js$/;
const { text: inferred, unwrapped, minifiedModules } = unwrapInferredNames(named, ZOD_MODULES);
if (unwrapped < 1000 || minifiedModules < 3) {
  throw new Error(`only ${unwrapped} keepNames calls gave way, in ${minifiedModules} zod modules (update inferred-names.mjs or ZOD_MODULES)`);
}

// The file is the function the launcher calls (launch.ts, WRAPPER_PARAMS), so that the source it
// reads is the script V8 compiles, with no concatenated copy to flatten.
const { WRAPPER_PARAMS } = await import('../dist/launch.js');
fs.writeFileSync(outfile, `(function (${WRAPPER_PARAMS.join(', ')}) {${inferred}\n})`);

const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('<stdin>') && f !== 'image-entry.js');
// One zod in the image: the kernel's bundle of it; zod's own build would be a second.
const zodOwn = inputs.filter((f) => /node_modules\/zod\//.test(f));
if (zodOwn.length) throw new Error(`the image inlines zod's own build: ${zodOwn.slice(0, 3).join(', ')}`);
const ajv = inputs.filter((f) => /node_modules\/(ajv|ajv-formats)\//.test(f));
if (ajv.length) throw new Error(`the image inlines ajv: ${ajv.slice(0, 3).join(', ')}`);

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const packages = {};
const layout = {};
const recorded = [];
for (const input of inputs) {
  const abs = path.resolve(root, input);
  const { name, root: pkgRoot, file } = packageOf(abs);
  if (!(name in packages)) {
    let resolvedEntry;
    try {
      resolvedEntry = fileURLToPath(import.meta.resolve(name));
    } catch (err) {
      throw new Error(`${name} (bundled from ${input}) cannot be resolved from the image package: ${err.message}`);
    }
    if (!resolvedEntry.startsWith(pkgRoot + path.sep)) throw new Error(`${name} resolves to ${resolvedEntry}, outside ${pkgRoot}`);
    packages[name] = path.relative(pkgRoot, resolvedEntry).split(path.sep).join('/');
    layout[name] = path.relative(root, pkgRoot).split(path.sep).join('/');
  }
  const stat = fs.statSync(abs);
  recorded.push({ pkg: name, file, size: stat.size, mtimeMs: stat.mtimeMs, sha256: sha256(fs.readFileSync(abs)) });
}

const manifest = { format: 2, image: IMAGE, hash: sha256(fs.readFileSync(outfile)), packages, layout, inputs: recorded };
fs.writeFileSync(path.join(dist, 'image.json'), `${JSON.stringify(manifest, null, 2)}\n`);
