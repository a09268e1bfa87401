import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HIDDEN_FORMAT_ACCEPTED } from '@memory-service/kernel';
import { A, U, makeEnv, nfc, nfd, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const TITLE = 'Café menu';

/** A page saved before titles were normalised: its title as it was sent, no file. */
function legacyPage(title: string, content: string): void {
  env.db
    .prepare('INSERT INTO wiki_pages (layer, user_id, title, wiki_type, tags, path, content, created, updated, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(U.layer, U.user_id, title, 'work_notes', '[]', 'wiki/user/default/work_notes/legacy.md', content, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', content.length);
}

describe('WikiStore: titles as identities', () => {
  it('a title sent composed or decomposed names one page, stored in NFC, for save, read, link and delete', () => {
    const w = env.stores.wiki;
    const a = w.save(U, { title: nfc(TITLE), content: 'first', wiki_type: 'work_notes' });
    const b = w.save(U, { title: nfd(TITLE), content: 'second', wiki_type: 'work_notes' });
    expect(b).toMatchObject({ id: a.id, path: a.path, title: nfc(TITLE), created_new: false });
    expect(w.list(U).map((p) => p.title)).toEqual([nfc(TITLE)]);
    expect(w.getByTitle(U, nfd(TITLE))?.content).toBe('second');
    w.save(U, { title: 'Other', content: 'x', wiki_type: 'work_notes' });
    expect(w.link(U, 'Other', nfd(TITLE), 'follows')).toMatchObject({ title: nfc(TITLE), created_new: true });
    expect(w.links(U, nfd(TITLE)).in.map((l) => l.title)).toEqual(['Other']);
    expect(env.stores.versions.wikiHistory(U, nfd(TITLE)).total).toBe(2);
    expect(w.freeTitle(U, nfd(TITLE))).toBe(`${nfc(TITLE)}-2`);
    expect(w.listByTitle(nfd(TITLE)).map((p) => p.id)).toEqual([a.id]);
    expect(w.delete(U, nfd(TITLE))?.id).toBe(a.id);
    expect(w.getByTitle(U, nfc(TITLE))).toBeNull();
  });

  it('refuses a title holding an invisible format character (a bidi override, a zero-width space), naming title', () => {
    for (const title of ['invoice\u202Efdp.exe', 'Caf\u200Be', 'soft\u00ADhyphen', 'a\u2066b\u2069']) {
      expect(() => env.stores.wiki.save(U, { title, content: 'x', wiki_type: 'diary' }), JSON.stringify(title)).toThrow(
        expect.objectContaining({ field: 'title', accepted: HIDDEN_FORMAT_ACCEPTED }),
      );
    }
    expect(env.stores.wiki.list(U)).toEqual([]);
    // A staged wiki_write is refused when proposed, not when approved.
    expect(() => env.stores.proposals.propose(U, { kind: 'wiki_write', title: 'invoice\u202Efdp.exe', content: 'x' })).toThrow(
      expect.objectContaining({ field: 'title', accepted: HIDDEN_FORMAT_ACCEPTED }),
    );
    // A joiner inside a Persian word, an Indic conjunct or an emoji is part of the title; so is an RLM in Hebrew.
    for (const title of ['می\u200Cخواهم', 'क्\u200Dष', '👨\u200D👩\u200D👧 family', 'C++ \u200Fמדריך']) {
      expect(env.stores.wiki.save(A, { title, content: 'x', wiki_type: 'decision_log' }).title).toBe(title);
    }
  });

  it('a page saved before under a decomposed title is found, updated and deleted in place by either form', () => {
    legacyPage(nfd(TITLE), 'old');
    const w = env.stores.wiki;
    expect(w.getByTitle(U, nfc(TITLE))?.content).toBe('old');
    const saved = w.save(U, { title: nfc(TITLE), content: 'new', wiki_type: 'work_notes' });
    expect(saved).toMatchObject({ title: nfd(TITLE), created_new: false, path: 'wiki/user/default/work_notes/legacy.md' });
    expect(w.list(U)).toHaveLength(1);
    expect(w.delete(U, nfc(TITLE))?.content).toBe('new');
    expect(w.list(U)).toEqual([]);
  });

  it('an old page whose title holds a bidi override can still be updated and deleted by that title', () => {
    legacyPage('invoice\u202Efdp.exe', 'old');
    expect(env.stores.wiki.save(U, { title: 'invoice\u202Efdp.exe', content: 'new', wiki_type: 'work_notes' }).created_new).toBe(false);
    expect(env.stores.wiki.delete(U, 'invoice\u202Efdp.exe')?.content).toBe('new');
  });
});
