import { describe, expect, it } from 'vitest';
import { collapseRedundant, comparableText, DISTINCT_ASK_MAX, searchDistinct, standsInAny, type DistinctSearch } from './distinct.js';
import type { Hit, SearchOptions } from './retrieval.js';
import { thoughtLinkText } from '../thought-link.js';

/** collapseRedundant: a hit whose whole text stands inside a better-ranked hit is dropped. */
const explain = { bm25: 0, importance: 0, recency: 0, access: 0, fused: 0, signals: { bm25_raw: 0, bm25: 0, importance: 0, recency: 0, access: 0 } };
const hit = (id: string, text: string, source: Hit['source'] = 'l3'): Hit => ({ source, id, score: 1, text, created: '2026-01-01T00:00:00.000Z', explain });
const ids = (hits: Hit[]) => hits.map((h) => h.id);

describe('collapseRedundant', () => {
  it('drops a later hit contained in an earlier one', () => {
    const out = collapseRedundant([hit('ep_1', 'Postgres is related to the event store, we said'), hit('node_1', 'Postgres is related to the event store', 'graph')]);
    expect(ids(out)).toEqual(['ep_1']);
  });

  it('keeps a later hit that contains an earlier one (only the better-ranked wins)', () => {
    const out = collapseRedundant([hit('node_1', 'Postgres is related to the event store', 'graph'), hit('ep_1', 'Postgres is related to the event store, we said')]);
    expect(ids(out)).toEqual(['node_1', 'ep_1']);
  });

  it('compares case- and whitespace-insensitively', () => {
    const out = collapseRedundant([hit('ep_1', 'The  Ferry leaves\nat eight'), hit('ep_2', 'the ferry LEAVES at eight')]);
    expect(ids(out)).toEqual(['ep_1']);
    // A lone tab or line break counts as a space too, either side, and so does trailing white space.
    expect(ids(collapseRedundant([hit('ep_1', 'the ferry leaves at eight'), hit('ep_2', 'ferry\tleaves at ')]))).toEqual(['ep_1']);
    expect(ids(collapseRedundant([hit('ep_1', 'the\nferry leaves'), hit('ep_2', 'the ferry')]))).toEqual(['ep_1']);
  });

  it('compares in NFC: a decomposed copy of a memory stands in its precomposed copy, and the reverse', () => {
    expect(ids(collapseRedundant([hit('ep_1', 'Meet at the Caf\u00e9 Z\u00fcrich at noon'), hit('ep_2', 'cafe\u0301 zu\u0308rich at noon')]))).toEqual(['ep_1']);
    expect(ids(collapseRedundant([hit('ep_1', 'Cafe\u0301 Zu\u0308rich at noon'), hit('ep_2', 'CAF\u00c9 Z\u00dcRICH AT NOON')]))).toEqual(['ep_1']);
    // Only the same text: an accent is still a letter of its own ("cafe" is another word than "café").
    expect(ids(collapseRedundant([hit('ep_1', 'Caf\u00e9 Z\u00fcrich'), hit('ep_2', 'Cafe Zurich')]))).toEqual(['ep_1', 'ep_2']);
  });

  it('keeps distinct hits in their order', () => {
    const out = collapseRedundant([hit('a', 'alpha'), hit('b', 'beta'), hit('c', 'gamma'), hit('d', 'alphabet')]);
    expect(ids(out)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps at most limit hits, counting only those it keeps', () => {
    const hits = [hit('a', 'the ferry to the island'), hit('b', 'ferry to the island'), hit('c', 'weather report'), hit('d', 'tide tables')];
    expect(ids(collapseRedundant(hits, 2))).toEqual(['a', 'c']);
    expect(ids(collapseRedundant(hits, 1))).toEqual(['a']);
    expect(ids(collapseRedundant(hits))).toEqual(['a', 'c', 'd']);
  });

  it('checks against every kept hit, not only the previous one', () => {
    const out = collapseRedundant([hit('a', 'the ferry to the island'), hit('b', 'weather report'), hit('c', 'ferry to the island')]);
    expect(ids(out)).toEqual(['a', 'b']);
  });

  it('drops a hit only when its text stands inside as whole words: another memory inside a word is kept', () => {
    const kept = (a: string, b: string) => ids(collapseRedundant([hit('a', a), hit('b', b)]));
    expect(kept('My daughter likes the caterpillar', 'My daughter likes the cat')).toEqual(['a', 'b']);
    expect(kept('The meeting room code is 4512', 'The meeting room code is 45')).toEqual(['a', 'b']);
    expect(kept('She said fortune was kind', 'tune was kind')).toEqual(['a', 'b']);
    expect(kept('Über café', 'ber caf')).toEqual(['a', 'b']);
    // A later occurrence at a word boundary still counts; punctuation is no part of a word.
    expect(kept('the caterpillar and the cat', 'the cat')).toEqual(['a']);
    expect(kept('"the cat", she said', 'the cat')).toEqual(['a']);
    expect(kept('we said: hi.', 'hi.')).toEqual(['a']);
    expect(kept('🐱cat naps', 'cat naps')).toEqual(['a']);
  });

  it('never drops an empty-text hit and handles an empty list', () => {
    expect(ids(collapseRedundant([hit('a', 'anything'), hit('b', '   ')]))).toEqual(['a', 'b']);
    expect(collapseRedundant([])).toEqual([]);
  });
});

/** One memory the service wrote in two records: the pair, in both orders, is one hit (the better-ranked one). */
describe('collapseRedundant: the service\'s wrappers', () => {
  const both = (a: Hit, b: Hit) => [ids(collapseRedundant([a, b])), ids(collapseRedundant([b, a]))];
  const kept = (a: Hit, b: Hit) => ids(collapseRedundant([a, b]));
  const said = 'I always deploy on Fridays after the review';

  it('reads a fact of a generated key as its value: an auto-save episode and its auto: fact are one memory, whichever ranks higher', () => {
    const ep = hit('ep_1', said);
    const fact = hit('fact_1', `auto:i-always-deploy-on-fridays-after: ${said}`, 'l4');
    expect(both(ep, fact)).toEqual([['ep_1'], ['fact_1']]);
  });

  it("does so for every generated key prefix, a family number and the value's case and spacing, and for no other key or text", () => {
    for (const key of ['note:code-is-45', 'thought:code-is-45', 'personality:code-is-45', 'episode:code-is-45', 'auto:code-is-45-2']) {
      expect(both(hit('ep_1', 'The code is  45'), hit('fact_1', `${key}: the code is 45`, 'l4')), key).toEqual([['ep_1'], ['fact_1']]);
    }
    // The graph node memory_hook made of the same text as its auto: fact.
    expect(both(hit('node_1', said, 'graph'), hit('fact_1', `auto:i-always-deploy: ${said}`, 'l4'))).toEqual([['node_1'], ['fact_1']]);
    // Only the service's wrappers: two memories of which the worse-ranked holds the other plus more stay two.
    expect(kept(hit('ep_1', 'code is 45'), hit('ep_2', 'my code is 45 now'))).toEqual(['ep_1', 'ep_2']);
    expect(kept(hit('fact_1', 'note:code-is-45: code is 45', 'l4'), hit('ep_2', 'my code is 45 now'))).toEqual(['fact_1', 'ep_2']);
    // A key the user chose is part of the memory: "code: 45" is not the episode "45" again.
    expect(kept(hit('ep_1', '45'), hit('fact_1', 'code: 45', 'l4'))).toEqual(['ep_1', 'fact_1']);
    // Nor is a key that starts like a generated one but is not one (no prefix and colon, or white space in it).
    expect(kept(hit('ep_1', 'buy milk'), hit('fact_1', 'note: buy milk', 'l4'))).toEqual(['ep_1', 'fact_1']);
    expect(kept(hit('ep_1', 'buy milk'), hit('fact_1', 'note:my list: buy milk', 'l4'))).toEqual(['ep_1', 'fact_1']);
    // A user's episode or node that begins like a generated key is read as it is.
    expect(kept(hit('ep_1', 'buy milk'), hit('ep_2', 'note:shopping: buy milk'))).toEqual(['ep_1', 'ep_2']);
    expect(kept(hit('ep_1', 'buy milk'), hit('node_1', 'auto:x: buy milk', 'graph'))).toEqual(['ep_1', 'node_1']);
  });

  const long = `Plan: ${Array.from({ length: 40 }, (_, i) => `step ${i} of the migration runbook`).join(', ')}`;
  it("reads a node cut with the excerpt mark as a cut copy of its text (memory_hook's node of a long auto-save), either order, and no text of the user", () => {
    // excerpt(text, 500): the first 499 characters, cut inside a word here, then the mark.
    const node = hit('node_1', `${long.slice(0, 499)}\u2026`, 'graph');
    expect(/\w$/.test(long.slice(0, 499)) && /^\w/.test(long.slice(499))).toBe(true);
    expect(both(hit('ep_1', long), node)).toEqual([['ep_1'], ['node_1']]);
    expect(both(hit('fact_1', `auto:plan-step-0-of-the: ${long}`, 'l4'), node)).toEqual([['fact_1'], ['node_1']]);
    // What stands in its start as whole words is dropped after it, as after any hit.
    expect(kept(node, hit('node_2', 'step 3 of the migration runbook', 'graph'))).toEqual(['node_1']);
    // Only its start: another text with a different start is another memory.
    expect(kept(node, hit('ep_1', `Before the migration. ${long}`))).toEqual(['node_1', 'ep_1']);
    // No text of the user is a cut: an ellipsis of their own, or a cut of under CUT_HEAD_MIN characters.
    expect(kept(hit('ep_1', 'I was thinking about the ferry\u2026'), hit('ep_2', 'I was thinking about the ferry schedule'))).toEqual(['ep_1', 'ep_2']);
    expect(kept(hit('node_1', 'the ferry\u2026', 'graph'), hit('ep_2', 'the ferry schedule'))).toEqual(['node_1', 'ep_2']);
    expect(kept(hit('ep_2', 'the ferry schedule'), hit('node_1', 'the ferry\u2026', 'graph'))).toEqual(['ep_2', 'node_1']);
  });

  it("reads a long thought's link as a cut copy of its page's text, with or without its generated key", () => {
    const link = thoughtLinkText(`${long.slice(0, 279)}\u2026`, { title: 'Thought_20260101T000000Z', path: 'wiki/user/diary/thought-20260101t000000z.md' });
    const wiki = hit('wiki_1', long, 'wiki');
    expect(both(wiki, hit('ep_1', link))).toEqual([['wiki_1'], ['ep_1']]);
    expect(both(wiki, hit('fact_1', `thought:plan-step-0-of-the: ${link}`, 'l4'))).toEqual([['wiki_1'], ['fact_1']]);
  });
});

/**
 * A retrieval that answers the first `limit` of a fixed ranking (or of `deeper` when asked for
 * more than `at`), recording what each call asked for.
 */
function fakeRetrieval(ranking: Hit[], deeper?: { at: number; ranking: Hit[] }): DistinctSearch & { asked: SearchOptions[] } {
  const asked: SearchOptions[] = [];
  return {
    asked,
    search: (_scope, _query, opts) => {
      asked.push(opts);
      const from = deeper && (opts.limit ?? 10) > deeper.at ? deeper.ranking : ranking;
      return from.slice(0, opts.limit);
    },
  };
}

const scope = { layer: 'user' as const, user_id: 'default' };
/** memory_remember's pair: the fact and the graph node of the same text, next to each other in the ranking. */
const remembered = (n: number): Hit[] =>
  Array.from({ length: n }, (_, i) => [hit(`fact_${i + 1}`, `db.note${i + 1}: database setting ${i + 1}`, 'l4'), hit(`node_${i + 1}`, `db.note${i + 1}: database setting ${i + 1}`, 'graph')]).flat();
const limits = (r: { asked: SearchOptions[] }) => r.asked.map((o) => o.limit);

describe('searchDistinct', () => {
  it('asks once, for a fifth more than the limit, when few hits collapse', () => {
    const r = fakeRetrieval([hit('a', 'alpha'), hit('b', 'beta'), hit('b2', 'beta'), ...Array.from({ length: 20 }, (_, i) => hit(`x${i}`, `other ${i}`))]);
    const out = searchDistinct(r, scope, 'q', 10);
    expect(out).toHaveLength(10);
    expect(ids(out).slice(0, 3)).toEqual(['a', 'b', 'x0']);
    expect(limits(r)).toEqual([12]);
  });

  it('asks again for twice as many while collapsing leaves fewer than the limit and retrieval gave all it was asked for', () => {
    const r = fakeRetrieval(remembered(12));
    const out = searchDistinct(r, scope, 'database', 10);
    expect(ids(out)).toEqual(Array.from({ length: 10 }, (_, i) => `fact_${i + 1}`));
    expect(limits(r)).toEqual([12, 24]);
  });

  it('stops when retrieval runs out (answered fewer than asked), short of the limit', () => {
    const r = fakeRetrieval(remembered(4));
    expect(ids(searchDistinct(r, scope, 'database', 10))).toEqual(['fact_1', 'fact_2', 'fact_3', 'fact_4']);
    expect(limits(r)).toEqual([12]);
    // The same when a refill finds retrieval short: 7 memories, 14 hits, 12 then 24 asked.
    const seven = fakeRetrieval(remembered(7));
    expect(searchDistinct(seven, scope, 'database', 10)).toHaveLength(7);
    expect(limits(seven)).toEqual([12, 24]);
  });

  it('never asks for more than DISTINCT_ASK_MAX (retrieval\'s cap), and answers short past it', () => {
    // One memory copied 500 times: every refill collapses to one hit.
    const copies = fakeRetrieval(Array.from({ length: 500 }, (_, i) => hit(`c${i}`, 'the same memory')));
    expect(ids(searchDistinct(copies, scope, 'same', 10))).toEqual(['c0']);
    expect(limits(copies)).toEqual([12, 24, 48, 96, 192, DISTINCT_ASK_MAX]);
    // A limit at the cap asks once, at the cap.
    const big = fakeRetrieval(Array.from({ length: 500 }, (_, i) => hit(`c${i}`, i % 2 ? `memory ${i}` : 'the same memory')));
    expect(searchDistinct(big, scope, 'memory', 500)).toHaveLength(DISTINCT_ASK_MAX / 2 + 1);
    expect(limits(big)).toEqual([DISTINCT_ASK_MAX]);
  });

  it('reads the limit as retrieval does: a whole number from 1 to the cap, NaN as the default 10', () => {
    const r = fakeRetrieval(Array.from({ length: 300 }, (_, i) => hit(`h${i}`, `memory ${i}`)));
    expect(searchDistinct(r, scope, 'q', 0)).toHaveLength(1);
    expect(searchDistinct(r, scope, 'q', 2.7)).toHaveLength(2);
    expect(searchDistinct(r, scope, 'q', Number.NaN)).toHaveLength(10);
    expect(searchDistinct(r, scope, 'q', Infinity)).toHaveLength(DISTINCT_ASK_MAX);
    expect(limits(r)).toEqual([2, 3, 12, DISTINCT_ASK_MAX]);
  });

  it('passes the options on to every search, and answers the last search\'s ranking', () => {
    const first = remembered(12);
    // Asked for more, retrieval ranks from a deeper pool: fact_12 comes first.
    const r = fakeRetrieval(first, { at: 12, ranking: [first[22], first[23], ...first.slice(0, 22)] });
    const weights = { bm25: 1, importance: 0, recency: 0, access: 0 };
    const out = searchDistinct(r, scope, 'database', 10, { intent: 'core', sources: ['l4', 'graph'], wiki_type: 'work_notes', weights });
    expect(ids(out)).toEqual(['fact_12', ...Array.from({ length: 9 }, (_, i) => `fact_${i + 1}`)]);
    for (const o of r.asked) expect(o).toMatchObject({ intent: 'core', sources: ['l4', 'graph'], wiki_type: 'work_notes', weights });
    expect(limits(r)).toEqual([12, 24]);
  });
});

describe('standsInAny', () => {
  const shown = ['Postgres is related to the event store, we said', 'db.note1: Database setting 1'].map((t) => comparableText(t));
  it("is collapseRedundant's test against texts shown before: whole words, case, space and NFC aside", () => {
    expect(standsInAny(shown, comparableText('postgres is related to the  EVENT store'))).toBe(true);
    expect(standsInAny(shown, comparableText('DB.note1:\tdatabase setting 1'))).toBe(true);
    expect(standsInAny(shown, comparableText('db.note1: Database setting 10'))).toBe(false);
    expect(standsInAny(shown, comparableText('gres is related'))).toBe(false);
    expect(standsInAny(shown, comparableText('caf\u00e9'))).toBe(false);
    expect(standsInAny([comparableText('Meet at the Caf\u00e9')], comparableText('cafe\u0301'))).toBe(true);
  });
  it('finds nothing in an empty list, and an empty text stands in nothing', () => {
    expect(standsInAny([], comparableText('anything'))).toBe(false);
    expect(standsInAny(shown, comparableText('  '))).toBe(false);
  });
  it("reads each text without its store's wrappers, as collapseRedundant does", () => {
    expect(standsInAny([comparableText('The code is 45', 'l3')], comparableText('note:code-is-45: the code is 45', 'l4'))).toBe(true);
    expect(standsInAny([comparableText('note:code-is-45: the code is 45', 'l4')], comparableText('The code is 45', 'l3'))).toBe(true);
    // Without its store, a text is compared as it is.
    expect(standsInAny([comparableText('The code is 45')], comparableText('note:code-is-45: the code is 45'))).toBe(false);
    expect(standsInAny([comparableText('code is 45', 'l4')], comparableText('my code is 45 now', 'l3'))).toBe(false);
  });
  it('agrees with collapseRedundant on the same texts', () => {
    const texts = ['the ferry to the island', 'ferry to the island', 'weather report', 'the cat', 'the caterpillar', 'report'];
    const kept: string[] = [];
    for (const t of texts) if (!standsInAny(kept, comparableText(t))) kept.push(comparableText(t));
    expect(kept).toEqual(collapseRedundant(texts.map((t, i) => hit(`h${i}`, t))).map((h) => comparableText(h.text)));
  });
});
