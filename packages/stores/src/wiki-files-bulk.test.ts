import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const fileText = (rel: string) => (fs.existsSync(path.join(env.dir, rel)) ? fs.readFileSync(path.join(env.dir, rel), 'utf8') : null);
const notes = (table: 'wiki_file_writes' | 'wiki_file_removals') => env.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck(true).get() as number;
const rows = () => env.db.prepare("SELECT title, path, content FROM wiki_pages WHERE layer = 'user' AND user_id = 'default' ORDER BY id").all() as { title: string; path: string; content: string }[];

/** A memory_data document of `n` pages. */
function doc(n: number, text: string): unknown {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    format: 'memory-service-scope-export',
    version: 1,
    layer: 'user',
    user_id: 'default',
    wiki_pages: Array.from({ length: n }, (_, i) => ({ title: `Page ${i}`, content: `${text} ${i}`, wiki_type: 'diary', created: at, updated: at })),
  };
}

/** Turns of the event loop (setImmediate) until the bulk queue is empty; answers how many it took. */
async function turnsUntilDone(): Promise<number> {
  let turns = 0;
  while (env.stores.wiki.filesBehind.bulk.size > 0) {
    await new Promise((resolve) => setImmediate(resolve));
    turns++;
    if (turns > 10_000) throw new Error('the page files were never done');
  }
  return turns;
}

describe('the page files a bulk writer (memory_data import) owes, done in slices after its commit', () => {
  it('none is written in the turn of the commit: reads take the rows meanwhile, and later turns write every file and clear the notes', async () => {
    const s = env.stores;
    s.scopeData.importScope(U, doc(400, 'first'), 'merge');
    expect(await turnsUntilDone()).toBeGreaterThan(0);
    s.scopeData.importScope(U, doc(400, 'second'), 'replace');
    // Right after the commit: the files still hold the replaced text, reads answer the rows.
    expect(fileText(rows()[0]!.path)).toBe('first 0');
    expect(s.wiki.getByTitle(U, 'Page 0')?.content).toBe('second 0');
    expect(s.wiki.read(U, rows()[399]!.path)?.content).toBe('second 399');
    expect(notes('wiki_file_writes')).toBe(400);
    // The event loop gets turns while the files are written (several slices for 400 files, each
    // removed and written again by the replace).
    expect(await turnsUntilDone()).toBeGreaterThan(1);
    expect(rows().filter((r) => fileText(r.path) !== r.content)).toEqual([]);
    expect(notes('wiki_file_writes')).toBe(0);
    expect(notes('wiki_file_removals')).toBe(0);
  });

  it('a replace that drops pages removes their files; another save of a queued page in between wins', async () => {
    const s = env.stores;
    s.scopeData.importScope(U, doc(6, 'first'), 'merge');
    await turnsUntilDone();
    const dropped = rows()[5]!.path;
    s.scopeData.importScope(U, doc(5, 'second'), 'replace');
    expect(fileText(dropped)).toBe('first 5');
    s.wiki.save(U, { title: 'Page 2', content: 'saved after the import', wiki_type: 'diary' });
    await turnsUntilDone();
    expect(fileText(dropped)).toBeNull();
    expect(rows().map((r) => fileText(r.path))).toEqual(['second 0', 'second 1', 'saved after the import', 'second 3', 'second 4']);
    expect(notes('wiki_file_removals')).toBe(0);
  });

  it('a stop before the slices ran leaves the notes, and the next start makes every file its row', () => {
    const s = env.stores;
    s.scopeData.importScope(U, doc(300, 'first'), 'merge');
    s.flush();
    s.scopeData.importScope(U, doc(250, 'second'), 'replace');
    // Stopped now (the slices never run): the database holds the notes, the files the old text.
    s.wiki.filesBehind.bulk.stop();
    expect(notes('wiki_file_writes')).toBe(250);
    expect(notes('wiki_file_removals')).toBe(300);
    const next = env.second().stores;
    next.repairAfterStop();
    expect(rows().filter((r) => fileText(r.path) !== r.content)).toEqual([]);
    for (let i = 250; i < 300; i++) expect(fileText(`wiki/user/default/diary/page-${i}.md`)).toBeNull();
    expect(notes('wiki_file_writes')).toBe(0);
    expect(notes('wiki_file_removals')).toBe(0);
  });

  it('flush finishes the queue at once', () => {
    const s = env.stores;
    s.scopeData.importScope(U, doc(50, 'first'), 'merge');
    expect(s.wiki.filesBehind.bulk.size).toBe(50);
    s.flush();
    expect(s.wiki.filesBehind.bulk.size).toBe(0);
    expect(rows().filter((r) => fileText(r.path) !== r.content)).toEqual([]);
    expect(notes('wiki_file_writes')).toBe(0);
  });
});
