import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Stores } from './stores.js';
import { U, makeEnv, type Env } from './test-helpers.js';

/**
 * Two Stores on one data dir and database file stand for two server processes. Each writes a
 * page's file after its commit, outside the write lock, so the other can commit and write in
 * between: the tests run the other process's whole call at the moment the first one's file write
 * (its rename) or removal is about to land, which is the interleaving the audit traced (audit-o,
 * findings 1 and 2).
 */
let env: Env;
let a: Stores;
let b: Stores;
beforeEach(() => {
  env = makeEnv();
  a = env.stores;
  b = env.second().stores;
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const file = (rel: string) => path.join(env.dir, rel);
const rowOf = (title: string) =>
  env.db.prepare('SELECT content, updated, path FROM wiki_pages WHERE title = ?').get(title) as { content: string; updated: string; path: string } | undefined;
const removalNotes = () => env.db.prepare('SELECT path FROM wiki_file_removals').pluck().all();

/** Run `other` just before the next rename onto `target` (a page file write) lands, once; after it, `after` (if given). */
function beforeRenameOnto(target: string, other: () => void, after?: () => void): void {
  const rename = fs.renameSync;
  let armed = true;
  vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
    if (!armed || path.resolve(String(to)) !== path.resolve(target)) return rename(from, to);
    armed = false;
    other();
    rename(from, to);
    after?.();
  });
}

/** Run `other` just before the next removal of `target` (a page file removal), once. */
function beforeRemovalOf(target: string, other: () => void): void {
  const rm = fs.rmSync;
  let armed = true;
  vi.spyOn(fs, 'rmSync').mockImplementation((p, opts) => {
    if (!armed || path.resolve(String(p)) !== path.resolve(target)) return rm(p, opts);
    armed = false;
    other();
    rm(p, opts);
  });
}

describe('wiki page files under saves and deletes from two processes at once', () => {
  it('a save whose file write lands after a later save of the same page leaves the file holding the later save', () => {
    const first = a.wiki.save(U, { title: 'Race', content: 'init', wiki_type: 'diary' });
    env.clock.advance(1);
    // a commits "from a"; before its file lands, b commits "from b" and writes its file; then a's lands.
    beforeRenameOnto(file(first.path), () => {
      env.clock.advance(1);
      b.wiki.save(U, { title: 'Race', content: 'from b', wiki_type: 'diary' });
    });
    a.wiki.save(U, { title: 'Race', content: 'from a', wiki_type: 'diary' });
    expect(rowOf('Race')?.content).toBe('from b');
    expect(fs.readFileSync(file(first.path), 'utf8')).toBe('from b');
    // Reads take the file: both processes read the row's text.
    expect(a.wiki.getByTitle(U, 'Race')?.content).toBe('from b');
    expect(b.wiki.getByTitle(U, 'Race')?.content).toBe('from b');
  });

  for (const gap of [1, 0]) {
    it(`an earlier save's file written late by a process stopped right after is not kept as a hand edit at the next start (saves ${gap} ms apart)`, () => {
      const first = a.wiki.save(U, { title: 'Race', content: 'init', wiki_type: 'diary' });
      env.clock.advance(1);
      // As above, but a is killed right after its late write: it never reads the row again.
      const killed = new Error('killed');
      beforeRenameOnto(
        file(first.path),
        () => {
          env.clock.advance(gap);
          b.wiki.save(U, { title: 'Race', content: 'from b', wiki_type: 'diary' });
        },
        () => {
          throw killed;
        },
      );
      a.wiki.save(U, { title: 'Race', content: 'from a', wiki_type: 'diary' });
      vi.restoreAllMocks();
      expect(fs.readFileSync(file(first.path), 'utf8')).toBe('from a');
      // The next start (a's process is gone) writes the file again from the row.
      const next = env.second().stores;
      expect(next.repairAfterStop().wiki_files).toBe(1);
      expect(fs.readFileSync(file(first.path), 'utf8')).toBe('from b');
      // A hand edit made after that is newer than the row, and kept by the start after.
      fs.writeFileSync(file(first.path), 'edited by hand');
      expect(env.second().stores.repairAfterStop().wiki_files).toBe(0);
      expect(fs.readFileSync(file(first.path), 'utf8')).toBe('edited by hand');
    });
  }

  it('a page deleted while another process re-saves it: a file the save writes after the removal goes', () => {
    const page = a.wiki.save(U, { title: 'Del', content: 'base', wiki_type: 'diary' });
    // b commits its re-save; before its file lands, a deletes the page (row, file, removal note); then b's file lands.
    beforeRenameOnto(file(page.path), () => {
      expect(a.wiki.delete(U, 'Del')).not.toBeNull();
    });
    b.wiki.save(U, { title: 'Del', content: 'resaved secretword', wiki_type: 'diary' });
    expect(rowOf('Del')).toBeUndefined();
    expect(fs.existsSync(file(page.path))).toBe(false);
    expect(removalNotes()).toEqual([]);
    expect(env.second().stores.repairAfterStop().wiki_files).toBe(0);
    expect(fs.existsSync(file(page.path))).toBe(false);
  });

  it('a page re-saved by another process just after its delete committed keeps its file when the removal lands late', () => {
    const page = a.wiki.save(U, { title: 'Del', content: 'base', wiki_type: 'diary' });
    // a commits the delete; before its removal lands, b saves the page again (same path) and writes its file.
    beforeRemovalOf(file(page.path), () => {
      const again = b.wiki.save(U, { title: 'Del', content: 'saved again', wiki_type: 'diary' });
      expect(again.path).toBe(page.path);
    });
    expect(a.wiki.delete(U, 'Del')).not.toBeNull();
    expect(rowOf('Del')?.content).toBe('saved again');
    expect(fs.readFileSync(file(page.path), 'utf8')).toBe('saved again');
    expect(removalNotes()).toEqual([]);
  });

  it('a single save gives its file the time of its row', () => {
    const page = a.wiki.save(U, { title: 'Solo', content: 'alone', wiki_type: 'diary' });
    expect(Math.floor(fs.statSync(file(page.path)).mtimeMs)).toBeLessThanOrEqual(Date.parse(page.updated));
    expect(fs.readFileSync(file(page.path), 'utf8')).toBe('alone');
  });
});
