import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { actionsIn, count, dreamIds, start, type TestServer } from './helpers.js';

/**
 * A thought over 2000 characters is a wiki page plus a short link to it in L4 or L3 (routing rule 1).
 * Forgetting the link (exact by its key, fuzzy by a word of it) forgets the thought: its page, and
 * the L1 item and timeline event holding its text, go with it.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const IMPORTANT = `IMPORTANT critical decision: never deploy on Fridays. ${'We learned this the hard way after the outage. '.repeat(45)}`;
const PLAIN = `A quiet note about the garden and the tomatoes. ${'The tomatoes grew slowly this season in the garden. '.repeat(45)}`;

function shadowStores(): string[] {
  return (s.kernel.storage.db.prepare('SELECT origin_store FROM shadow_bin ORDER BY id').all() as { origin_store: string }[]).map((r) => r.origin_store);
}

describe('forget of a long thought', () => {
  it('exact by its L4 link key deletes the page and the L1 item, archiving the page', async () => {
    s = await start();
    const r = await s.call('think', { text: IMPORTANT, layer: 'user' });
    expect(r.routing.rule).toBe('long_to_wiki');
    const [link] = actionsIn(r, 'l4');
    const [page] = actionsIn(r, 'wiki');
    expect(link && page).toBeTruthy();
    const out = await s.call('forget', { key: link!.key, layer: 'user' });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_wiki: 1, deleted_l1: 1, deleted_timeline: 1, archived: 2 });
    expect(count(s, 'wiki_pages')).toBe(0);
    expect(fs.existsSync(path.join(s.dataDir, page!.path!))).toBe(false);
    expect(await dreamIds(s, { query: 'deploy Fridays outage' })).toEqual([]);
    const wake = await s.call('wake_up', { layer: 'user' });
    expect(wake.brief).not.toMatch(/Fridays/);
    expect(shadowStores().sort()).toEqual(['l4', 'wiki']);
  });

  it('exact without the Shadow Bin keeps no copy of the page', async () => {
    s = await start();
    const r = await s.call('think', { text: IMPORTANT, layer: 'user' });
    const out = await s.call('forget', { key: actionsIn(r, 'l4')[0]!.key, layer: 'user', shadow_bin: false });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_wiki: 1, archived: 0 });
    expect(count(s, 'wiki_pages')).toBe(0);
    expect(count(s, 'shadow_bin')).toBe(0);
  });

  it('fuzzy matching its L3 link deletes the page too', async () => {
    s = await start();
    const r = await s.call('think', { text: PLAIN, layer: 'user' });
    expect(actionsIn(r, 'l3')[0]!.kind).toBe('wiki_link');
    const out = await s.call('forget', { key: 'tomatoes', scope: 'fuzzy', layer: 'user' });
    expect(out).toMatchObject({ deleted_l3: 1, deleted_wiki: 1, archived: 2 });
    expect(count(s, 'wiki_pages')).toBe(0);
    expect(await dreamIds(s, { query: 'tomatoes garden' })).toEqual([]);
  });

  // Regression guard, fixed: fuzzy matched the link only, an excerpt of the thought's first 280 characters, so a word
  // further in was reported forgotten (its L1 item went) while the page kept it and dream and wake_up still found it.
  it('fuzzy matching a word past the link deletes the page and its link', async () => {
    s = await start();
    const text = `${PLAIN} My old locker combination was quokkaberry seven.`;
    const r = await s.call('think', { text, layer: 'user' });
    const [page] = actionsIn(r, 'wiki');
    expect(r.actions.find((a: { kind?: string }) => a.kind === 'wiki_link')!.store).toBe('l3');
    const other = await s.call('think', { text: PLAIN, layer: 'user' });
    const forced = await s.call('think', { text, layer: 'user', wiki_type: 'diary' });
    await s.call('think', { text, layer: 'agent' });
    const out = await s.call('forget', { key: 'quokkaberry', scope: 'fuzzy', layer: 'user' });
    expect(out).toMatchObject({ deleted_l3: 1, deleted_wiki: 1, archived: 2 });
    expect(fs.existsSync(path.join(s.dataDir, page!.path!))).toBe(false);
    expect(shadowStores().sort()).toEqual(['l3', 'wiki']);
    // The page the caller asked for (wiki_type) is never touched; the other thought's page and the agent layer's stay.
    const left = (s.kernel.storage.db.prepare('SELECT path FROM wiki_pages WHERE layer = ? ORDER BY id').all('user') as { path: string }[]).map((p) => p.path);
    expect(left).toContain(actionsIn(other, 'wiki')[0]!.path);
    expect(left).toHaveLength(2);
    expect(count(s, 'wiki_pages', { layer: 'agent' })).toBe(1);
    expect((await s.call('wake_up', { layer: 'user' })).brief).not.toMatch(/quokkaberry/);
    expect(await dreamIds(s, { query: 'quokkaberry', layer: 'user' })).toEqual([actionsIn(forced, 'wiki')[0]!.id]);
  });

  // Regression guard, fixed: the link ends with the page's generated title and path (`[wiki: Thought_... (wiki/user/alice/diary/...md)]`),
  // and fuzzy matched their words, so forgetting the user's own id, "diary" or "wiki" deleted the link and the whole page with it.
  it('fuzzy with a word only of the page title and path think wrote into the link deletes nothing', async () => {
    s = await start();
    const scope = { layer: 'user', user_id: 'alice' };
    const viaL4 = await s.call('think', { ...scope, text: IMPORTANT });
    const viaL3 = await s.call('think', { ...scope, text: PLAIN });
    expect([actionsIn(viaL4, 'l4')[0]!.kind, actionsIn(viaL3, 'l3')[0]!.kind]).toEqual(['wiki_link', 'wiki_link']);
    const [page] = actionsIn(viaL3, 'wiki');
    const title = (s.kernel.storage.db.prepare('SELECT title FROM wiki_pages WHERE path = ?').get(page!.path) as { title: string }).title;
    for (const key of ['alice', 'diary', 'wiki', 'user', 'thought', 'md', title, page!.path!]) {
      const out = await s.call('forget', { ...scope, key, scope: 'fuzzy' });
      expect(out, key).toMatchObject({ deleted_l4: 0, deleted_l3: 0, deleted_wiki: 0, deleted_graph: 0, archived: 0 });
    }
    expect(count(s, 'wiki_pages', scope)).toBe(2);
    expect(count(s, 'facts', scope) + count(s, 'episodes', scope)).toBe(2);
    // A word of the thought itself still forgets it, link and page.
    const out = await s.call('forget', { ...scope, key: 'tomatoes', scope: 'fuzzy' });
    expect(out).toMatchObject({ deleted_l3: 1, deleted_wiki: 1 });
    expect(count(s, 'wiki_pages', scope)).toBe(1);
  });

  // Regression guard, fixed: exact swept the episodes holding a forgotten value, and a long thought's link holds its page's path.
  it('exact of a fact whose value is a page path leaves the long thought linked to that page', async () => {
    s = await start();
    const r = await s.call('think', { text: PLAIN, layer: 'agent' });
    const [page] = actionsIn(r, 'wiki');
    expect(actionsIn(r, 'l3')[0]!.kind).toBe('wiki_link');
    const rule = await s.call('evolve', { instruction: page!.path });
    const out = await s.call('forget', { key: rule.key, layer: 'agent' });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_l3: 0, deleted_wiki: 0 });
    expect(count(s, 'wiki_pages', { layer: 'agent' })).toBe(1);
    expect(count(s, 'episodes', { layer: 'agent' })).toBe(1);
  });

  it('leaves the pages of other thoughts, layers and users alone', async () => {
    s = await start();
    const mine = await s.call('think', { text: IMPORTANT, layer: 'user' });
    await s.call('think', { text: IMPORTANT, layer: 'agent' });
    await s.call('think', { text: IMPORTANT, layer: 'user', user_id: 'bob' });
    await s.call('think', { text: PLAIN, layer: 'user' });
    const out = await s.call('forget', { key: actionsIn(mine, 'l4')[0]!.key, layer: 'user' });
    expect(out.deleted_wiki).toBe(1);
    expect(count(s, 'wiki_pages', { layer: 'user' })).toBe(1);
    expect(count(s, 'wiki_pages', { layer: 'agent' })).toBe(1);
    expect(count(s, 'wiki_pages', { layer: 'user', user_id: 'bob' })).toBe(1);
  });

  it('dream does not find the link by the page path think appended, as forget does not: "diary", the user id', async () => {
    s = await start();
    const r = await s.call('think', { text: PLAIN, layer: 'user', user_id: 'alice' });
    expect(r.routing.rule).toBe('long_to_wiki');
    const [page] = actionsIn(r, 'wiki');
    expect(page!.path).toContain('alice');
    const scope = { layer: 'user', user_id: 'alice' };
    for (const query of ['diary', 'alice']) expect(await dreamIds(s, { query, ...scope })).toEqual([]);
    // The thought's own words still find the link and the page.
    expect((await dreamIds(s, { query: 'tomatoes garden', ...scope })).length).toBeGreaterThan(0);
  });
});
