import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { U, makeEnv, recordingLogger, type Env, type RecordingLogger } from './test-helpers.js';
import { WIKI_FILE_RETRY_MAX_MS, WIKI_FILE_RETRY_MS } from './wiki-files.js';

let env: Env;
let logger: RecordingLogger;
beforeEach(() => {
  logger = recordingLogger();
  env = makeEnv({}, logger);
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  env.close();
});

const file = (rel: string) => path.join(env.dir, rel);
const errors = () => logger.lines.filter((l) => l.level === 'error').map((l) => l.message);
/** A folder where the file goes: writing or removing it fails, as on a read-only or full disk (even as root). */
function block(rel: string): void {
  fs.rmSync(file(rel), { force: true });
  fs.mkdirSync(file(rel), { recursive: true });
}

describe('wiki page files that cannot be written after the commit', () => {
  it('a new page: the save succeeds with its row stored and readable, and the file is written once it can be', () => {
    block('wiki/user/default/diary/blocked.md');
    const page = env.stores.wiki.save(U, { title: 'Blocked', content: 'kept in the row', wiki_type: 'diary' });
    expect(page).toMatchObject({ title: 'Blocked', content: 'kept in the row', created_new: true, path: 'wiki/user/default/diary/blocked.md' });
    expect(env.stores.wiki.getByTitle(U, 'Blocked')?.content).toBe('kept in the row');
    expect(env.stores.wiki.read(U, page.path)?.content).toBe('kept in the row');
    expect(errors()).toEqual([expect.stringMatching(/writing the page file wiki\/user\/default\/diary\/blocked\.md failed.*(EISDIR|EPERM)/)]);
    // A caller that tries again updates the same page: no "-2" duplicate.
    expect(env.stores.wiki.freeTitle(U, 'Blocked')).toBe('Blocked-2');
    // Still blocked: tried again after a delay that grows, never throwing from the timer.
    vi.advanceTimersByTime(WIKI_FILE_RETRY_MS);
    expect(errors()).toHaveLength(2);
    vi.advanceTimersByTime(WIKI_FILE_RETRY_MS * 2 - 1);
    expect(errors()).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(errors()).toHaveLength(3);
    fs.rmdirSync(file(page.path));
    vi.advanceTimersByTime(WIKI_FILE_RETRY_MAX_MS);
    expect(fs.readFileSync(file(page.path), 'utf8')).toBe('kept in the row');
    expect(logger.lines.at(-1)).toEqual({ level: 'info', message: 'wiki page files are written again' });
    expect(env.stores.wiki.filesBehind.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an update whose file keeps its old text: reads take the row until the file is written again, at the latest by flush()', () => {
    const page = env.stores.wiki.save(U, { title: 'Notes', content: 'old text', wiki_type: 'diary' });
    const rename = vi.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    try {
      expect(env.stores.wiki.save(U, { title: 'Notes', content: 'new text', wiki_type: 'diary' }).content).toBe('new text');
    } finally {
      rename.mockRestore();
    }
    expect(errors()).toEqual([expect.stringMatching(/ENOSPC/)]);
    expect(fs.readFileSync(file(page.path), 'utf8')).toBe('old text');
    expect(env.stores.wiki.getByTitle(U, 'Notes')?.content).toBe('new text');
    env.stores.flush();
    expect(fs.readFileSync(file(page.path), 'utf8')).toBe('new text');
    expect(env.stores.wiki.filesBehind.size).toBe(0);
  });

  it('the next save of the page writes its file', () => {
    const rel = 'wiki/user/default/diary/again.md';
    block(rel);
    env.stores.wiki.save(U, { title: 'Again', content: 'first', wiki_type: 'diary' });
    fs.rmdirSync(file(rel));
    env.stores.wiki.save(U, { title: 'Again', content: 'second', wiki_type: 'diary' });
    expect(fs.readFileSync(file(rel), 'utf8')).toBe('second');
    expect(env.stores.wiki.filesBehind.size).toBe(0);
  });

  it('a removal that fails (delete, or the old file of a moved page) is done again later', () => {
    const gone = env.stores.wiki.save(U, { title: 'Gone', content: 'bye', wiki_type: 'diary' });
    const moving = env.stores.wiki.save(U, { title: 'Moving', content: 'v1', wiki_type: 'diary' });
    block(gone.path);
    block(moving.path);
    expect(env.stores.wiki.delete(U, 'Gone')?.title).toBe('Gone');
    const moved = env.stores.wiki.save(U, { title: 'Moving', content: 'v2', wiki_type: 'retrospective' });
    expect(errors()).toEqual([
      expect.stringMatching(/removing the page file wiki\/user\/default\/diary\/gone\.md failed/),
      expect.stringMatching(/removing the moved page file wiki\/user\/default\/diary\/moving\.md failed/),
    ]);
    expect(env.stores.wiki.getByTitle(U, 'Gone')).toBeNull();
    expect(fs.readFileSync(file(moved.path), 'utf8')).toBe('v2');
    // Unblocked with a stale file left in place: the retry removes what no row has.
    for (const rel of [gone.path, moving.path]) {
      fs.rmdirSync(file(rel));
      fs.writeFileSync(file(rel), 'stale');
    }
    vi.advanceTimersByTime(WIKI_FILE_RETRY_MS);
    expect(fs.existsSync(file(gone.path))).toBe(false);
    expect(fs.existsSync(file(moving.path))).toBe(false);
  });

  it('one failing file after a commit does not skip the files after it', () => {
    block('wiki/user/default/diary/first.md');
    env.stores.transaction(() => {
      env.stores.wiki.save(U, { title: 'First', content: 'one', wiki_type: 'diary' });
      env.stores.wiki.save(U, { title: 'Second', content: 'two', wiki_type: 'diary' });
    });
    expect(fs.readFileSync(file('wiki/user/default/diary/second.md'), 'utf8')).toBe('two');
    expect(env.stores.wiki.getByTitle(U, 'First')?.content).toBe('one');
  });

  it('the repair at start writes the files it can and notes the others for a retry', () => {
    const a = env.stores.wiki.save(U, { title: 'Alpha', content: 'a', wiki_type: 'diary' });
    const b = env.stores.wiki.save(U, { title: 'Beta', content: 'b', wiki_type: 'diary' });
    fs.rmSync(file(a.path));
    block(b.path);
    const next = env.second().stores;
    expect(next.repairAfterStop().wiki_files).toBe(1);
    expect(fs.readFileSync(file(a.path), 'utf8')).toBe('a');
    expect(next.wiki.filesBehind.has(b.path)).toBe(true);
    fs.rmdirSync(file(b.path));
    vi.advanceTimersByTime(WIKI_FILE_RETRY_MS);
    expect(fs.readFileSync(file(b.path), 'utf8')).toBe('b');
  });
});

describe('StoreContext hooks after a commit', () => {
  it('a hook that throws is logged; the hooks after it run and the call returns', () => {
    const ctx = env.stores.ctx;
    const seen: string[] = [];
    const result = ctx.tx(() => {
      ctx.whenCommitted(() => {
        throw new Error('EACCES: permission denied');
      });
      ctx.whenCommitted(() => seen.push('after'));
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(seen).toEqual(['after']);
    expect(errors()).toEqual([expect.stringMatching(/after a commit failed: EACCES/)]);
  });
});
