import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import wiki from '@memory-service/plugin-wiki';
import { createTestServer } from '@memory-service/testing';
import { admin, ManualClock, primitives, toolError, type TestServer } from './helpers.js';

/**
 * memory_backup restore and the wiki page files: the database holds every page's text (canonical),
 * the Markdown files under <data_dir>/wiki/ mirror it, so a restore makes the files match the
 * restored pages.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const startWithWiki = () => createTestServer({ plugins: [primitives, wiki, admin], expose: 'admin,wiki', clock: new ManualClock() });

/** Every page file under the data dir's wiki folder, relative, with its text. */
function filesOnDisk(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = path.join(dataDir, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${rel}/${e.name}`);
      else if (e.name.endsWith('.md')) out[`${rel}/${e.name}`] = fs.readFileSync(path.join(abs, e.name), 'utf8');
    }
  };
  walk('wiki');
  return out;
}

async function listed(layer: 'user' | 'agent'): Promise<{ title: string; path: string }[]> {
  const r = await s.call('wiki_list', { layer });
  return r.pages.map((p: { title: string; path: string }) => ({ title: p.title, path: p.path })).sort((a: { title: string }, b: { title: string }) => a.title.localeCompare(b.title));
}

// Regression guard, fixed: restore copied memory.db back and left the page files as they were: a page
// deleted since the backup came back with no file change, one changed since kept (and read back) its newer
// text from its file, and one added since kept its file with no page.
describe('memory_backup restore and wiki page files', () => {
  it('after a restore, wiki_read, wiki_list and the files on disk match the backup', async () => {
    s = await startWithWiki();
    const alpha = await s.call('wiki_add', { title: 'Alpha', content: 'Alpha as backed up.', wiki_type: 'diary', layer: 'user' });
    const beta = await s.call('wiki_add', { title: 'Beta', content: 'Beta as backed up.', wiki_type: 'preferences', layer: 'user' });
    await s.call('wiki_add', { title: 'Agent page', content: 'The agent page as backed up.', wiki_type: 'decision_log', layer: 'agent' });
    const atBackup = filesOnDisk(s.dataDir);
    const listedAtBackup = { user: await listed('user'), agent: await listed('agent') };
    expect(Object.keys(atBackup)).toHaveLength(3);
    const taken = (await s.call('memory_backup', { action: 'now' })).backup;

    await s.call('wiki_add', { title: 'Alpha', content: 'Alpha rewritten after the backup.', wiki_type: 'diary', layer: 'user' });
    await s.call('wiki_delete', { title: 'Beta', layer: 'user' });
    const gamma = await s.call('wiki_add', { title: 'Gamma', content: 'Gamma added after the backup.', wiki_type: 'diary', layer: 'user' });
    await s.call('wiki_add', { title: 'Agent page', content: 'The agent page moved.', wiki_type: 'learning_journal', layer: 'agent' });
    expect(filesOnDisk(s.dataDir)).not.toEqual(atBackup);

    const r = await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(r.wiki_files).toEqual({ written: 3, removed: 2, behind: 0 });
    expect(filesOnDisk(s.dataDir)).toEqual(atBackup);
    expect({ user: await listed('user'), agent: await listed('agent') }).toEqual(listedAtBackup);
    expect((await s.call('wiki_read', { path: alpha.page.path, layer: 'user' })).page.content).toBe('Alpha as backed up.');
    expect((await s.call('wiki_read', { path: beta.page.path, layer: 'user' })).page.content).toBe('Beta as backed up.');
    expect((await toolError(s.call('wiki_read', { path: gamma.page.path, layer: 'user' }))).field).toBe('path');
    const search = await s.call('wiki_search', { query: 'rewritten', layer: 'user' });
    expect(JSON.stringify(search)).not.toContain('rewritten after the backup');

    // The pre-restore copy undoes it, files included.
    const back = await s.call('memory_backup', { action: 'restore', name: r.safety_backup.name });
    expect(back.wiki_files.behind).toBe(0);
    expect((await s.call('wiki_read', { path: alpha.page.path, layer: 'user' })).page.content).toBe('Alpha rewritten after the backup.');
    expect((await s.call('wiki_read', { path: gamma.page.path, layer: 'user' })).page.content).toBe('Gamma added after the backup.');
    expect(fs.existsSync(path.join(s.dataDir, beta.page.path))).toBe(false);
  });
});
