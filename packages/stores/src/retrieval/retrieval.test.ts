import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from '../test-helpers.js';
import { buildMatch, queryTerms } from './query.js';
import { delimiterJoins } from './word-delimiter.js';
import { fitToBudget, estimateTokens } from './budget.js';
import { thoughtLinkText } from '../thought-link.js';
import { CONTEXT_ONLY_SHARE } from './retrieval.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

function seed(e: Env): void {
  const s = e.stores;
  s.episodes.add(U, { summary: 'Caroline: I went to the LGBTQ support group yesterday and it was powerful.', importance: 0.5 });
  s.episodes.add(U, { summary: 'Melanie: I painted a sunrise over the lake last week.', importance: 0.5 });
  s.episodes.add(U, { summary: 'Caroline: My kids love camping in the mountains.', importance: 0.5 });
  s.episodes.add(U, { summary: 'Melanie: The weather was nice for a run.', importance: 0.9 });
  s.facts.upsert(U, { key: 'favorite_color', value: 'teal', importance: 0.8 });
  s.wiki.save(U, { title: 'Painting notes', content: 'Oil paints dry slowly; acrylic paints dry fast.', wiki_type: 'work_notes' });
  s.graph.addNode(U, { content: 'Caroline', node_type: 'person' });
  s.episodes.add(A, { summary: 'Agent note about the support group protocol.' });
}

describe('Retrieval', () => {
  it("indexes a long thought's link by the user's words, not the page title and path think appended", () => {
    const link = thoughtLinkText('Notes on the garden tomatoes', { title: 'Thought_20260101', path: 'wiki/user/default/diary/thought-20260101.md' });
    const ep = env.stores.episodes.add(U, { summary: link });
    expect(env.stores.retrieval.search(U, 'diary')).toEqual([]);
    expect(env.stores.retrieval.search(U, 'garden tomatoes').map((h) => h.id)).toEqual([ep.id]);
  });

  it('ranks the obviously relevant record first across sources', () => {
    seed(env);
    const hits = env.stores.retrieval.search(U, 'When did Caroline go to the support group?');
    expect(hits[0].source).toBe('l3');
    expect(hits[0].text).toMatch(/LGBTQ support group/);
    expect(env.stores.retrieval.search(U, 'what is my favorite color')[0]).toMatchObject({ source: 'l4', title: 'favorite_color' });
    expect(env.stores.retrieval.search(U, 'painting with acrylic')[0]).toMatchObject({ source: 'wiki', title: 'Painting notes' });
    expect(env.stores.retrieval.search(U, 'paintings')[0].source).toBeDefined();
  });

  it('finds an episode through its neighbouring context, below one that says it itself', () => {
    const s = env.stores;
    const answer = s.episodes.add(U, {
      summary: 'Melanie: We pitched the tent by the river and the kids roasted marshmallows.',
      context: 'Caroline: What did you do last weekend?',
    });
    s.episodes.add(U, { summary: 'Caroline: The bakery on Main Street closes early on weekends.' });
    const direct = s.episodes.add(U, { summary: 'Melanie: Last weekend we stayed home.' });
    const ids = s.retrieval.search(U, 'what did Melanie do last weekend').map((h) => h.id);
    expect(ids).toContain(answer.id);
    expect(ids.indexOf(direct.id)).toBeLessThan(ids.indexOf(answer.id));
    expect(s.episodes.get(U, answer.id)!.context).toBe('Caroline: What did you do last weekend?');
    const noContext = s.retrieval.search(U, 'marshmallows');
    expect(noContext[0].id).toBe(answer.id);
    expect(noContext[0].text).not.toContain('Caroline');
  });

  it('ranks an episode matching only through its neighbouring context below one whose own text holds a query term', () => {
    const s = env.stores;
    // Five notes as think writes them: each with the two before it as its context, nearest first.
    const notes = [
      'Kafka consumer lag alerts go to the data on-call channel.',
      'Jonas manages the Kafka cluster in Frankfurt.',
      'Bought oat milk and bread.',
      'Need to call the plumber about the sink.',
      'The dentist moved my appointment to Tuesday.',
    ];
    const ids = notes.map((summary, i) => s.episodes.add(U, { summary, context: notes.slice(Math.max(0, i - 2), i).reverse().join('\n') }).id);
    const [alerts, cluster, milk, plumber] = ids;
    for (const query of ['Kafka cluster Frankfurt', 'who manages Kafka']) {
      const hits = s.retrieval.search(U, query);
      // Still found through their context, but after both notes that name Kafka themselves.
      expect(hits.map((h) => h.id)).toEqual([cluster, alerts, milk, plumber]);
    }
    // The note itself still leads its followers, which hold it in their context.
    expect(s.retrieval.search(U, 'oat milk')[0].id).toBe(milk);
  });

  it('scores an answer through the question in its neighbouring context in full, and one through a statement at CONTEXT_ONLY_SHARE', () => {
    const s = env.stores;
    const answer = s.episodes.add(U, { summary: 'Melanie: We pitched the tent by the river.', context: 'Caroline: What did you do last weekend?' });
    const follower = s.episodes.add(U, { summary: 'Melanie: We pitched the tent by the river.', context: 'Caroline: What did you do last weekend.' });
    s.episodes.add(U, { summary: 'Caroline: The bakery on Main Street closes early.' });
    const raw = new Map(s.retrieval.search(U, 'last weekend').map((h) => [h.id, h.explain.signals.bm25_raw]));
    expect(raw.get(answer.id)).toBeGreaterThan(0);
    expect(raw.get(follower.id)).toBeCloseTo(raw.get(answer.id)! * CONTEXT_ONLY_SHARE, 5);
  });

  it('gives the proximity bonus for a phrase an episode says itself, not for one in its neighbouring context', () => {
    const s = env.stores;
    // Each pair holds the same words in another order, so BM25 is the same: the phrase (two query
    // terms within NEAR_WINDOW tokens) is the difference. Elsewhere the two are further apart.
    const inContext = s.episodes.add(U, { summary: 'The kite went up over the hills and far away, all red.', context: 'Ann: a red kite above the town, said my mother to me again.' });
    const notInContext = s.episodes.add(U, { summary: 'The kite went up over the hills and far away, all red.', context: 'Ann: a kite above the town, said my mother to me again, red.' });
    const inText = s.episodes.add(U, { summary: 'The red kite went up over the hills and far away.' });
    const notInText = s.episodes.add(U, { summary: 'The kite went up over the hills and far away, red.' });
    for (let i = 0; i < 6; i++) s.episodes.add(U, { summary: `Filler number ${i} about the weather.` });
    const raw = new Map(s.retrieval.search(U, 'red kite', { limit: 10 }).map((h) => [h.id, h.explain.signals.bm25_raw]));
    expect(raw.size).toBe(4);
    expect(raw.get(inContext.id)).toBe(raw.get(notInContext.id));
    expect(raw.get(inText.id)!).toBeGreaterThan(raw.get(notInText.id)! + 0.1);
  });

  it('never returns another scope’s rows', () => {
    seed(env);
    const agentHits = env.stores.retrieval.search(A, 'support group');
    expect(agentHits.map((h) => h.text)).toEqual(['Agent note about the support group protocol.']);
    expect(env.stores.retrieval.search({ layer: 'user', user_id: 'nobody' }, 'support group')).toEqual([]);
  });

  it('finds the scope’s rows when other scopes crowd them out of the FTS top', () => {
    const crowd = { layer: 'user' as const, user_id: 'crowd' };
    const mine = ['I practised the violin in the garden for a long while today.', 'The garden violin recital went on until late evening.', 'My violin stayed in the garden shed overnight again.'];
    for (const summary of mine) env.stores.episodes.add(U, { summary });
    // Common term (newest path) and rare term (bm25 path): the crowd's short rows rank and sort first.
    for (let i = 0; i < 400; i++) env.stores.episodes.add(crowd, { summary: i < 60 ? `violin garden ${i}` : `garden ${i}` });
    for (const q of ['garden', 'violin', 'violin garden']) {
      const hits = env.stores.retrieval.search(U, q, { limit: 10 });
      expect(hits.map((h) => h.text).sort()).toEqual([...mine].sort());
    }
    expect(env.stores.retrieval.search(crowd, 'violin', { limit: 5 })).toHaveLength(5);
  });

  it('reads candidate rows by primary key, never by walking the scope', () => {
    env.stores.retrieval.search(U, 'warm up');
    seed(env);
    const ctx = env.stores.ctx;
    const stmt = ctx.stmt.bind(ctx);
    const rowReads = new Set<string>();
    ctx.stmt = (sql: string) => {
      if (sql.includes('CROSS JOIN')) rowReads.add(sql);
      return stmt(sql);
    };
    env.stores.retrieval.search(U, 'Caroline painting teal support', { limit: 10 });
    expect(rowReads.size).toBe(4);
    for (const sql of rowReads) {
      const plan = (env.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('[1]', 'user', 'default') as { detail: string }[]).map((r) => r.detail);
      expect(plan).toContain('SEARCH c USING INTEGER PRIMARY KEY (rowid=?)');
      expect(plan.some((d) => /^SCAN c\b|USING (COVERING )?INDEX/.test(d))).toBe(false);
    }
  });

  it('explain adds up and ranking is deterministic', () => {
    seed(env);
    const hits = env.stores.retrieval.search(U, 'Caroline Melanie lake camping run', { limit: 10 });
    expect(hits.length).toBeGreaterThan(3);
    for (const h of hits) {
      const e = h.explain;
      expect(e.bm25 + e.importance + e.recency + e.access).toBeCloseTo(e.fused, 5);
      expect(h.score).toBe(e.fused);
    }
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    expect(env.stores.retrieval.search(U, 'Caroline Melanie lake camping run', { limit: 10 })).toEqual(hits);
  });

  it('intent shifts weight toward recency or importance', () => {
    const s = env.stores;
    const old = s.episodes.add(U, { summary: 'notes about the garden project', importance: 0.95 });
    env.clock.advance(60 * 24 * 3600 * 1000);
    const fresh = s.episodes.add(U, { summary: 'notes about the garden project', importance: 0.1 });
    expect(s.retrieval.search(U, 'garden project', { intent: 'recent' })[0].id).toBe(fresh.id);
    expect(s.retrieval.search(U, 'garden project', { intent: 'core' })[0].id).toBe(old.id);
  });

  it('scores a record dated after now by its distance from now: one years ahead is not the most recent', () => {
    const s = env.stores;
    const now = env.clock.now();
    env.clock.t = Date.UTC(2099, 0, 1); // written while the clock ran far ahead, then corrected
    const ahead = s.episodes.add(U, { summary: 'notes about the orchard plan' });
    env.clock.t = now;
    const fresh = s.episodes.add(U, { summary: 'notes about the orchard plan' });
    const hits = s.retrieval.search(U, 'orchard plan', { intent: 'recent' });
    expect(hits.map((h) => h.id)).toEqual([fresh.id, ahead.id]);
    const byId = new Map(hits.map((h) => [h.id, h.explain.recency]));
    expect(byId.get(ahead.id)).toBeLessThan(1e-6);
    expect(byId.get(fresh.id)).toBeGreaterThan(0);
  });

  it('filters by sources and wiki_type, and touch counts accesses', () => {
    seed(env);
    const only = env.stores.retrieval.search(U, 'Caroline', { sources: ['graph'] });
    expect(only.map((h) => h.source)).toEqual(['graph']);
    expect(env.stores.retrieval.search(U, 'paints', { sources: ['wiki'], wiki_type: 'diary' })).toEqual([]);
    expect(() => env.stores.retrieval.search(U, 'x', { sources: ['l9' as never] })).toThrow(/sources/);
    const hits = env.stores.retrieval.search(U, 'Caroline support group', { limit: 2 });
    env.stores.retrieval.touch(hits);
    const ep = env.stores.episodes.get(U, hits[0].id);
    expect(ep?.access_count).toBe(1);
  });

  it('hostile or empty queries never throw', () => {
    seed(env);
    for (const q of ['', '   ', '"', '*', 'AND(', 'OR', 'NOT NEAR(', '"support', 'group*', "Caroline's", ':', '^', '{}[]', 'the of and', '\u0000']) {
      expect(() => env.stores.retrieval.search(U, q)).not.toThrow();
    }
    expect(env.stores.retrieval.search(U, 'the of and')).toEqual([]);
    expect(env.stores.retrieval.search(U, '"support')[0].text).toMatch(/support group/);
    expect(buildMatch('AND( "xylophone" OR yak*')?.match).toBe('"xylophone" OR "yak"');
    expect(buildMatch('AND( OR *')).toBeNull();
    expect(queryTerms('What did Caroline say?')).toEqual(['caroline', 'say']);
  });

  it('joins hyphenated words of letters, in queries and in what is stored', () => {
    expect(delimiterJoins('I run to de-stress; E-mail me after the check-in.')).toEqual(['destress', 'email', 'checkin']);
    // A letter run and a number join too (`GPT-4`), two numbers never (a date).
    expect(delimiterJoins('A state-of-the-art café-crème, not 2023-05-01 nor x-1 or -dash-')).toEqual(['stateoftheart', 'cafecreme', 'x1']);
    expect(delimiterJoins('no hyphen here')).toEqual([]);
    expect(queryTerms('How does she de-stress?')).toEqual(['de', 'stress', 'destress']);
    const a = env.stores.episodes.add(U, { summary: 'Melanie: I have been running farther to de-stress.', importance: 0.5 });
    const b = env.stores.episodes.add(U, { summary: 'Caroline: Painting is how I destress after work.', importance: 0.5 });
    env.stores.episodes.add(U, { summary: 'Caroline: The stress of the move was a lot.', importance: 0.5 });
    expect(env.stores.retrieval.search(U, 'What does Melanie do to destress?')[0]!.id).toBe(a.id);
    const spelled = env.stores.retrieval.search(U, 'how to de-stress').map((h) => h.id);
    expect(spelled.slice(0, 2).sort()).toEqual([a.id, b.id].sort());
  });

  it('drops the category noun of "what kind of" / "which types of" questions, and keeps it elsewhere', () => {
    expect(queryTerms('What kind of art does the user make?')).toEqual(['art', 'user', 'make']);
    expect(queryTerms('Which types of food, and what sort of music?')).toEqual(['food', 'music']);
    expect(queryTerms('what kinds of pets')).toEqual(['pets']);
    // Not after an interrogative, or not before "of": a word like any other.
    expect(queryTerms('She was kind of tired')).toEqual(['kind', 'tired']);
    expect(queryTerms('What kind words did he say?')).toEqual(['kind', 'words', 'say']);
    expect(queryTerms('the blood type of the patient')).toEqual(['blood', 'type', 'patient']);
  });
});

describe('token budget', () => {
  it('keeps sections in order, cuts the first that overflows and flags truncation', () => {
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    const sections = [
      { title: 'A', text: 'x'.repeat(40) },
      { title: 'B', text: 'y'.repeat(400) },
      { title: 'C', text: 'z'.repeat(40) },
    ];
    const all = fitToBudget(sections, 1000);
    expect(all.truncated).toBe(false);
    expect(all.sections).toHaveLength(3);
    const cut = fitToBudget(sections, 50);
    expect(cut.truncated).toBe(true);
    expect(cut.tokens).toBeLessThanOrEqual(50);
    expect(cut.sections.map((s) => s.title)).toEqual(['A', 'B']);
    expect(cut.sections[1].text.endsWith('…')).toBe(true);
    expect(fitToBudget(sections, 0).sections).toEqual([]);
  });
});
