import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('FactStore', () => {
  it('keys are unique per (layer, user_id) and upsert keeps the entry_id', () => {
    const a = env.stores.facts.upsert(U, { key: 'name', value: 'Ada', importance: 0.8, source: 'user_explicit' });
    expect(a.created_new).toBe(true);
    expect(a.entry_id).toMatch(/^fact_\d+$/);
    const b = env.stores.facts.upsert(U, { key: 'name', value: 'Ada L.', importance: 0.9, source: 'user_explicit' });
    expect(b.created_new).toBe(false);
    expect(b.entry_id).toBe(a.entry_id);
    expect(env.stores.facts.get(U, 'name')?.value).toBe('Ada L.');
    const agent = env.stores.facts.upsert(A, { key: 'name', value: 'agent value', importance: 1, source: 'manual' });
    env.stores.facts.upsert(U2, { key: 'name', value: 'Bob', importance: 0.5 });
    expect(agent.entry_id).not.toBe(a.entry_id);
    expect(env.stores.facts.get(U, 'name')?.value).toBe('Ada L.');
    expect(env.stores.facts.count(U)).toBe(1);
    expect(env.stores.facts.list(A).map((f) => f.value)).toEqual(['agent value']);
    expect(env.stores.audit.forTarget(a.entry_id).map((e) => e.action)).toEqual(['create', 'update']);
  });

  it('holding(): the facts of the scope whose value is exactly the text, oldest first', () => {
    const f = env.stores.facts;
    f.upsert(U, { key: 'a', value: 'Ships on Friday' });
    f.upsert(U, { key: 'b', value: 'Ships on Friday' });
    f.upsert(U, { key: 'c', value: 'ships on friday' });
    f.upsert(A, { key: 'a', value: 'Ships on Friday' });
    expect(f.holding(U, 'Ships on Friday').map((x) => x.key)).toEqual(['a', 'b']);
    expect(f.holding(U2, 'Ships on Friday')).toEqual([]);
  });

  it('keyFor(): the same value keeps its key, another takes a free number, in a few lookups', () => {
    const f = env.stores.facts;
    const put = (key: string, value: string) => f.upsert(U, { key, value, importance: 0.5, source: 'manual' });
    for (let n = 1; n <= 300; n++) put(n === 1 ? 'note:x' : `note:x-${n}`, `value ${n}`);
    put('note:x-y', 'value 7');
    const get = vi.spyOn(f, 'get');
    expect(f.keyFor(U, 'note:x', 'value 7')).toBe('note:x-7');
    expect(f.keyFor(U, 'note:x', 'value 1')).toBe('note:x');
    expect(f.keyFor(U, 'note:x', 'something new')).toBe('note:x-301');
    expect(f.keyFor(U2, 'note:x', 'value 7')).toBe('note:x');
    expect(get).not.toHaveBeenCalled();
    get.mockRestore();
    f.delete(U, 'note:x-150');
    // A free number after a taken one (here the next after the family); the copy keeps its key.
    expect(f.keyFor(U, 'note:x', 'something new')).toBe('note:x-301');
    expect(f.keyFor(U, 'note:x', 'value 200')).toBe('note:x-200');
  });

  it('keyFor(): the same value under a key of the same prefix an older key rule made keeps that key; another prefix does not count', () => {
    const f = env.stores.facts;
    const text = 'Мой любимый цвет: my favourite colour is teal.';
    f.upsert(U, { key: 'note:my-favourite-colour', value: text });
    f.upsert(U, { key: 'city', value: 'Будь вежливым' });
    expect(f.keyFor(U, 'note:мой-любимый-цвет-my-favourite-colour', text)).toBe('note:my-favourite-colour');
    expect(f.keyFor(U, 'personality:будь-вежливым', 'Будь вежливым')).toBe('personality:будь-вежливым');
  });

  it('clamps importance and validates the source', () => {
    expect(env.stores.facts.upsert(U, { key: 'lo', value: 'x', importance: -3 }).importance).toBe(0.05);
    expect(env.stores.facts.upsert(U, { key: 'hi', value: 'x', importance: 7 }).importance).toBe(1);
    expect(() => env.stores.facts.upsert(U, { key: 'k', value: 'v', source: 'bogus' as never })).toThrow(/source must be one of/);
  });

  it('adjusts importance in 0.05 steps within bounds and logs importance_audit', () => {
    const f = env.stores.facts.upsert(U, { key: 'k', value: 'v', importance: 0.95 });
    expect(env.stores.facts.adjustImportance(f.entry_id, 0.05, 'agent_feedback')?.importance).toBe(1);
    expect(env.stores.facts.adjustImportance(f.entry_id, 0.05, 'agent_feedback')?.importance).toBe(1);
    expect(env.stores.facts.adjustImportance(f.entry_id, -0.05, 'agent_feedback')?.importance).toBe(0.95);
    const hist = env.stores.audit.history(f.entry_id);
    expect(hist.map((h) => [h.old, h.new, h.reason])).toEqual([
      [0.95, 1, 'agent_feedback'],
      [1, 1, 'agent_feedback'],
      [1, 0.95, 'agent_feedback'],
    ]);
    const low = env.stores.facts.upsert(U, { key: 'low', value: 'v', importance: 0.1 });
    env.stores.facts.adjustImportance(low.entry_id, -0.05, 'x');
    expect(env.stores.facts.adjustImportance(low.entry_id, -0.05, 'x')?.importance).toBe(0.05);
    expect(env.stores.facts.adjustImportance('fact_999999', 0.05, 'x')).toBeNull();
  });

  it('orders by importance, deletes by key, pattern and time', () => {
    env.stores.facts.upsert(U, { key: 'a', value: 'apple pie', importance: 0.3 });
    env.stores.facts.upsert(U, { key: 'b', value: 'banana', importance: 0.9 });
    env.stores.facts.upsert(A, { key: 'c', value: 'apple agent', importance: 0.9 });
    expect(env.stores.facts.list(U).map((f) => f.key)).toEqual(['b', 'a']);
    expect(env.stores.facts.deleteMatching(U, 'APPLE').map((f) => f.key)).toEqual(['a']);
    expect(env.stores.facts.get(A, 'c')).not.toBeNull();
    expect(env.stores.facts.deleteMatching(U, '50%')).toEqual([]);
    expect(() => env.stores.facts.deleteMatching(U, '%')).toThrow(/letter or digit/);
    // Case is ignored beyond ASCII too, and a part of a word matches nothing.
    env.stores.facts.upsert(U, { key: 'd', value: 'Émile lives in Århus' });
    env.stores.facts.upsert(U, { key: 'e', value: 'Émilie likes tea' });
    expect(env.stores.facts.findMatching(U, 'IN århus').map((f) => f.key)).toEqual(['d']);
    expect(env.stores.facts.deleteMatching(U, 'émile').map((f) => f.key)).toEqual(['d']);
    expect(env.stores.facts.deleteMatching(U, 'ban')).toEqual([]);
    expect(env.stores.facts.deleteMatching(U, 'ÉMILIE').map((f) => f.key)).toEqual(['e']);
    env.clock.advance(3600_000);
    const since = new Date(env.clock.now()).toISOString();
    env.stores.facts.upsert(U, { key: 'new', value: 'n' });
    expect(env.stores.facts.deleteSince(U, since)).toBe(1);
    expect(env.stores.facts.list(U).map((f) => f.key)).toEqual(['b']);
    // A fact older than the window that was only updated inside it stays.
    const since2 = new Date(env.clock.now() + 1).toISOString();
    env.clock.advance(60_000);
    env.stores.facts.upsert(U, { key: 'b', value: 'b again' });
    expect(env.stores.facts.deleteSince(U, since2)).toBe(0);
    expect(env.stores.facts.get(U, 'b')?.value).toBe('b again');
    const b = env.stores.facts.delete(U, 'b');
    expect(b?.key).toBe('b');
    expect(env.stores.facts.getByEntryId(b!.entry_id)).toBeNull();
    expect(env.stores.facts.delete(U, 'b')).toBeNull();
  });

  it('findMatching() folds accents, full-width letters and case as retrieval does, in values and keys', () => {
    const f = env.stores.facts;
    f.upsert(U, { key: 'drink', value: 'Café au lait at the corner' });
    f.upsert(U, { key: 'ＣＡＦＥ hours', value: 'from seven' });
    f.upsert(U, { key: 'place', value: 'The cafeteria upstairs' });
    f.upsert(U, { key: 'plain', value: 'a cafe on the quay' });
    for (const p of ['cafe', 'CAFÉ', 'ＣＡＦＥ', 'ｃａｆｅ']) expect(f.findMatching(U, p).map((x) => x.key), p).toEqual(['drink', 'ＣＡＦＥ hours', 'plain']);
    expect(f.findMatching(U, 'caf')).toEqual([]);
    expect(f.deleteMatching(U, 'ＣＡＦＥ').map((x) => x.key)).toEqual(['drink', 'ＣＡＦＥ hours', 'plain']);
    expect(f.list(U).map((x) => x.key)).toEqual(['place']);
  });

  it('findMatching() matches values and chosen keys, never the generated part of a key', () => {
    const f = env.stores.facts;
    f.upsert(U, { key: 'note:remember-my-name-is-alice', value: 'Remember: my name is Alice' });
    f.upsert(U, { key: 'personality:be-brief-2', value: 'Be brief' });
    f.upsert(U, { key: 'auto:x', value: 'x' });
    f.upsert(U, { key: 'favourite note', value: 'Lisbon' });
    for (const p of ['note', 'auto', 'personality', 'remember-my', '2']) expect(f.findMatching(U, p).map((x) => x.key), p).toEqual(p === 'note' ? ['favourite note'] : []);
    expect(f.findMatching(U, 'alice').map((x) => x.key)).toEqual(['note:remember-my-name-is-alice']);
    expect(f.findMatching(U, 'favourite').map((x) => x.key)).toEqual(['favourite note']);
    expect(() => f.deleteMatching(U, ' : - ')).toThrow(expect.objectContaining({ field: 'pattern' }));
    expect(f.count(U)).toBe(4);
  });

  it('findMatching() matches a long thought\'s link by the thought\'s words, not the page title and path think added after them', () => {
    const f = env.stores.facts;
    const link = 'Notes on the caching layer design… [wiki: Thought_20260101T000000Z (wiki/user/alice/diary/thought-20260101t000000z.md)]';
    f.upsert(U, { key: 'thought:notes-on-the-caching', value: link, metadata: { wiki_path: 'wiki/user/alice/diary/thought-20260101t000000z.md', origin: 'think' } });
    // A copy of the link without think's metadata (an L3 link promoted to L4) is read the same way.
    f.upsert(U, { key: 'episode:notes', value: link.replace('Notes on', 'Notes about'), metadata: { from_episode: 'ep_1' } });
    for (const p of ['alice', 'diary', 'wiki', 'user', 'thought', 'md', 'Thought_20260101T000000Z', 'wiki/user']) expect(f.findMatching(U, p), p).toEqual([]);
    expect(f.findMatching(U, 'caching layer').map((x) => x.key)).toEqual(['thought:notes-on-the-caching', 'episode:notes']);
    expect(f.deleteMatching(U, 'alice')).toEqual([]);
    expect(f.count(U)).toBe(2);
  });

  it('namingWikiPath(): the facts of the scope whose metadata names the page path, oldest first', () => {
    const f = env.stores.facts;
    const path = 'wiki/user/default/diary/thought-1.md';
    f.upsert(U, { key: 'a', value: 'a', metadata: { wiki_path: path, origin: 'think' } });
    f.upsert(U, { key: 'b', value: `says ${path}` });
    f.upsert(U, { key: 'c', value: 'c', metadata: { wiki_path: `${path}x` } });
    f.upsert(A, { key: 'a', value: 'a', metadata: { wiki_path: path } });
    f.upsert(U, { key: 'd', value: 'd', metadata: { origin: 'think', wiki_path: path } });
    expect(f.namingWikiPath(U, path).map((x) => x.key)).toEqual(['a', 'd']);
    expect(f.namingWikiPath(U, 'wiki/none.md')).toEqual([]);
  });

  it('two Stores on two connections interleaving fact writes and L1 pushes lose nothing', () => {
    const other = env.second();
    for (let i = 0; i < 25; i++) {
      env.stores.transaction(() => {
        env.stores.facts.upsert(U, { key: `a${i}`, value: 'x' });
        env.stores.l1.push(U, { text: `a${i}` });
      });
      other.stores.facts.upsert(U, { key: `b${i}`, value: 'y' });
      other.stores.l1.push(U, { text: `b${i}` });
    }
    expect(env.stores.facts.count(U)).toBe(50);
    expect(other.stores.facts.count(U)).toBe(50);
    expect(env.stores.l1.list(U)).toHaveLength(50);
  });
});

describe('FactStore: values are never blank', () => {
  it('refuses a blank value (empty, white space, invisible characters only) for a new or a stored key, naming value, and writes nothing', () => {
    env.stores.facts.upsert(U, { key: 'city', value: 'Lyon' });
    for (const value of ['', '   ', '\u200b\u200b', '\n\t']) {
      for (const key of ['city', 'country']) {
        expect(() => env.stores.facts.upsert(U, { key, value }), JSON.stringify([key, value])).toThrow(
          expect.objectContaining({ field: 'value', accepted: 'text with a visible character', message: 'value must not be empty' }),
        );
      }
    }
    expect(env.stores.facts.list(U).map((f) => [f.key, f.value])).toEqual([['city', 'Lyon']]);
  });
});
