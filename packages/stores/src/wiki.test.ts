import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WIKI_TYPES, WIKI_TYPES_AGENT, WIKI_TYPES_USER } from './wiki-types.js';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('WikiStore', () => {
  it('has the 15 spec types plus skill', () => {
    expect(WIKI_TYPES_USER).toHaveLength(8);
    expect(WIKI_TYPES_AGENT).toHaveLength(7);
    expect(WIKI_TYPES).toHaveLength(16);
    expect(WIKI_TYPES).toContain('skill');
  });

  it('deleteSince() removes the pages created since (files once committed, links), sparing older pages and those kept', () => {
    const w = env.stores.wiki;
    const old = w.save(U, { title: 'Old', content: 'old page', wiki_type: 'diary' });
    env.clock.advance(3600_000);
    const since = new Date(env.clock.now()).toISOString();
    w.save(U, { title: 'Old', content: 'old page, edited', wiki_type: 'diary' });
    const fresh = w.save(U, { title: 'Fresh', content: 'new page', wiki_type: 'diary' });
    w.save(U, { title: 'Spec', content: 'spec', wiki_type: 'project_spec', tags: ['project'] });
    w.save(A, { title: 'Agent', content: 'agent page', wiki_type: 'decision_log' });
    w.link(U, 'Fresh', 'Old', 'follows');
    const gone = env.stores.transaction(() => {
      const out = w.deleteSince(U, since, (p) => p.wiki_type === 'project_spec');
      expect(fs.existsSync(path.join(env.dir, fresh.path))).toBe(true);
      return out;
    });
    expect(gone.map((p) => p.title)).toEqual(['Fresh']);
    expect(fs.existsSync(path.join(env.dir, fresh.path))).toBe(false);
    expect(w.list(U).map((p) => p.title).sort()).toEqual(['Old', 'Spec']);
    expect(w.getByTitle(U, 'Old')?.content).toBe('old page, edited');
    expect(w.links(U, 'Old').in).toEqual([]);
    expect(w.count(A)).toBe(1);
    expect(fs.existsSync(path.join(env.dir, old.path))).toBe(true);
  });

  it('findMatching() finds the pages of the scope with the tag whose content holds the pattern as whole words, folded', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Long', content: 'a long note about the Café and more', wiki_type: 'diary', tags: ['long_thought'] });
    w.save(U, { title: 'Asked', content: 'a page about the cafe', wiki_type: 'diary', tags: ['thought'] });
    w.save(U, { title: 'Word', content: 'cafeteria food', wiki_type: 'diary', tags: ['long_thought'] });
    w.save(A, { title: 'Agent', content: 'the cafe again', wiki_type: 'decision_log', tags: ['long_thought'] });
    expect(w.findMatching(U, 'CAFE', 'long_thought').map((p) => p.title)).toEqual(['Long']);
    expect(w.findMatching(U, 'cafe', 'thought').map((p) => p.title)).toEqual(['Asked']);
  });

  it('saves a Markdown file under the scope and type, indexes it and updates by title', () => {
    const p = env.stores.wiki.save(U, { title: 'My Trip: Day 1', content: '# Day 1\nWe walked.', wiki_type: 'diary', tags: ['trip'] });
    expect(p.created_new).toBe(true);
    expect(p.path).toBe('wiki/user/default/diary/my-trip-day-1.md');
    expect(fs.readFileSync(path.join(env.dir, p.path), 'utf8')).toBe('# Day 1\nWe walked.');
    const q = env.stores.wiki.save(U, { title: 'My Trip: Day 1', content: 'changed', wiki_type: 'retrospective', tags: [] });
    expect(q.created_new).toBe(false);
    expect(q.id).toBe(p.id);
    expect(q.path).toBe('wiki/user/default/retrospective/my-trip-day-1.md');
    expect(fs.existsSync(path.join(env.dir, p.path))).toBe(false);
    expect(env.stores.wiki.read(U, q.path)?.content).toBe('changed');
    expect(env.stores.wiki.read(A, q.path)).toBeNull();
    expect(env.stores.wiki.getByTitle(A, 'My Trip: Day 1')).toBeNull();
    expect(env.stores.wiki.list(U, { wiki_type: 'retrospective' }).map((x) => x.title)).toEqual(['My Trip: Day 1']);
    expect(env.stores.wiki.list(U, { wiki_type: 'diary' })).toEqual([]);
    expect(env.stores.audit.forTarget(p.id).map((e) => e.action)).toEqual(['create', 'update']);
  });

  it('save() answers the page as saved: the content given, the stored row’s id, dates and path', () => {
    const p = env.stores.wiki.save(U, { title: 'Notes', content: 'first', wiki_type: 'diary', tags: ['a'] });
    expect(p).toEqual({ ...env.stores.wiki.getByTitle(U, 'Notes'), created_new: true });
    const q = env.stores.wiki.save(U, { title: 'Notes', content: 'second', wiki_type: 'diary', tags: [] });
    expect(q).toEqual({ ...env.stores.wiki.getByTitle(U, 'Notes'), created_new: false });
    expect(q.content).toBe('second');
  });

  it('freeTitle() gives the base, then numbered titles in turn, never a taken one, per scope', () => {
    const w = env.stores.wiki;
    const save = (title: string) => w.save(U, { title, content: title, wiki_type: 'diary' });
    const has = (title: string) => w.getByTitle(U, title) !== null;
    expect(w.freeTitle(U, 'Thought_X')).toBe('Thought_X');
    const made: string[] = [];
    for (let i = 0; i < 40; i++) made.push(save(w.freeTitle(U, 'Thought_X')).title);
    expect(made).toEqual(['Thought_X', ...Array.from({ length: 39 }, (_, i) => `Thought_X-${i + 2}`)]);
    expect(w.getByTitle(A, 'Thought_X')).toBeNull();
    expect(w.freeTitle(A, 'Thought_X')).toBe('Thought_X');
    expect(w.freeTitle(U, '  Thought_X ')).toBe('Thought_X-41');
    // Titles that only look like members (a zero in front, a word after) are other titles.
    for (const t of ['Thought_X-041', 'Thought_X-41b', 'Thought_X-1', 'Thought_Xy']) save(t);
    expect(w.freeTitle(U, 'Thought_X')).toBe('Thought_X-41');
    // With gaps (pages forgotten or titled by hand): a free title right after a taken one.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 30; round++) {
      const base = `Gap_${round}`;
      const taken = new Set<number>();
      const count = Math.floor(rnd() * 60);
      for (let n = 1; n <= count; n++) if (rnd() < 0.8) taken.add(n);
      for (const n of taken) save(n === 1 ? base : `${base}-${n}`);
      const title = w.freeTitle(U, base);
      expect(has(title)).toBe(false);
      const n = title === base ? 1 : Number(title.slice(base.length + 1));
      expect(n === 1 || taken.has(n - 1)).toBe(true);
    }
  });

  it('gives titles that slug alike distinct files, numbered in turn', () => {
    const w = env.stores.wiki;
    const paths = ['Проект один', 'Проект два', '日本語', 'Untitled'].map((title) => w.save(U, { title, content: title, wiki_type: 'diary' }).path);
    expect(paths).toEqual(['untitled.md', 'untitled-2.md', 'untitled-3.md', 'untitled-4.md'].map((f) => `wiki/user/default/diary/${f}`));
    w.delete(U, 'Проект два');
    expect(w.save(U, { title: '???', content: 'x', wiki_type: 'diary' }).path).toBe('wiki/user/default/diary/untitled-2.md');
    expect(w.save(U, { title: '!!!', content: 'y', wiki_type: 'diary' }).path).toBe('wiki/user/default/diary/untitled-5.md');
  });

  it('writes and removes page files only once the transaction commits; inside it, reads see its own saves', () => {
    const w = env.stores.wiki;
    const file = (rel: string) => path.join(env.dir, rel);
    const p = w.save(U, { title: 'Shared', content: 'committed v1', wiki_type: 'diary' });
    const rollBack = (fn: () => void) => {
      expect(() =>
        env.stores.transaction(() => {
          fn();
          throw new Error('rolled back');
        }),
      ).toThrow('rolled back');
    };
    rollBack(() => {
      w.save(U, { title: 'Shared', content: 'never committed v2', wiki_type: 'diary' });
      expect(w.getByTitle(U, 'Shared')?.content).toBe('never committed v2');
      expect(fs.readFileSync(file(p.path), 'utf8')).toBe('committed v1');
      w.save(U, { title: 'Ghost', content: 'never committed', wiki_type: 'diary' });
    });
    expect(w.getByTitle(U, 'Shared')?.content).toBe('committed v1');
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('committed v1');
    expect(w.getByTitle(U, 'Ghost')).toBeNull();
    expect(fs.existsSync(file('wiki/user/default/diary/ghost.md'))).toBe(false);
    rollBack(() => w.delete(U, 'Shared'));
    expect(fs.readFileSync(file(p.path), 'utf8')).toBe('committed v1');
    // A page moved to another type: the old file goes with the commit, not before.
    const moved = env.stores.transaction(() => {
      const q = w.save(U, { title: 'Shared', content: 'moved v3', wiki_type: 'retrospective' });
      expect(fs.existsSync(file(p.path))).toBe(true);
      expect(fs.existsSync(file(q.path))).toBe(false);
      return q;
    });
    expect(fs.existsSync(file(p.path))).toBe(false);
    expect(fs.readFileSync(file(moved.path), 'utf8')).toBe('moved v3');
    w.delete(U, 'Shared');
    expect(fs.existsSync(file(moved.path))).toBe(false);
  });

  it('repairAfterStop() writes again the files a killed process left behind the last saves, and keeps hand edits', () => {
    const w = env.stores.wiki;
    const file = (rel: string) => path.join(env.dir, rel);
    const created = w.save(U, { title: 'Created', content: 'new page', wiki_type: 'diary' });
    const updated = w.save(U, { title: 'Updated', content: 'first text', wiki_type: 'diary' });
    const edited = w.save(U, { title: 'Edited', content: 'as saved', wiki_type: 'diary' });
    w.save(U, { title: 'Updated', content: 'second text', wiki_type: 'diary' });
    // Killed between the commits and the file writes: no file for the new page, the old text for
    // the update (older than its row); a hand edit made afterwards is newer than its row.
    fs.rmSync(file(created.path));
    fs.writeFileSync(file(updated.path), 'first text');
    const before = new Date(Date.parse(w.getByTitle(U, 'Updated')!.updated) - 60_000);
    fs.utimesSync(file(updated.path), before, before);
    fs.writeFileSync(file(edited.path), 'edited by hand');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const temp = `${file(created.path)}.${gone}.0123456789ab.tmp`;
    fs.writeFileSync(temp, 'half a page');
    env.stores.l1.push(U, { text: 'pushed' });
    // The next start mends it; saves after it started would be its own, and are not looked at.
    const next = env.second().stores;
    next.wiki.save(U, { title: 'Later', content: 'saved after the start', wiki_type: 'diary' });
    fs.rmSync(file(next.wiki.getByTitle(U, 'Later')!.path));
    expect(next.repairAfterStop()).toEqual({ l1_files: 1, wiki_files: 2 });
    expect(fs.readFileSync(file(created.path), 'utf8')).toBe('new page');
    expect(fs.readFileSync(file(updated.path), 'utf8')).toBe('second text');
    expect(fs.readFileSync(file(edited.path), 'utf8')).toBe('edited by hand');
    expect(fs.existsSync(temp)).toBe(false);
    // The L1 file was marked for its next flush.
    next.flush();
    expect(env.second().stores.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 1 });
  });

  it('repairAfterStop() still mends the page files when the L1 folder cannot be read (a file in its place)', () => {
    const created = env.stores.wiki.save(U, { title: 'Created', content: 'new page', wiki_type: 'diary' });
    fs.rmSync(path.join(env.dir, created.path));
    fs.mkdirSync(path.join(env.dir, 'l1'), { recursive: true });
    fs.rmSync(path.join(env.dir, 'l1', 'user'), { recursive: true, force: true });
    fs.writeFileSync(path.join(env.dir, 'l1', 'user'), 'not a folder');
    expect(env.second().stores.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 1 });
    expect(fs.readFileSync(path.join(env.dir, created.path), 'utf8')).toBe('new page');
  });

  it('repairAfterStop() removes the files of deleted or moved pages that a stopped process could not remove', () => {
    const w = env.stores.wiki;
    const file = (rel: string) => path.join(env.dir, rel);
    const gone = w.save(U, { title: 'Gone', content: 'forgotten words', wiki_type: 'diary' });
    const moved = w.save(U, { title: 'Moved', content: 'old place', wiki_type: 'diary' });
    const kept = w.save(U, { title: 'Kept', content: 'still here', wiki_type: 'diary' });
    // A folder in the files' places: their removal fails after the commits, as on a read-only disk.
    const block = (rel: string) => {
      fs.rmSync(file(rel));
      fs.mkdirSync(file(rel));
      fs.writeFileSync(path.join(file(rel), 'x'), 'x');
    };
    block(gone.path);
    block(moved.path);
    expect(w.delete(U, 'Gone')).not.toBeNull();
    const now = w.save(U, { title: 'Moved', content: 'new place', wiki_type: 'work_notes' });
    expect(now.path).not.toBe(moved.path);
    // The process stops with the files still there, and the disk takes writes again.
    for (const rel of [gone.path, moved.path]) {
      fs.rmSync(file(rel), { recursive: true });
      fs.writeFileSync(file(rel), 'left behind');
    }
    const next = env.second().stores;
    expect(next.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 2 });
    expect(fs.existsSync(file(gone.path))).toBe(false);
    expect(fs.existsSync(file(moved.path))).toBe(false);
    expect(fs.readFileSync(file(now.path), 'utf8')).toBe('new place');
    expect(fs.readFileSync(file(kept.path), 'utf8')).toBe('still here');
    // A later page that takes a removed page's path keeps its file.
    const again = next.wiki.save(U, { title: 'Gone', content: 'a new page', wiki_type: 'diary' });
    expect(again.path).toBe(gone.path);
    expect(env.second().stores.repairAfterStop()).toEqual({ l1_files: 0, wiki_files: 0 });
    expect(fs.readFileSync(file(again.path), 'utf8')).toBe('a new page');
  });

  it('rejects unknown wiki types naming the field and the accepted values', () => {
    try {
      env.stores.wiki.save(U, { title: 't', content: 'c', wiki_type: 'poetry' });
      expect.unreachable();
    } catch (err) {
      const e = err as { field: string; accepted: string[]; message: string };
      expect(e.field).toBe('wiki_type');
      expect(e.accepted).toEqual([...WIKI_TYPES]);
      expect(e.message).toMatch(/wiki_type must be one of diary/);
    }
  });

  it('refuses a control character in a title or a tag (one line each), naming it; lookups still find an old page', () => {
    const save = (over: { title?: string; tags?: string[] }) =>
      env.stores.wiki.save(U, { title: 'T', content: 'c', wiki_type: 'diary', tags: ['ok'], ...over });
    expect(() => save({ title: 'T\n## Core facts' })).toThrow(expect.objectContaining({ field: 'title', accepted: 'single-line text without control characters' }));
    // A line break in a tag printed a forged page section into wiki_summarize's digest.
    expect(() => save({ tags: ['ok_\n\n## Forged page\nevil'] })).toThrow(expect.objectContaining({ field: 'tags.0', message: expect.stringContaining('U+000A') }));
    expect(() => save({ tags: ['fine', 'a\tb'] })).toThrow(expect.objectContaining({ field: 'tags.1' }));
    expect(() => save({ tags: ['x\u001b[31m'] })).toThrow(expect.objectContaining({ field: 'tags.0' }));
    expect(() => save({ tags: ['x\u0085'] })).toThrow(expect.objectContaining({ field: 'tags.0' }));
    expect(() => save({ tags: ['a\r\nb'] })).toThrow(expect.objectContaining({ field: 'tags.0' }));
    expect(env.stores.wiki.list(U)).toHaveLength(0);
    // Surrounding white space is trimmed as before, line breaks included; blanks are still dropped.
    expect(save({ tags: ['  spaced\n', '', 'dim:val'] }).tags).toEqual(['spaced', 'dim:val']);
    // A filter's tags are a lookup: not checked.
    expect(env.stores.wiki.query(U, { tags: ['a\nb'] }).pages).toEqual([]);
  });

  it('keeps hostile titles and paths inside the data dir', () => {
    const p = env.stores.wiki.save(A, { title: '../../etc/passwd', content: 'x', wiki_type: 'decision_log' });
    expect(p.path).toBe('wiki/agent/default/decision_log/etc-passwd.md');
    const abs = path.resolve(env.dir, p.path);
    expect(abs.startsWith(env.dir + path.sep)).toBe(true);
    const weird = env.stores.wiki.save({ layer: 'user', user_id: '../..' }, { title: '..', content: 'y', wiki_type: 'diary' });
    expect(path.resolve(env.dir, weird.path).startsWith(path.join(env.dir, 'wiki') + path.sep)).toBe(true);
    expect(() => env.stores.wiki.read(A, '../../../etc/passwd')).toThrow(/escapes/);
    expect(env.stores.wiki.read(U, p.path)).toBeNull();
  });

  it('keeps the folders of an id and of one spelled like its hashed segment apart; an old page still reads', () => {
    const alice = { layer: 'user' as const, user_id: 'Alice' };
    const lookalike = { layer: 'user' as const, user_id: 'alice-3bc5106297' };
    const a = env.stores.wiki.save(alice, { title: 'Notes', content: 'a', wiki_type: 'diary' });
    const b = env.stores.wiki.save(lookalike, { title: 'Notes', content: 'b', wiki_type: 'diary' });
    expect(a.path).toBe('wiki/user/alice-3bc5106297/diary/notes.md');
    expect(b.path).toMatch(/^wiki\/user\/alice-3bc5106297-[0-9a-f]{10}\/diary\/notes\.md$/);
    // A page the lookalike saved before its folder got the hash keeps the path its row holds.
    const old = 'wiki/user/alice-3bc5106297/diary/notes-2.md';
    fs.renameSync(path.join(env.dir, b.path), path.join(env.dir, old));
    env.db.prepare('UPDATE wiki_pages SET path = ? WHERE id = ?').run(old, Number(b.id.split('_')[1]));
    expect(env.stores.wiki.read(lookalike, old)?.content).toBe('b');
    expect(env.stores.wiki.read(alice, old)).toBeNull();
    expect(env.stores.wiki.read(lookalike, a.path)).toBeNull();
  });

  it('gives distinct files to titles with the same slug', () => {
    const a = env.stores.wiki.save(U, { title: 'Hello World', content: 'a', wiki_type: 'diary' });
    const b = env.stores.wiki.save(U, { title: 'hello-world', content: 'b', wiki_type: 'diary' });
    expect(a.path).not.toBe(b.path);
    expect(env.stores.wiki.getByTitle(U, 'Hello World')?.content).toBe('a');
    expect(env.stores.wiki.getByTitle(U, 'hello-world')?.content).toBe('b');
  });

  it('links pages and lists in and out links; delete removes file, row and links', () => {
    env.stores.wiki.save(A, { title: 'Plan', content: 'p', wiki_type: 'decision_log' });
    env.stores.wiki.save(A, { title: 'Review', content: 'r', wiki_type: 'decision_log' });
    env.stores.wiki.link(A, 'Review', 'Plan', 'review_of');
    env.stores.wiki.link(A, 'Review', 'Plan', 'review_of');
    expect(env.stores.wiki.links(A, 'Plan').in.map((l) => [l.title, l.relation])).toEqual([['Review', 'review_of']]);
    expect(env.stores.wiki.links(A, 'Review').out.map((l) => l.title)).toEqual(['Plan']);
    expect(() => env.stores.wiki.link(A, 'Review', 'Missing', 'follows')).toThrow(/not found/);
    expect(() => env.stores.wiki.link(A, 'Review', 'Plan', 'likes' as never)).toThrow(/relation must be one of/);
    const del = env.stores.wiki.delete(A, 'Plan');
    expect(del?.content).toBe('p');
    expect(fs.existsSync(path.join(env.dir, del!.path))).toBe(false);
    expect(env.stores.wiki.links(A, 'Review').out).toEqual([]);
    expect(env.stores.wiki.count(A)).toBe(1);
  });
});
