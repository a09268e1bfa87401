/**
 * Starts the `memory-service` command from the server image: dist/server.cjs, one script holding
 * the server, the MCP SDK, the kernel, zod, the stores and the first-party plugins
 * (scripts/build-image.mjs), compiled by V8 with a code cache kept on disk.
 *
 * Why: Node 20 has no compile cache for ES modules (module.enableCompileCache is Node 22.1+), so
 * every start parsed and compiled about 750 KB of modules again. A script can be given V8's code
 * cache (vm.Script cachedData): spawn to answered tools/list went from about 256 to 195 ms here
 * (docs/decisions.md). The bin (packages/server/bin) calls launch() where Node lacks
 * the module cache, and starts from the packages' modules when launch() answers false:
 * - MEMORY_IMAGE=0, or MEMORY_PLUGINS names extra plugins (a third-party plugin imports the
 *   kernel's module, and the image's own kernel would be a second one beside it);
 * - the image is older than the files it was built from (a package rebuilt since), or missing;
 * - the plugin set (config.yaml `plugins:`) reaches outside the image (PluginNotPreloaded);
 * - the image cannot be loaded at all (then a warning says why).
 *
 * The code cache lives in NODE_COMPILE_CACHE or the OS temp dir's node-compile-cache (where Node
 * 22+ keeps its own), in a directory of ours made private to the user. A cache file is only read
 * when its owner is the user running the server and no one else may write it: it holds code V8
 * runs. NODE_DISABLE_COMPILE_CACHE=1 turns it off. A start without a usable cache (the first
 * after a build, a Node upgrade or other V8 flags) writes one once the server is ready.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** What the build writes beside the image (dist/image.json). */
export interface ImageManifest {
  /** 2: the image file is the wrapper function itself (WRAPPER_PARAMS); 1 was its body alone. */
  format: 2;
  /** The image's file name in dist/. */
  image: string;
  /** sha256 of the image, hex: part of the code cache's name. */
  hash: string;
  /** Each package the image was built from: its name and its entry's path inside it. */
  packages: Record<string, string>;
  /** Each package's directory relative to this package's, as it was at the build (the monorepo's layout). */
  layout: Record<string, string>;
  /** Each file bundled into the image: package, path inside it, size, mtime and sha256. */
  inputs: { pkg: string; file: string; size: number; mtimeMs: number; sha256: string }[];
}

/** What the image exports (the generated entry of scripts/build-image.mjs). */
export interface ServerImage {
  main(argv: string[], options: { modules: ReadonlyMap<string, unknown>; onReady: () => string | undefined }): Promise<void>;
  /** The first-party plugin modules, by package name. */
  plugins: Record<string, unknown>;
}

export const MANIFEST_FILE = 'image.json';

/**
 * The parameters of the function the image file is (its banner reads __imagePackageRoots): the
 * build writes the wrapper into the file, so the source read is the script compiled. Wrapping it
 * here made V8 flatten a second copy of 1.26 MB at every start (about 5 ms with the code cache).
 */
export const WRAPPER_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', '__imagePackageRoots'];

/**
 * A line of the launcher on stderr, as the server's logger writes it: an info line is left off
 * under MEMORY_LOG_QUIET=1 (warnings still print). Answers whether the line was written.
 */
export function log(level: 'info' | 'warn', message: string, env: NodeJS.ProcessEnv = process.env, err: Pick<NodeJS.WriteStream, 'write'> = process.stderr): boolean {
  if (level === 'info' && env.MEMORY_LOG_QUIET === '1') return false;
  try {
    err.write(`[memory-service] ${level}: ${message}\n`);
    return true;
  } catch {
    // stderr closed: only the line is lost.
    return false;
  }
}

/** Whether MEMORY_PLUGINS names any plugin (the same comma list the server reads). */
export function extraPlugins(env: NodeJS.ProcessEnv): boolean {
  return (env.MEMORY_PLUGINS ?? '').split(',').some((s) => s.trim() !== '');
}

/** The directory of the image's code cache, or null when the cache is turned off. */
export function cacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return null;
  const base = env.NODE_COMPILE_CACHE?.trim() || path.join(os.tmpdir(), 'node-compile-cache');
  return path.join(path.resolve(base), 'memory-service-image');
}

/** FNV-1a over a string, 8 hex digits: short names for what a cache depends on. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The cache file's name: the image's hash, the Node version and architecture, and the flags Node
 * was started with (V8 rejects a cache made under other flags; two configurations each keep one).
 */
export function cacheFileName(manifest: Pick<ImageManifest, 'hash'>, env: NodeJS.ProcessEnv, execArgv: readonly string[] = process.execArgv): string {
  const flags = shortHash(`${execArgv.join(' ')}\n${env.NODE_OPTIONS ?? ''}`);
  return `server-${manifest.hash.slice(0, 16)}-${process.version}-${process.arch}-${flags}.bin`;
}

/** Whether a file or directory may be trusted: the user's own and writable by no one else. */
export function ownedPrivately(stat: fs.Stats, uid: number | null = process.getuid?.() ?? null): boolean {
  if (uid === null) return true; // Windows: no POSIX owner or mode to check.
  return stat.uid === uid && (stat.mode & 0o022) === 0;
}

/** The cache's bytes when the file exists and may be trusted; null otherwise. */
export function readCache(file: string): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    // Checked on the open file: what is read is what was checked.
    if (!ownedPrivately(fs.fstatSync(fd))) return null;
    return fs.readFileSync(fd);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Write the cache through a private temporary file and a rename, so no reader sees half of it. */
export function writeCache(file: string, data: Buffer): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/** A cache file untouched this long is removed when a new one is written (CACHE_MAX_AGE_MS). */
export const CACHE_MAX_AGE_MS = 30 * 86_400_000;
/** A temporary file of a write that was killed is removed after this long. */
const TMP_MAX_AGE_MS = 3_600_000;

/**
 * Remove the caches (and verified-inputs records) of images, Nodes and flags not started from in
 * CACHE_MAX_AGE_MS (a file is written only where none could be read, so its age is the last time
 * one had to be made), and the
 * temporary files of killed writes: every build and every upgrade names a new file of about 1 MB,
 * and nothing else removes the old ones. Run after a write, which is rare; `keep` is never removed.
 * A cache still in use that is removed costs its server one write at its next start.
 */
export function pruneCaches(dir: string, keep: string, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (file === keep || !name.startsWith('server-')) continue;
    const maxAge = name.endsWith('.bin') || name.endsWith('-inputs.json') ? CACHE_MAX_AGE_MS : name.endsWith('.tmp') ? TMP_MAX_AGE_MS : null;
    if (maxAge === null) continue;
    try {
      const stat = fs.lstatSync(file);
      if (stat.isFile() && now - stat.mtimeMs > maxAge) {
        fs.unlinkSync(file);
        removed++;
      }
    } catch {
      // Gone already, or not ours to remove: left as it is.
    }
  }
  return removed;
}

/**
 * Make the cache directory (mode 0700) and its missing parents, one level at a time, and answer
 * whether it may be used. Node's recursive mkdirSync never returns under procfs (the kernel's
 * makeDirs says more; the launcher does not load the kernel, so the few lines are here too).
 */
export function prepareCacheDir(dir: string): boolean {
  try {
    const missing: string[] = [];
    for (let d = path.resolve(dir); !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.push(d);
    for (const d of missing.reverse()) {
      try {
        fs.mkdirSync(d, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && ownedPrivately(stat);
  } catch {
    return false;
  }
}

/**
 * Each package's root directory as this install would find it from `from` (Node's node_modules
 * lookup, symlinks resolved as the module loader resolves them), or null when one is not found or
 * its entry is not where the build saw it. A lookup rather than import.meta.resolve: the launcher
 * is also built as CommonJS (dist/launch.cjs, which the command's bin requires), where there is none.
 */
export function packageRoots(manifest: ImageManifest, findPackage: (name: string) => string | null): Record<string, string> | null {
  const roots: Record<string, string> = {};
  for (const [name, entry] of Object.entries(manifest.packages)) {
    let dir: string | null;
    try {
      dir = findPackage(name);
    } catch {
      return null;
    }
    if (dir === null || !fs.existsSync(path.join(dir, ...entry.split('/')))) return null;
    roots[name] = dir;
  }
  return roots;
}

/** The directory of package `name` in the node_modules folders Node searches from `from` (a file URL or path), or null. */
export function nodeModulesLookup(from: string): (name: string) => string | null {
  const paths = createRequire(from).resolve.paths;
  return (name) => {
    for (const dir of paths(name) ?? []) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    }
    return null;
  };
}

function sha256(file: string): string {
  // Loaded here: hashing is the rare path (a file touched but perhaps not changed), and node:crypto
  // costs a start that does not need it a few milliseconds.
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Each package's directory as laid out at the build, relative to this package's directory. */
export function layoutRoots(manifest: ImageManifest, packageDir: string): Record<string, string> {
  const roots: Record<string, string> = {};
  for (const [name, rel] of Object.entries(manifest.layout)) roots[name] = path.resolve(packageDir, rel);
  return roots;
}

/**
 * Inputs found to hold their build's bytes although their mtime is not the build's: file ->
 * `<sha256>:<size>:<mtimeMs>`. Kept beside the code cache, so that the next start trusts the same
 * size and mtime instead of hashing the file again (an npm install gives every file one fixed mtime,
 * and a build tool's cache restores files with new ones: each start hashed them all).
 */
export type VerifiedInputs = Record<string, string>;

/**
 * Whether every file the image was built from is still what it was: size and mtime as recorded,
 * or as `verified` records them, or else the same content (an install or a rebuild that changed
 * nothing keeps the image usable). Files hashed and found the same are added to `hashed`.
 */
export function inputsUnchanged(manifest: ImageManifest, roots: Record<string, string>, verified: VerifiedInputs = {}, hashed?: VerifiedInputs): boolean {
  for (const input of manifest.inputs) {
    const root = roots[input.pkg];
    if (root === undefined) return false;
    const file = path.join(root, input.file);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return false;
    }
    if (stat.size !== input.size) return false;
    if (stat.mtimeMs === input.mtimeMs) continue;
    const seen = `${input.sha256}:${stat.size}:${stat.mtimeMs}`;
    if (verified[file] === seen) continue;
    if (sha256(file) !== input.sha256) return false;
    if (hashed) hashed[file] = seen;
  }
  return true;
}

/** The file of an image's verified inputs, in the cache directory. */
export function verifiedInputsFile(dir: string, manifest: Pick<ImageManifest, 'hash'>): string {
  return path.join(dir, `server-${manifest.hash.slice(0, 16)}-inputs.json`);
}

/** The verified inputs recorded in `file` when it exists and may be trusted (readCache); none otherwise. */
export function readVerifiedInputs(file: string): VerifiedInputs {
  const bytes = readCache(file);
  if (!bytes) return {};
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const out: VerifiedInputs = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v;
    return out;
  } catch {
    return {};
  }
}

/** Run the image's script (with the cache when given); its exports and the script. */
function runImage(file: string, cached: Buffer | null, roots: Record<string, string>): { image: ServerImage; script: vm.Script } {
  // Latin-1: the build writes the image in ASCII, and decoding as Latin-1 skips UTF-8's validation.
  const script = new vm.Script(fs.readFileSync(file, 'latin1'), {
    filename: file,
    cachedData: cached ?? undefined,
    // A dynamic import() in the image goes to Node's own loader, as in a module.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const mod = { exports: {} as Record<string, unknown> };
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file), roots);
  return { image: mod.exports as unknown as ServerImage, script };
}

/**
 * Start the command from the image. Resolves true once the server runs from it (as the command's
 * main would), false when the caller should start it from the packages' modules instead (see the
 * module comment); rejects only with what main itself rejects with.
 */
export async function launch(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env.MEMORY_IMAGE === '0' || extraPlugins(env)) return false;
  const dist = path.dirname(fileURLToPath(import.meta.url));
  let image: ServerImage;
  let script: vm.Script;
  let cacheFile: string | null = null;
  let cached: Buffer | null = null;
  try {
    const manifestFile = path.join(dist, MANIFEST_FILE);
    if (!fs.existsSync(manifestFile)) return false;
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as ImageManifest;
    if (manifest.format !== 2) return false;
    const dir = cacheDir(env);
    const cacheUsable = dir !== null && prepareCacheDir(dir);
    const verifiedFile = cacheUsable ? verifiedInputsFile(dir, manifest) : null;
    const verified = verifiedFile ? readVerifiedInputs(verifiedFile) : {};
    const hashed: VerifiedInputs = {};
    // The build's layout first (a workspace, or packages installed side by side): a stat per
    // file. Resolving each package from here costs about 1 ms apiece, so it is the second try.
    let roots: Record<string, string> | null = layoutRoots(manifest, path.dirname(dist));
    if (!inputsUnchanged(manifest, roots, verified, hashed)) {
      roots = packageRoots(manifest, nodeModulesLookup(import.meta.url));
      if (roots && !inputsUnchanged(manifest, roots, verified, hashed)) roots = null;
    }
    if (!roots) {
      log('info', 'the server image is older than the packages it was built from (npm run build makes a new one); starting from the modules');
      return false;
    }
    if (verifiedFile && Object.keys(hashed).length > 0) writeCache(verifiedFile, Buffer.from(JSON.stringify({ ...verified, ...hashed })));
    if (cacheUsable) {
      cacheFile = path.join(dir, cacheFileName(manifest, env));
      cached = readCache(cacheFile);
    }
    ({ image, script } = runImage(path.join(dist, manifest.image), cached, roots));
  } catch (err) {
    log('warn', `the server image could not be loaded (${(err as Error).message}); starting from the modules`);
    return false;
  }
  const used = cached !== null && !script.cachedDataRejected;
  const onReady = (): string => {
    if (used) return 'image, code cache read';
    if (cacheFile === null) return 'image, no code cache';
    if (!writeCache(cacheFile, script.createCachedData())) return 'image, code cache not written';
    pruneCaches(path.dirname(cacheFile), cacheFile);
    return 'image, code cache written';
  };
  try {
    await image.main(argv, { modules: new Map(Object.entries(image.plugins)), onReady });
    return true;
  } catch (err) {
    if ((err as Error)?.name === 'PluginNotPreloaded') return false;
    throw err;
  }
}
