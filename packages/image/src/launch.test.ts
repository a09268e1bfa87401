import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cacheDir,
  log,
  cacheFileName,
  extraPlugins,
  inputsUnchanged,
  layoutRoots,
  ownedPrivately,
  packageRoots,
  nodeModulesLookup,
  prepareCacheDir,
  pruneCaches,
  CACHE_MAX_AGE_MS,
  readCache,
  readVerifiedInputs,
  shortHash,
  verifiedInputsFile,
  writeCache,
  type ImageManifest,
  type VerifiedInputs,
} from './launch.js';

const posix = process.platform !== 'win32';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ms-launch-test-'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A package `pkg` under `root` with one file, and a manifest recording it as it is now. */
function fixture(): { root: string; file: string; manifest: ImageManifest } {
  const root = tempDir();
  const file = path.join(root, 'pkg', 'dist', 'a.js');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'export const a = 1;\n');
  const stat = fs.statSync(file);
  const manifest: ImageManifest = {
    format: 2,
    image: 'server.cjs',
    hash: 'ab'.repeat(32),
    packages: { pkg: 'dist/a.js' },
    layout: { pkg: '../pkg' },
    inputs: [{ pkg: 'pkg', file: 'dist/a.js', size: stat.size, mtimeMs: stat.mtimeMs, sha256: sha256('export const a = 1;\n') }],
  };
  return { root, file, manifest };
}

describe('launch: when the image applies', () => {
  it('extra plugins in MEMORY_PLUGINS send the start to the modules; blanks and commas alone do not', () => {
    expect(extraPlugins({})).toBe(false);
    expect(extraPlugins({ MEMORY_PLUGINS: ' , ,' })).toBe(false);
    expect(extraPlugins({ MEMORY_PLUGINS: 'my-plugin' })).toBe(true);
    expect(extraPlugins({ MEMORY_PLUGINS: ', ./local' })).toBe(true);
  });

  it('finds the packages where the build laid them out, relative to the image package', () => {
    const { root, manifest } = fixture();
    const roots = layoutRoots(manifest, path.join(root, 'image'));
    expect(roots).toEqual({ pkg: path.join(root, 'pkg') });
    expect(inputsUnchanged(manifest, roots)).toBe(true);
    // Elsewhere (another layout), nothing is found: the launcher then resolves the packages.
    expect(inputsUnchanged(manifest, layoutRoots(manifest, path.join(root, 'a', 'b', 'image')))).toBe(false);
  });

  it('finds a package root by its directory, and gives up when the entry is not where the build saw it', () => {
    const { root, manifest } = fixture();
    expect(packageRoots(manifest, () => path.join(root, 'pkg'))).toEqual({ pkg: path.join(root, 'pkg') });
    // The directory holds no dist/a.js: not the package the image was built from.
    expect(packageRoots(manifest, () => path.join(root, 'image'))).toBeNull();
    expect(packageRoots(manifest, () => null)).toBeNull();
    expect(
      packageRoots(manifest, () => {
        throw new Error('not found');
      }),
    ).toBeNull();
  });

  it("looks a package up in the node_modules folders Node searches, through the install's symlinks", () => {
    const { root } = fixture();
    const app = path.join(root, 'app', 'lib');
    fs.mkdirSync(path.join(root, 'node_modules', '@scope'), { recursive: true });
    fs.mkdirSync(app, { recursive: true });
    // A workspace install: node_modules/@scope/pkg is a link to the package's folder.
    fs.writeFileSync(path.join(root, 'pkg', 'package.json'), '{"name":"@scope/pkg"}');
    fs.symlinkSync(path.join(root, 'pkg'), path.join(root, 'node_modules', '@scope', 'pkg'), 'dir');
    const find = nodeModulesLookup(path.join(app, 'launch.js'));
    expect(find('@scope/pkg')).toBe(fs.realpathSync(path.join(root, 'pkg')));
    expect(find('@scope/absent')).toBeNull();
  });

  it('an input that changed makes the image stale; one only touched (same bytes) does not', () => {
    const { root, file, manifest } = fixture();
    const roots = { pkg: path.join(root, 'pkg') };
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    expect(inputsUnchanged(manifest, roots)).toBe(true);
    // Same size, other bytes.
    fs.writeFileSync(file, 'export const a = 2;\n');
    fs.utimesSync(file, later, later);
    expect(inputsUnchanged(manifest, roots)).toBe(false);
    // Other size.
    fs.writeFileSync(file, 'export const a = 10;\n');
    expect(inputsUnchanged(manifest, roots)).toBe(false);
    fs.rmSync(file);
    expect(inputsUnchanged(manifest, roots)).toBe(false);
    expect(inputsUnchanged(manifest, {})).toBe(false);
  });
});

describe('launch: inputs verified by content', () => {
  it('records an input hashed and found the same, and trusts that size and mtime next time without hashing', () => {
    const { root, file, manifest } = fixture();
    const roots = { pkg: path.join(root, 'pkg') };
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    const hashed: VerifiedInputs = {};
    expect(inputsUnchanged(manifest, roots, {}, hashed)).toBe(true);
    const mtimeMs = fs.statSync(file).mtimeMs;
    expect(hashed).toEqual({ [file]: `${manifest.inputs[0]!.sha256}:${manifest.inputs[0]!.size}:${mtimeMs}` });
    // Other bytes under the recorded size and mtime: the record is trusted (the file is not read).
    fs.writeFileSync(file, 'export const a = 2;\n');
    fs.utimesSync(file, later, later);
    expect(inputsUnchanged(manifest, roots, hashed)).toBe(true);
    // Without the record, or once the mtime moves on, the bytes are hashed again and differ.
    expect(inputsUnchanged(manifest, roots)).toBe(false);
    const later2 = new Date(Date.now() + 120_000);
    fs.utimesSync(file, later2, later2);
    expect(inputsUnchanged(manifest, roots, hashed)).toBe(false);
    // A record made for another build of the input (another sha256) does not count.
    fs.writeFileSync(file, 'export const a = 1;\n');
    fs.utimesSync(file, later, later);
    const other: VerifiedInputs = { [file]: `${'cd'.repeat(32)}:${manifest.inputs[0]!.size}:${mtimeMs}` };
    const again: VerifiedInputs = {};
    expect(inputsUnchanged(manifest, roots, other, again)).toBe(true);
    expect(Object.keys(again)).toEqual([file]);
  });

  it('keeps the record beside the code cache, read back only when private and well-formed', () => {
    const dir = tempDir();
    const { manifest } = fixture();
    const file = verifiedInputsFile(dir, manifest);
    expect(path.basename(file)).toBe(`server-${'ab'.repeat(8)}-inputs.json`);
    expect(readVerifiedInputs(file)).toEqual({});
    expect(writeCache(file, Buffer.from(JSON.stringify({ '/a.js': 'x:1:2', '/b.js': 3 })))).toBe(true);
    expect(readVerifiedInputs(file)).toEqual({ '/a.js': 'x:1:2' });
    fs.writeFileSync(file, '[1, 2]');
    expect(readVerifiedInputs(file)).toEqual({});
    fs.writeFileSync(file, 'not json');
    expect(readVerifiedInputs(file)).toEqual({});
    if (process.getuid) {
      fs.writeFileSync(file, JSON.stringify({ '/a.js': 'x:1:2' }));
      fs.chmodSync(file, 0o666);
      expect(readVerifiedInputs(file)).toEqual({});
    }
  });
});

describe('launch: the code cache', () => {
  it('lives under NODE_COMPILE_CACHE or the temp dir, and NODE_DISABLE_COMPILE_CACHE=1 turns it off', () => {
    expect(cacheDir({ NODE_COMPILE_CACHE: '/var/cache/x' })).toBe(path.join(path.resolve('/var/cache/x'), 'memory-service-image'));
    expect(cacheDir({})).toBe(path.join(os.tmpdir(), 'node-compile-cache', 'memory-service-image'));
    expect(cacheDir({ NODE_COMPILE_CACHE: '  ' })).toBe(path.join(os.tmpdir(), 'node-compile-cache', 'memory-service-image'));
    expect(cacheDir({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: '/x' })).toBeNull();
  });

  it('is named after the image, the Node, the architecture and the flags Node started with', () => {
    const name = cacheFileName({ hash: '0123456789abcdef0123' }, {}, []);
    expect(name).toBe(`server-0123456789abcdef-${process.version}-${process.arch}-${shortHash('\n')}.bin`);
    expect(cacheFileName({ hash: 'ffffffffffffffff' }, {}, [])).not.toBe(name);
    expect(cacheFileName({ hash: '0123456789abcdef0123' }, {}, ['--max-old-space-size=512'])).not.toBe(name);
    expect(cacheFileName({ hash: '0123456789abcdef0123' }, { NODE_OPTIONS: '--jitless' }, [])).not.toBe(name);
    expect(shortHash('a')).toMatch(/^[0-9a-f]{8}$/);
    expect(shortHash('a')).not.toBe(shortHash('b'));
  });

  it('trusts only what the user owns and no one else may write', () => {
    const stat = (uid: number, mode: number) => ({ uid, mode }) as fs.Stats;
    expect(ownedPrivately(stat(1000, 0o100600), 1000)).toBe(true);
    expect(ownedPrivately(stat(1000, 0o40700), 1000)).toBe(true);
    expect(ownedPrivately(stat(1000, 0o100644), 1000)).toBe(true);
    expect(ownedPrivately(stat(1001, 0o100600), 1000)).toBe(false);
    expect(ownedPrivately(stat(1000, 0o100620), 1000)).toBe(false);
    expect(ownedPrivately(stat(1000, 0o40777), 1000)).toBe(false);
    expect(ownedPrivately(stat(1001, 0o40777), null)).toBe(true);
  });

  it('writes through a temporary file (mode 0600) and reads back only a private file', () => {
    const dir = path.join(tempDir(), 'cache');
    expect(prepareCacheDir(dir)).toBe(true);
    if (posix) expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const file = path.join(dir, 'server.bin');
    expect(writeCache(file, Buffer.from('code'))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['server.bin']);
    expect(readCache(file)?.toString()).toBe('code');
    expect(writeCache(file, Buffer.from('newer'))).toBe(true);
    expect(readCache(file)?.toString()).toBe('newer');
    expect(readCache(path.join(dir, 'missing.bin'))).toBeNull();
    if (!posix) return;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.chmodSync(file, 0o664);
    expect(readCache(file)).toBeNull();
    fs.chmodSync(dir, 0o777);
    expect(prepareCacheDir(dir)).toBe(false);
  });

  it('a cache directory that cannot be made is refused at once (procfs, where a recursive mkdir spins)', () => {
    if (!fs.existsSync('/proc/self')) return;
    expect(prepareCacheDir('/proc/memory-service-nope/cache')).toBe(false);
  });

  it('a write removes the caches not made for a month and the temporary files of killed writes, nothing else', () => {
    const dir = path.join(tempDir(), 'prune');
    expect(prepareCacheDir(dir)).toBe(true);
    const now = Date.now();
    const make = (name: string, ageMs: number) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, 'x');
      const t = new Date(now - ageMs);
      fs.utimesSync(file, t, t);
      return file;
    };
    const day = 86_400_000;
    const keep = make('server-aaaa-v20-x64-1.bin', CACHE_MAX_AGE_MS + day);
    make('server-bbbb-v20-x64-1.bin', CACHE_MAX_AGE_MS + day);
    make('server-cccc-v20-x64-1.bin', CACHE_MAX_AGE_MS - day);
    make('server-dddd-v20-x64-1.bin.123.tmp', 2 * 3_600_000);
    make('server-eeee-v20-x64-1.bin.456.tmp', 60_000);
    make('notes.txt', CACHE_MAX_AGE_MS + day);
    make('server-ffff-inputs.json', CACHE_MAX_AGE_MS + day);
    make('server-gggg-inputs.json', CACHE_MAX_AGE_MS - day);
    fs.mkdirSync(path.join(dir, 'server-dir.bin'));
    fs.utimesSync(path.join(dir, 'server-dir.bin'), new Date(0), new Date(0));
    expect(pruneCaches(dir, keep, now)).toBe(3);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'notes.txt',
      'server-aaaa-v20-x64-1.bin',
      'server-cccc-v20-x64-1.bin',
      'server-dir.bin',
      'server-eeee-v20-x64-1.bin.456.tmp',
      'server-gggg-inputs.json',
    ]);
    expect(pruneCaches(path.join(dir, 'missing'), keep, now)).toBe(0);
  });

  it('a cache that cannot be written leaves no temporary file and reports false', () => {
    const dir = path.join(tempDir(), 'gone');
    expect(writeCache(path.join(dir, 'server.bin'), Buffer.from('x'))).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  });
});

describe('log', () => {
  // Regression guard, fixed: "the server image is older than the packages" printed on every start under MEMORY_LOG_QUIET=1.
  it('leaves info lines off under MEMORY_LOG_QUIET=1 and still writes warnings', () => {
    const lines: string[] = [];
    const err = { write: (line: string) => (lines.push(line), true) };
    expect(log('info', 'starting from the modules', { MEMORY_LOG_QUIET: '1' }, err)).toBe(false);
    expect(log('warn', 'the image could not be loaded', { MEMORY_LOG_QUIET: '1' }, err)).toBe(true);
    expect(log('info', 'starting from the modules', {}, err)).toBe(true);
    expect(lines).toEqual(['[memory-service] warn: the image could not be loaded\n', '[memory-service] info: starting from the modules\n']);
  });
});
