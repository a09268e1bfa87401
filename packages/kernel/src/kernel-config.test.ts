import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryError } from './errors.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { makeDirs, removeStaleTemps, safeJoin, slugify, writeFileAtomic } from './paths.js';

import { kernelScratch } from './kernel.fixture.js';

const { tmp, kernel, cleanup } = kernelScratch('ms-kernel-config-');
afterEach(cleanup);

describe('config and paths', () => {
  it('reads config.yaml over the defaults', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'config.yaml'), 'retrieval:\n  default_limit: 7\ncustom:\n  x: 1\n');
    const k = kernel(dir);
    expect(k.config.get('retrieval.default_limit')).toBe(7);
    expect(k.config.get('retrieval.token_budget')).toBe(2000);
    expect(k.config.get('custom.x')).toBe(1);
    expect(k.config.get('nope.x', 'fallback')).toBe('fallback');
  });

  it('rejects a config.yaml that is not a mapping', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'config.yaml'), '- a\n- b\n');
    expect(() => new Kernel({ dataDir: dir, logger: silentLogger() })).toThrow(/mapping/);
  });

  it('slugs and keeps paths inside the data dir', () => {
    expect(slugify('../../etc/passwd')).toBe('etc-passwd');
    expect(slugify('Héllo World!')).toBe('hello-world');
    expect(slugify('...')).toBe('untitled');
    // Windows device names, whatever the extension: never a file name.
    for (const name of ['CON', 'nul', 'Aux', 'prn', 'COM1', 'lpt9']) expect(slugify(name)).toBe(`${name.toLowerCase()}-x`);
    expect(slugify('console')).toBe('console');
    expect(slugify('com10')).toBe('com10');
    const root = tmp();
    expect(safeJoin(root, 'a', 'b.md')).toBe(path.join(root, 'a', 'b.md'));
    expect(() => safeJoin(root, '..', 'x')).toThrow(MemoryError);
  });

  it('makes a directory and its missing parents, accepts one that exists, and throws where it cannot be made', () => {
    const root = tmp();
    const dir = path.join(root, 'a', 'b', 'c');
    makeDirs(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    makeDirs(dir);
    makeDirs(path.join(root, 'a', 'b', 'd'), 0o700);
    if (process.platform !== 'win32') expect(fs.statSync(path.join(root, 'a', 'b', 'd')).mode & 0o777).toBe(0o700);
    fs.writeFileSync(path.join(root, 'file'), 'x');
    expect(() => makeDirs(path.join(root, 'file', 'sub'))).toThrow(/ENOTDIR/);
    // procfs answers ENOENT for a new entry: Node's recursive mkdir never returns there.
    if (fs.existsSync('/proc/self')) expect(() => makeDirs('/proc/memory-service-nope/x')).toThrow(/ENOENT/);
  });

  it('writes a file atomically from text, bytes or chunks, leaving no temporary file', () => {
    const root = tmp();
    const file = path.join(root, 'sub', 'f.bin');
    writeFileAtomic(file, 'héllo');
    expect(fs.readFileSync(file, 'utf8')).toBe('héllo');
    writeFileAtomic(file, new Uint8Array([1, 2, 3]));
    expect([...fs.readFileSync(file)]).toEqual([1, 2, 3]);
    const big = new Uint8Array(300_000).map((_, i) => i % 251);
    writeFileAtomic(file, [new Uint8Array([9]), big.subarray(5, 200_005), new Uint8Array(0), Buffer.from('end')]);
    expect(fs.readFileSync(file)).toEqual(Buffer.concat([Buffer.from([9]), big.subarray(5, 200_005), Buffer.from('end')]));
    expect(fs.readdirSync(path.dirname(file))).toEqual(['f.bin']);
  });

  it('removes the temp files of writers that are gone, and keeps a running writer\'s and every other file', () => {
    const root = tmp();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const names = [`a.md.${gone}.0123456789ab.tmp`, `b.md.${process.pid}.0123456789ab.tmp`, 'c.tmp', `d.md.${gone}.xyz.tmp`, 'e.md'];
    for (const n of names) fs.writeFileSync(path.join(root, n), 'x');
    expect(removeStaleTemps(root)).toBe(1);
    expect(fs.readdirSync(root).sort()).toEqual(names.slice(1).sort());
    expect(removeStaleTemps(path.join(root, 'missing'))).toBe(0);
  });

  it('removes a gone writer\'s SQLite temp copy with its journal, and with idleMs a running pid\'s temp left idle that long (a reused pid)', () => {
    const root = tmp();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const names = [`m.db.${gone}.0123456789ab.tmp`, `m.db.${gone}.0123456789ab.tmp-journal`, `n.db.${process.pid}.0123456789ab.tmp`, `o.db.${process.pid}.0123456789ab.tmp`, 'p.db-journal'];
    for (const n of names) fs.writeFileSync(path.join(root, n), 'x');
    const old = (Date.now() - 10 * 60_000) / 1000;
    fs.utimesSync(path.join(root, names[2]!), old, old);
    expect(removeStaleTemps(root)).toBe(2);
    expect(fs.readdirSync(root).sort()).toEqual(names.slice(2).sort());
    // Idle for ten minutes: taken as left behind by a killed process whose pid is running again.
    expect(removeStaleTemps(root, { idleMs: 5 * 60_000 })).toBe(1);
    expect(fs.readdirSync(root).sort()).toEqual(names.slice(3).sort());
  });
});
