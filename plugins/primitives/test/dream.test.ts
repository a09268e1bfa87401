import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer } from '@memory-service/testing';
import { actionsIn, count, dreamIds, flushStores, ManualClock, primitives, start, toolError, type TestServer } from './helpers.js';

/** dream: scope isolation, limits, intent recent, telemetry, token budget, hostile queries. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const harbour = (i: number) => `Harbour note ${i}: the ferry to the island leaves from pier ${i} in the morning.`;

describe('scope', () => {
  it('finds what think stored only on the same layer and user_id', async () => {
    s = await start();
    const r = await s.call('think', { text: harbour(1), layer: 'user', user_id: 'u1' });
    const id = actionsIn(r, 'l3')[0]!.id;
    expect(await dreamIds(s, { query: 'ferry island', layer: 'user', user_id: 'u1' })).toContain(id);
    expect(await dreamIds(s, { query: 'ferry island', layer: 'agent', user_id: 'u1' })).toEqual([]);
    expect(await dreamIds(s, { query: 'ferry island', layer: 'user', user_id: 'u2' })).toEqual([]);
    expect(await dreamIds(s, { query: 'ferry island' })).toEqual([]);
  });

  it('keeps a memory whose text stands inside another only within a word ("the cat" in "the caterpillar")', async () => {
    s = await start();
    const cat = actionsIn(await s.call('think', { text: 'My daughter likes the cat', layer: 'user' }), 'l3')[0]!.id;
    const caterpillar = actionsIn(await s.call('think', { text: 'My daughter likes the caterpillar', layer: 'user' }), 'l3')[0]!.id;
    expect((await dreamIds(s, { query: 'daughter likes' })).sort()).toEqual([cat, caterpillar].sort());
  });

  it('answers one copy of a memory stored once precomposed and once decomposed (NFC and NFD)', async () => {
    s = await start();
    const nfc = actionsIn(await s.call('think', { text: 'Meet Zo\u00eb at the caf\u00e9 by the harbour', layer: 'user' }), 'l3')[0]!.id;
    const nfd = actionsIn(await s.call('think', { text: 'Meet Zoe\u0308 at the cafe\u0301 by the harbour', layer: 'user' }), 'l3')[0]!.id;
    expect(nfd).not.toBe(nfc);
    const ids = await dreamIds(s, { query: 'caf\u00e9 harbour' });
    expect(ids).toHaveLength(1);
    expect([nfc, nfd]).toContain(ids[0]);
  });

  it('says so when nothing matches', async () => {
    s = await start();
    const r = await s.call('dream', { query: 'zeppelin', hits: true });
    expect(r).toMatchObject({ result_count: 0, truncated: false, hits: [] });
    expect(r.summary).toMatch(/No memories match/);
  });
});

describe('limit', () => {
  it('an explicit limit caps the hits', async () => {
    s = await start();
    for (let i = 1; i <= 5; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    const all = await s.call('dream', { query: 'ferry island pier' });
    expect(all.result_count).toBe(5);
    const two = await s.call('dream', { query: 'ferry island pier', limit: 2, hits: true });
    expect(two.result_count).toBe(2);
    expect(two.hits).toHaveLength(2);
  });

  it('carries each hit text once: in the summary, under a heading naming the hit', async () => {
    s = await start();
    for (let i = 1; i <= 3; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    const r = await s.call('dream', { query: 'ferry island pier', hits: true });
    expect(r.truncated).toBe(false);
    expect(r.hits).toHaveLength(3);
    for (const h of r.hits as { source: string; id: string; title?: string; excerpt?: string }[]) {
      expect(h.excerpt).toBeUndefined();
      expect(r.summary).toContain(`## [${h.source}] ${h.title ? `${h.title} (${h.id})` : h.id} | `);
    }
    for (let i = 1; i <= 3; i++) expect(r.summary.split(harbour(i)).length - 1).toBe(1);
  });

  it('explains the score of each hit only when asked: the four weighted parts add up to it', async () => {
    s = await start();
    for (let i = 1; i <= 3; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    const plain = await s.call('dream', { query: 'ferry island pier', hits: true });
    expect(plain.hits).toHaveLength(3);
    for (const h of plain.hits as Record<string, unknown>[]) expect(h).not.toHaveProperty('explain');
    const explained = await s.call('dream', { query: 'ferry island pier', explain: true });
    expect((explained.hits as { id: string }[]).map((h) => h.id)).toEqual((plain.hits as { id: string }[]).map((h) => h.id));
    for (const h of explained.hits as { score: number; explain: { bm25: number; importance: number; recency: number; access: number } }[]) {
      const { bm25, importance, recency, access } = h.explain;
      expect(bm25).toBeGreaterThan(0);
      expect(bm25 + importance + recency + access).toBeCloseTo(h.score, 5);
    }
    await expect(s.call('dream', { query: 'ferry', explain: 'yes' })).rejects.toThrow(/explain/);
  });

  it('gives a thought dated years ahead (the clock stepped back) the recency of its distance from now, not full recency', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const now = clock.now();
    clock.set(Date.UTC(2099, 0, 1));
    await s.call('think', { text: harbour(1), layer: 'user' });
    clock.set(now);
    await s.call('think', { text: harbour(2), layer: 'user' });
    const r = await s.call('dream', { query: 'ferry island pier', intent: 'recent', explain: true });
    const hits = r.hits as { created: string; explain: { recency: number } }[];
    expect(hits.map((h) => h.created.slice(0, 4))).toEqual(['2026', '2099']);
    expect(hits[1].explain.recency).toBeLessThan(1e-6);
    expect(hits[0].explain.recency).toBeGreaterThan(0.3);
  });

  it('lists the hits only when asked: the default answer is the summary, whose headings name every hit', async () => {
    s = await start();
    for (let i = 1; i <= 3; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    await s.call('think', { text: 'The ferry pier is by the island café', layer: 'user', wiki_title: 'Ferry pier' });
    const plain = await s.call('dream', { query: 'ferry island pier' });
    expect(plain).not.toHaveProperty('hits');
    const listed = await s.call('dream', { query: 'ferry island pier', hits: true });
    // (Scores move between the two calls: the first one's hits were accessed once more.)
    expect(listed.result_count).toBe(plain.result_count);
    const titled = (listed.hits as { source: string; id: string; title?: string }[]).filter((h) => h.title);
    expect(titled.length).toBeGreaterThan(0);
    // A titled hit's heading gives its id as well, so an id the list would have given is in the summary.
    for (const h of listed.hits as { source: string; id: string; title?: string }[]) expect(plain.summary).toContain(h.id);
    for (const h of titled) expect(plain.summary).toContain(`## [${h.source}] ${h.title} (${h.id}) | `);
    await expect(s.call('dream', { query: 'ferry', hits: 'yes' })).rejects.toThrow(/hits/);
  });

  it('keeps the summary of ASCII memories ASCII (its headings included)', async () => {
    s = await start();
    for (let i = 1; i <= 3; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    const r = await s.call('dream', { query: 'ferry island pier' });
    expect(r.summary).toMatch(/^## \[l3\] ep_\d+ \| \d{4}-\d{2}-\d{2} \| score \d\.\d{3}$/m);
    // eslint-disable-next-line no-control-regex
    expect(r.summary).toMatch(/^[\x00-\x7f]*$/);
  });

  it('an omitted limit comes from retrieval.default_limit', async () => {
    s = await start({ config: { retrieval: { default_limit: 2 } } });
    for (let i = 1; i <= 5; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    expect((await s.call('dream', { query: 'ferry island pier' })).result_count).toBe(2);
    expect((await s.call('dream', { query: 'ferry island pier', limit: null, hits: true })).hits).toHaveLength(2);
    expect((await s.call('dream', { query: 'ferry island pier', limit: 4, hits: true })).hits).toHaveLength(4);
  });

  // Regression guard, fixed: a fractional retrieval.default_limit (2.5) was taken, and dream answered 3 hits.
  it('a retrieval.default_limit that is no whole number stops the start with a config error naming it', async () => {
    const err = await start({ config: { retrieval: { default_limit: 2.5 } } }).then(
      async (server) => (await server.close(), null),
      (e: Error) => e,
    );
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'retrieval.default_limit' });
    expect(err!.message).toMatch(/integer/);
  });
});

describe('intent recent', () => {
  it('puts the latest 5 timeline events, newest first, before the hits', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const texts: string[] = [];
    for (let i = 1; i <= 7; i++) {
      const text = `Remember: pier ${i} is important for the ferry`;
      texts.push(text);
      await s.call('think', { text, layer: 'user' });
      clock.advance(60_000);
    }
    expect(count(s, 'timeline_events')).toBe(7);
    const r = await s.call('dream', { query: 'ferry', intent: 'recent' });
    expect(r.recent_events.map((e: { summary: string }) => e.summary)).toEqual(texts.slice(2).reverse());
    expect(r.summary.startsWith('## Recent events')).toBe(true);
    const eventsPart = r.summary.indexOf(texts[6]!);
    const firstHit = r.summary.indexOf('## [');
    expect(eventsPart).toBeGreaterThan(-1);
    expect(firstHit).toBeGreaterThan(eventsPart);
  });

  it('other intents carry no recent events', async () => {
    s = await start();
    await s.call('think', { text: 'Remember: my name is Alice', layer: 'user' });
    const r = await s.call('dream', { query: 'Alice', intent: 'core' });
    expect(r.recent_events).toBeUndefined();
    expect(r.summary).not.toMatch(/Recent events/);
  });
});

describe('telemetry', () => {
  it('records one recall_events row per call and no timeline event', async () => {
    s = await start();
    await s.call('think', { text: 'Remember: my name is Alice', layer: 'user' });
    const events = count(s, 'timeline_events');
    await s.call('dream', { query: 'Alice' });
    await s.call('dream', { query: 'nothing here at all', intent: 'recent' });
    await s.call('dream', { query: 'Alice', layer: 'agent' });
    expect(count(s, 'recall_events', { layer: 'user' })).toBe(2);
    expect(count(s, 'recall_events', { layer: 'agent' })).toBe(1);
    expect(count(s, 'timeline_events')).toBe(events);
    const row = s.kernel.storage.db.prepare('SELECT query, intent, result_count FROM recall_events ORDER BY id LIMIT 1').get();
    expect(row).toEqual({ query: 'Alice', intent: 'balanced', result_count: 1 });
  });
});

describe('telemetry is bounded', () => {
  it('retrieval.recall_events_keep: each layer and user_id keeps its newest rows', async () => {
    s = await start({ config: { retrieval: { recall_events_keep: 3 } } });
    for (let i = 1; i <= 7; i++) await s.call('dream', { query: `ferry ${i}` });
    for (let i = 1; i <= 2; i++) await s.call('dream', { query: `agent ferry ${i}`, layer: 'agent' });
    // count() writes the deferred batch first, as the timer would a second later.
    expect(count(s, 'recall_events', { layer: 'user' })).toBe(3);
    expect(count(s, 'recall_events', { layer: 'agent' })).toBe(2);
    const kept = s.kernel.storage.db.prepare("SELECT query FROM recall_events WHERE layer = 'user' ORDER BY id").pluck().all();
    expect(kept).toEqual(['ferry 5', 'ferry 6', 'ferry 7']);
    for (let i = 8; i <= 12; i++) await s.call('dream', { query: `ferry ${i}`, user_id: 'u2' });
    expect(count(s, 'recall_events', { layer: 'user', user_id: 'u2' })).toBe(3);
    expect(count(s, 'recall_events', { layer: 'user' })).toBe(3);
  });
});

describe('neighbouring context', () => {
  it('ranks a thought that only followed a match below every thought that holds a query word itself', async () => {
    s = await start();
    // Five notes in a row: each episode indexes the two before it as its neighbouring context.
    const notes = [
      'Kafka consumer lag alerts go to the data on-call channel.',
      'Jonas manages the Kafka cluster in Frankfurt.',
      'Bought oat milk and bread.',
      'Need to call the plumber about the sink.',
      'The dentist moved my appointment to Tuesday.',
    ];
    const ids: string[] = [];
    for (const text of notes) ids.push(actionsIn(await s.call('think', { text, layer: 'user' }), 'l3')[0]!.id);
    const [alerts, cluster, milk, plumber] = ids;
    for (const query of ['Kafka cluster Frankfurt', 'who manages Kafka']) {
      const episodes = (await dreamIds(s, { query })).filter((id) => id.startsWith('ep_'));
      // The shopping and plumber notes share no word with the query: still found through their
      // context, but after the other Kafka note.
      expect(episodes).toEqual([cluster, alerts, milk, plumber]);
    }
  });

  it('scores an answer found through the question before it in full, and a thought that followed a statement at a tenth', async () => {
    s = await start();
    // The same words in two scopes, asked in one and stated in the other: the same BM25 but for the
    // rule, and the same best hit (the first thought, which says "last weekend") to normalise it by.
    const answers: string[] = [];
    for (const [user_id, first] of [['asked', 'Caroline: What did you do last weekend?'], ['stated', 'Caroline: What did you do last weekend.']]) {
      await s.call('think', { text: first, layer: 'user', user_id });
      answers.push(actionsIn(await s.call('think', { text: 'Melanie: We pitched the tent by the river.', layer: 'user', user_id }), 'l3')[0]!.id);
    }
    const raw = async (user_id: string, id: string) => {
      const r = await s.call('dream', { query: 'last weekend', layer: 'user', user_id, hits: true, explain: true });
      return (r.hits as { id: string; explain: { bm25: number } }[]).find((h) => h.id === id)!.explain.bm25;
    };
    const asked = await raw('asked', answers[0]!);
    expect(asked).toBeGreaterThan(0);
    expect(await raw('stated', answers[1]!)).toBeCloseTo(asked * 0.1, 5);
  });
});

describe('access counts', () => {
  it("count each hit once per call, coalesced into the deferred batch, and only the hits' rows", async () => {
    s = await start();
    // Stored first: an episode's neighbouring context is what came before it.
    const other = actionsIn(await s.call('think', { text: 'Notes on the quarterly budget review with the finance team today.' }), 'l3')[0]!.id;
    const hit = actionsIn(await s.call('think', { text: harbour(1) }), 'l3')[0]!.id;
    for (let i = 0; i < 3; i++) expect(await dreamIds(s, { query: 'ferry island' })).toContain(hit);
    const access = (id: string) =>
      (s.kernel.storage.db.prepare('SELECT access_count FROM episodes WHERE id = ?').get(Number(id.slice(3))) as { access_count: number }).access_count;
    expect(access(hit)).toBe(0);
    flushStores(s);
    expect([access(hit), access(other)]).toEqual([3, 0]);
  });
});

describe('token budget', () => {
  it('cuts the summary to retrieval.token_budget and sets truncated', async () => {
    s = await start({ config: { retrieval: { token_budget: 60 } } });
    for (let i = 1; i <= 4; i++) await s.call('think', { text: `${harbour(i)} ${'The crossing takes an hour. '.repeat(4)}`, layer: 'user' });
    const r = await s.call('dream', { query: 'ferry island pier' });
    expect(r.truncated).toBe(true);
    expect(r.estimated_tokens).toBeLessThanOrEqual(60);
    expect(Math.ceil(r.summary.length / 4)).toBeLessThanOrEqual(60);
    expect(r.result_count).toBe(4);
  });

  it('hits whose first heading alone is over the budget are named, not answered as no match', async () => {
    s = await start({ config: { retrieval: { token_budget: 50 } } });
    await s.call('think', { text: 'Zebra stripes at the ferry pier', wiki_title: `Zebra ${'w'.repeat(290)}`, layer: 'user' });
    const r = await s.call('dream', { query: 'zebra' });
    expect(r).toMatchObject({ truncated: true, result_count: 1 });
    // The summary names no hit, so the list comes unasked.
    expect(r.hits).toHaveLength(1);
    expect(r.summary).not.toContain('No memories match');
    expect(r.summary).toContain('1 memory matches');
    expect(r.summary).toContain('retrieval.token_budget');
    expect(Math.ceil(r.summary.length / 4)).toBeLessThanOrEqual(50);
    expect((await s.call('dream', { query: 'giraffe' })).summary).toBe('No memories match "giraffe".');
  });

  it('is not truncated when everything fits', async () => {
    s = await start();
    await s.call('think', { text: harbour(1), layer: 'user' });
    const r = await s.call('dream', { query: 'ferry' });
    expect(r.truncated).toBe(false);
    expect(r.summary).toContain(harbour(1));
  });
});

describe('hostile queries', () => {
  const queries = ['"', '""', '*', 'AND (', 'NEAR', 'NEAR(a b)', 'a OR', '-', 'col:val', '^start', '(((', "'; DROP TABLE facts; --", '日本語のメモ', '🚢⚓', 'ferry"*'];
  it('never error', async () => {
    s = await start();
    await s.call('think', { text: harbour(1), layer: 'user' });
    for (const query of queries) {
      const r = await s.callRaw('dream', { query });
      expect(r.isError, `${query}: ${r.text}`).toBe(false);
      expect(typeof r.structured.summary).toBe('string');
    }
    expect(count(s, 'facts') + count(s, 'episodes')).toBe(1);
  });
});

describe('scripts written without spaces', () => {
  it('finds a Chinese, Japanese or Thai thought by a word of two or more characters from inside it', async () => {
    s = await start();
    for (let i = 1; i <= 3; i++) await s.call('think', { text: harbour(i), layer: 'user' });
    await s.call('think', { text: 'The island bakery sells ferry tickets too.', layer: 'user' });
    const stored = async (text: string) => actionsIn(await s.call('think', { text, layer: 'user' }), 'l3')[0]!.id;
    const fruit = await stored('我喜欢吃苹果和香蕉');
    const tokyo = await stored('東京は日本の首都です');
    const name = await stored('我的名字是王小明。我住在北京。');
    const thai = await stored('ฉันชอบเรียนภาษาไทยทุกวัน');
    // An episode's neighbours match through its context, below it: the thought itself comes first.
    const first = async (query: string) => (await dreamIds(s, { query }))[0];
    expect(await first('苹果')).toBe(fruit);
    expect(await first('香蕉')).toBe(fruit);
    expect(await first('東京')).toBe(tokyo);
    expect(await first('首都')).toBe(tokyo);
    expect(await first('北京')).toBe(name);
    expect(await first('王小明')).toBe(name);
    expect(await first('ภาษาไทย')).toBe(thai);
  });

  it('ranks text of spaced scripts exactly as before: hits and scores', async () => {
    s = await start();
    const texts = [
      harbour(1),
      harbour(2),
      'The island bakery sells ferry tickets too; its café-crème is famous.',
      'Caroline went to the LGBTQ support group; she de-stressed by painting afterwards.',
      'Ünïcode notes: naïve Crème brûlée at the Café by the pier.',
      'Привет из Москвы: паром уходит утром.',
      '서울에서 부산까지 기차를 탔다.',
    ];
    for (const text of texts) await s.call('think', { text, layer: 'user' });
    const ranked = async (query: string) => {
      const r = await s.call('dream', { query, explain: true });
      return (r.hits as { id: string; score: number }[]).map((h) => `${h.id} ${h.score.toFixed(6)}`);
    };
    // Pinned hits and scores of these searches; the tokeniser gave the same with and without the
    // cutting of scripts without spaces into bigrams (checked against a build of query.ts before it).
    // Pinned again when the proximity bonus stopped reading an episode's neighbouring context: the
    // harbour thought that says "ferry ... island" itself (ep_2) now leads the bakery (ep_3), which
    // had the bonus for the harbour thoughts in its context.
    // Pinned again when an episode matching through a context that asks nothing, alone, kept a
    // tenth of its BM25 (CONTEXT_ONLY_SHARE): ep_4, ep_6 and ep_7 say none of the query's words
    // themselves, and ep_4 (which followed the harbour notes) now ranks below ep_5, which says "pier".
    expect(await ranked('ferry island pier')).toEqual(['ep_2 0.947500', 'ep_3 0.925287', 'ep_1 0.905611', 'ep_5 0.482535', 'ep_4 0.100943', 'ep_6 0.049669', 'ep_7 0.048421']);
    expect(await ranked('cafe creme brulee')).toEqual(['ep_5 0.952053', 'node_1 0.408542', 'ep_3 0.376130', 'ep_7 0.107774', 'ep_6 0.100871', 'ep_4 0.067406']);
    expect(await ranked('how does Caroline destress?')).toEqual(['ep_4 0.952217', 'ep_6 0.119267', 'ep_5 0.115262']);
    expect(await ranked('паром')).toEqual(['ep_6 0.951607', 'ep_7 0.116768']);
    expect(await ranked('서울에서')).toEqual(['ep_7 0.949107']);
  });
});

describe('words with marks inside them, optional marks and letters written plain', () => {
  it('finds Hindi, Bengali and Tamil words, pointed and unpointed Hebrew alike, ß as ss, and a word of 80 letters', async () => {
    s = await start();
    const stored = async (text: string) => actionsIn(await s.call('think', { text, layer: 'user' }), 'l3')[0]!.id;
    const delhi = await stored('कल हम दिल्ली में हिंदी फ़िल्म देखने गए।');
    const bengali = await stored('আমি বাংলা ভাষায় কবিতা লিখি।');
    const chennai = await stored('நாங்கள் சென்னை நகரம் சென்றோம்.');
    const shalom = await stored('הוא אמר שָׁלוֹם לכל החברים בכיתה.');
    const other = await stored('אמרתי לו שאני בא מחר בבוקר.');
    const street = await stored('Unser Büro ist in der Goethestraße in Łódź.');
    const compound = await stored('Die Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft tagt heute.');
    const first = async (query: string) => (await dreamIds(s, { query }))[0];
    expect(await first('दिल्ली')).toBe(delhi);
    expect(await first('हिंदी')).toBe(delhi);
    expect(await first('বাংলা')).toBe(bengali);
    expect(await first('சென்னை')).toBe(chennai);
    // Pointed or not, the query finds the word's memory first, not another through a piece of it
    // (the pointed word was cut at its points into "לו", which the other memory holds).
    expect(await first('שלום')).toBe(shalom);
    expect(await first('שָׁלוֹם')).toBe(shalom);
    expect(await first('לו')).toBe(other);
    expect(await first('goethestrasse lodz')).toBe(street);
    expect(await first('Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft')).toBe(compound);
    // What dream finds for a word, fuzzy forget with that word deletes.
    const forgot = await s.call('forget', { scope: 'fuzzy', key: 'goethestrasse', shadow_bin: false });
    expect(forgot.deleted_l3).toBe(1);
    expect(await dreamIds(s, { query: 'goethestrasse' })).toEqual([]);
  });
});

describe('malformed input', () => {
  it('a blank query is a tool error naming query, and records no recall', async () => {
    s = await start();
    await s.call('think', { text: harbour(1), layer: 'user' });
    for (const query of [' ', '   ', '\t\n ', '\u200b', ' \u2060\ufe0f']) {
      const err = await toolError(s.call('dream', { query }));
      expect(err, JSON.stringify(query)).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'query' });
    }
    flushStores(s);
    expect(count(s, 'recall_events')).toBe(0);
  });

  it('text with an unpaired surrogate is refused naming the field, before anything is stored or searched', async () => {
    s = await start();
    const err = await toolError(s.call('think', { text: 'I adore kiwis and mangoes every summer holiday season', user_id: 'u\uD800x' }));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id' });
    expect(err.message).toMatch(/unpaired UTF-16 surrogate \(U\+D800\) at index 1/);
    expect((await toolError(s.call('think', { text: 'kiwis \uDC00 and mangoes' }))).field).toBe('text');
    expect((await toolError(s.call('dream', { query: 'kiwis\uD83D' }))).field).toBe('query');
    expect((await toolError(s.call('memory_hook', { event: 'new_message', payload: { text: 'ok', extra: ['\uDFFF'] } }))).field).toBe('payload.extra.0');
    expect(count(s, 'episodes') + count(s, 'l1_items')).toBe(0);
    // Surrogates in pairs are text like any other, and come back whole.
    const r = await s.call('think', { text: 'Kiwis and mangoes on the boat 🚢 every summer holiday season', user_id: 'u🚢x' });
    expect(await dreamIds(s, { query: 'kiwis 🚢', user_id: 'u🚢x' })).toContain(actionsIn(r, 'l3')[0]!.id);
  });

  it('a limit far out of range names the limit of the field, not the safe-integer range', async () => {
    s = await start();
    expect(await toolError(s.call('dream', { query: 'ferry', limit: 1e20 }))).toMatchObject({ field: 'limit', accepted: { max: 200 } });
    expect(await toolError(s.call('dream', { query: 'ferry', limit: -1e20 }))).toMatchObject({ field: 'limit', accepted: { min: 1 } });
  });

  it('a blank user_id is a tool error naming user_id in every tool', async () => {
    s = await start();
    for (const [tool, args] of [
      ['think', { text: 'hello there, a note' }],
      ['dream', { query: 'note' }],
      ['wake_up', {}],
      ['memory_hook', { event: 'memory_pressure', payload: {} }],
    ] as const) {
      for (const user_id of ['   ', '\t', '\u200b', ' \u200d\u00ad']) {
        const err = await toolError(s.call(tool, { ...args, user_id }));
        expect(err, `${tool} ${JSON.stringify(user_id)}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id' });
      }
    }
    await expect(s.kernel.dispatchEvent('memory_pressure', {}, 'user', '  ')).rejects.toMatchObject({ field: 'user_id' });
    expect(count(s, 'episodes') + count(s, 'l1_items')).toBe(0);
  });
});

describe('saved index across restarts', () => {
  it('recalls after restarts what was stored before and between them, and shrugs off a damaged index file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dream-restart-'));
    const open = () => createTestServer({ plugins: [primitives], expose: 'primitives', clock: new ManualClock(), dataDir: dir });
    try {
      s = await open();
      const first = actionsIn(await s.call('think', { text: harbour(1), layer: 'user' }), 'l3')[0]!.id;
      expect(await dreamIds(s, { query: 'ferry island' })).toEqual([first]);
      await s.close();
      const file = path.join(dir, 'retrieval', 'l3.idx');
      expect(fs.statSync(file).size).toBeGreaterThan(0);

      s = await open();
      expect(await dreamIds(s, { query: 'ferry island' })).toEqual([first]);
      const second = actionsIn(await s.call('think', { text: harbour(2), layer: 'user' }), 'l3')[0]!.id;
      await s.close();

      s = await open();
      expect((await dreamIds(s, { query: 'ferry island pier' })).sort()).toEqual([first, second].sort());
      await s.close();

      fs.writeFileSync(file, 'not an index');
      s = await open();
      expect((await dreamIds(s, { query: 'ferry island pier' })).sort()).toEqual([first, second].sort());
    } finally {
      await s?.close();
      s = undefined as unknown as TestServer;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
