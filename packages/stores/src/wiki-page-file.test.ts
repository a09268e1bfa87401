import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, recordingLogger, U, type Env, type RecordingLogger } from './test-helpers.js';
import { MAX_PAGE_FILE_BYTES, pageFileStale, readPageFile } from './wiki-page-file.js';

let env: Env;
let logger: RecordingLogger;
beforeEach(() => {
  logger = recordingLogger();
  env = makeEnv({}, logger);
});
afterEach(() => env.close());

const file = (rel: string) => path.join(env.dir, rel);

/**
 * Watch fs.readFileSync for reads of `abs`: each is noted and refused (a read of a file over the cap
 * would hold its whole text; refused, the test fails fast on the note instead). Returns the notes
 * and the restore.
 */
function watchReads(abs: string): { reads: unknown[]; restore: () => void } {
  const reads: unknown[] = [];
  const original = fs.readFileSync;
  const spy = vi.spyOn(fs, 'readFileSync').mockImplementation(((f: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (f === abs) {
      reads.push(f);
      throw new Error(`${abs} must not be read`);
    }
    return (original as (...args: unknown[]) => unknown)(f, ...rest);
  }) as typeof fs.readFileSync);
  return { reads, restore: () => spy.mockRestore() };
}
/** Set a file's modification time `ms` after its page's row was updated (negative: before). */
function touch(rel: string, updated: string, ms: number): void {
  const t = new Date(Date.parse(updated) + ms);
  fs.utimesSync(file(rel), t, t);
}

describe('readPageFile / pageFileStale', () => {
  it('tells a text, an empty file, a file over the cap (unread) and a missing one apart', () => {
    const abs = path.join(env.dir, 'p.md');
    expect(readPageFile(abs)).toEqual({ state: 'missing' });
    fs.writeFileSync(abs, 'words');
    expect(readPageFile(abs)).toEqual({ state: 'text', text: 'words' });
    fs.writeFileSync(abs, '');
    expect(readPageFile(abs)).toEqual({ state: 'empty' });
    fs.truncateSync(abs, MAX_PAGE_FILE_BYTES + 1);
    const watch = watchReads(abs);
    try {
      expect(readPageFile(abs)).toEqual({ state: 'too_large', size: MAX_PAGE_FILE_BYTES + 1 });
      // Older than its row, it is stale by its size alone.
      expect(pageFileStale(abs, 'row text', new Date(Date.now() + 60_000).toISOString())).toBe(true);
      expect(pageFileStale(abs, 'row text', new Date(Date.now() - 60_000).toISOString())).toBe(false);
      expect(watch.reads).toEqual([]);
    } finally {
      watch.restore();
    }
    fs.rmSync(abs);
    fs.mkdirSync(abs);
    expect(readPageFile(abs)).toEqual({ state: 'missing' });
  });
});

describe('WikiStore and a page file that is empty', () => {
  it('never takes an empty file over a non-empty row: reads and exports take the row, and the file is written again', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Heron', content: 'the heron page original words', wiki_type: 'diary' });
    // Emptied (by hand, or by a disk that failed), and newer than its row: a hand edit by the mtime rule.
    fs.writeFileSync(file(p.path), '');
    touch(p.path, p.updated, 60_000);
    expect(w.read(U, p.path)?.content).toBe('the heron page original words');
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('the heron page original words');
    fs.writeFileSync(file(p.path), '');
    expect(w.getByTitle(U, 'Heron')?.content).toBe('the heron page original words');
    fs.writeFileSync(file(p.path), '');
    expect(w.pageAt(U, p.path).content).toBe('the heron page original words');
    fs.writeFileSync(file(p.path), '');
    expect(env.stores.scopeData.exportScope(U).wiki_pages.map((x) => x.content)).toEqual(['the heron page original words']);
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('the heron page original words');
    // A hand edit that is not empty is still read.
    fs.writeFileSync(file(p.path), 'edited by hand');
    expect(w.read(U, p.path)?.content).toBe('edited by hand');
    // A page saved empty keeps its empty file.
    const blank = w.save(U, { title: 'Blank', content: '', wiki_type: 'diary' });
    expect(w.read(U, blank.path)?.content).toBe('');
  });

  it('inside a transaction takes the row, and writes the file from the committed row later', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Heron', content: 'committed words', wiki_type: 'diary' });
    fs.writeFileSync(file(p.path), '');
    env.stores.transaction(() => {
      expect(w.getByTitle(U, 'Heron')?.content).toBe('committed words');
      expect(fs.readFileSync(file(p.path), 'utf8')).toBe('');
    });
    expect(w.filesBehind.retry()).toBe(0);
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('committed words');
  });

  it('repairAfterStop() writes again an empty page file from its row, even one newer than its row', () => {
    const w = env.stores.wiki;
    const a = w.save(U, { title: 'A', content: 'page a text', wiki_type: 'diary' });
    const b = w.save(U, { title: 'B', content: 'page b text', wiki_type: 'diary' });
    const blank = w.save(U, { title: 'Blank', content: '', wiki_type: 'diary' });
    for (const p of [a, b]) {
      fs.writeFileSync(file(p.path), '');
      touch(p.path, p.updated, 60_000);
    }
    touch(blank.path, blank.updated, 60_000);
    expect(env.second().stores.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 2 });
    expect(fs.readFileSync(file(a.path), 'utf8')).toBe('page a text');
    expect(fs.readFileSync(file(b.path), 'utf8')).toBe('page b text');
    expect(fs.readFileSync(file(blank.path), 'utf8')).toBe('');
  });
});

describe('WikiStore and a page file over MAX_PAGE_FILE_BYTES', () => {
  it('never reads it: reads and exports take the row, and one warning names the file', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Huge Page', content: 'huge page with moose', wiki_type: 'diary' });
    // Replaced by hand (newer than its row) with a file over the cap (sparse: no disk used).
    fs.truncateSync(file(p.path), MAX_PAGE_FILE_BYTES + 1);
    touch(p.path, p.updated, 60_000);
    const watch = watchReads(file(p.path));
    try {
      expect(w.read(U, p.path)?.content).toBe('huge page with moose');
      expect(w.getByTitle(U, 'Huge Page')?.content).toBe('huge page with moose');
      expect(env.stores.scopeData.exportScope(U).wiki_pages.map((x) => x.content)).toEqual(['huge page with moose']);
      // The start's repair keeps a file newer than its row without reading it.
      expect(env.second().stores.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 0 });
      expect(watch.reads).toEqual([]);
    } finally {
      watch.restore();
    }
    const warnings = logger.lines.filter((l) => l.message.includes(p.path));
    expect(warnings).toEqual([{ level: 'warn', message: expect.stringContaining(`wiki page file ${p.path} is ${MAX_PAGE_FILE_BYTES + 1} bytes`) }]);
    expect(fs.statSync(file(p.path)).size).toBe(MAX_PAGE_FILE_BYTES + 1);
    // Saving the page writes its file again, which is read as usual.
    w.save(U, { title: 'Huge Page', content: 'a page of normal size', wiki_type: 'diary' });
    expect(w.read(U, p.path)?.content).toBe('a page of normal size');
  });

  it('a restore rewrites such a file from its row without reading it', () => {
    const w = env.stores.wiki;
    const p = w.save(U, { title: 'Huge Page', content: 'huge page with moose', wiki_type: 'diary' });
    fs.truncateSync(file(p.path), MAX_PAGE_FILE_BYTES + 1);
    const watch = watchReads(file(p.path));
    try {
      expect(w.filesBehind.matchRows()).toEqual({ written: 1, removed: 0, behind: 0 });
      expect(watch.reads).toEqual([]);
    } finally {
      watch.restore();
    }
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('huge page with moose');
  });
});
