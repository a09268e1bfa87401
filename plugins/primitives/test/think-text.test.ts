import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionsIn, count, hook, snapshot, start, toolError, type TestServer } from './helpers.js';

/** think counts, cuts and stores user text as the user sees it: characters are code points. */
let s: TestServer;
beforeEach(async () => {
  s = await start({ config: { think: { max_text_chars: 3000 } } });
});
afterEach(async () => {
  await s.close();
});

const think = (args: Record<string, unknown>) => s.call('think', args);
const emoji = (n: number) => '😀'.repeat(n);

describe('routing length counts characters (code points), not UTF-16 units', () => {
  it('1,001 emoji are 1,001 characters: an L3 episode, not a wiki page', async () => {
    const r = await think({ text: emoji(1001), layer: 'user' });
    expect(r.routing.length).toBe(1001);
    expect(r.routing.rule).not.toBe('long_to_wiki');
    expect(actionsIn(r, 'wiki')).toEqual([]);
  });

  it('2,001 emoji are above 2000 characters: a wiki page', async () => {
    const r = await think({ text: emoji(2001), layer: 'user' });
    expect(r.routing).toMatchObject({ length: 2001, rule: 'long_to_wiki' });
  });

  it('a 47-character important text with emoji is short: an L4 fact', async () => {
    const r = await think({ text: `Remember: my name is Alice ${emoji(20)}`, layer: 'user' });
    expect(r.routing.importance).toBeGreaterThan(0.7);
    expect(r.routing).toMatchObject({ length: 47, rule: 'short_important_to_l4' });
    expect(actionsIn(r, 'l4')).toHaveLength(1);
  });

  it('think.max_text_chars counts characters: 3,000 emoji pass, 3,001 are refused as 3001 characters', async () => {
    expect((await think({ text: emoji(3000), layer: 'user' })).routing.length).toBe(3000);
    const before = snapshot(s);
    const err = await toolError(think({ text: emoji(3001), layer: 'user' }));
    expect(err.field).toBe('text');
    expect(err.message).toMatch(/is 3001 characters; the limit is 3000/);
    expect(snapshot(s)).toEqual(before);
    expect(count(s, 'wiki_pages')).toBe(1);
  });
});

/** Half of a surrogate pair, which SQLite stores as U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/;

describe('excerpts never cut an emoji in half', () => {
  it('the L3 wiki link of a long thought keeps the emoji at its cut whole', async () => {
    const text = `${'a'.repeat(278)}😀${' rest '.repeat(400)}`;
    const r = await think({ text, layer: 'user' });
    expect(r.routing.rule).toBe('long_to_wiki');
    const [ep] = actionsIn(r, 'l3');
    const { summary } = s.kernel.storage.db.prepare('SELECT summary FROM episodes WHERE id = ?').get(Number(ep!.id.slice(3))) as { summary: string };
    expect(summary).toMatch(/^a{278}😀… \[wiki: Thought_/);
    expect(summary).not.toMatch(LONE_SURROGATE);
  });

  it('the timeline summary of a significant thought keeps the emoji at its cut whole', async () => {
    const head = 'Remember, this is important: we decided to keep the ledger in Postgres. ';
    const text = `${head}${'a'.repeat(198 - head.length)}😀${' more'.repeat(40)}`;
    const r = await think({ text, layer: 'user' });
    const [ev] = actionsIn(r, 'timeline');
    const { summary } = s.kernel.storage.db.prepare('SELECT summary FROM timeline_events WHERE id = ?').get(Number(ev!.id.split('_')[1])) as { summary: string };
    expect(summary.endsWith('😀…')).toBe(true);
    expect(summary).not.toMatch(LONE_SURROGATE);
  });

  it('session_started injects recent items with whole emoji', async () => {
    await think({ text: `Remember, this is important: ${'a'.repeat(169)}😀${' b'.repeat(30)}`, layer: 'user' });
    const r = await hook(s, 'session_started', { text: 'important', budget: 5000 });
    expect(r.inject).toContain('😀…');
    expect(r.inject).not.toMatch(LONE_SURROGATE);
  });
});

describe('think stores the text as sent', () => {
  it('a long thought keeps its leading indentation and trailing white space in the page, the row and L1', async () => {
    const text = `    def f():\n        return 1\n${'x'.repeat(2000)}\n\n  `;
    const r = await think({ text, layer: 'user' });
    expect(r.routing).toMatchObject({ rule: 'long_to_wiki', length: text.trim().length });
    const [page] = actionsIn(r, 'wiki');
    const row = s.kernel.storage.db.prepare('SELECT content FROM wiki_pages WHERE path = ?').get(page!.path) as { content: string };
    expect(row.content).toBe(text);
    const [l1] = actionsIn(r, 'l1');
    const item = s.kernel.storage.db.prepare('SELECT text FROM l1_items WHERE id = ?').get(Number(l1!.id.split('_')[1])) as { text: string };
    expect(item.text).toBe(text);
  });

  it('routing length leaves outer white space out; a padded short note is the L4 fact of the note without it', async () => {
    const text = '  Remember: my name is Alice\n';
    const r = await think({ text, layer: 'user' });
    expect(r.routing).toMatchObject({ rule: 'short_important_to_l4', length: 26 });
    const [fact] = actionsIn(r, 'l4');
    expect(fact!.key).toBe('note:remember-my-name-is-alice');
    const row = s.kernel.storage.db.prepare('SELECT value FROM facts WHERE key = ?').get(fact!.key) as { value: string };
    // A core fact is a short value: the padding is no part of it, so the same note unpadded keeps its key.
    expect(row.value).toBe('Remember: my name is Alice');
    const again = await think({ text: 'Remember: my name is Alice', layer: 'user' });
    expect(actionsIn(again, 'l4')[0]!.key).toBe(fact!.key);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM facts').get()).toEqual({ n: 1 });
  });
});

describe('a text sent under another name', () => {
  it('is refused naming text as required and the key given instead, with nothing stored', async () => {
    const before = snapshot(s);
    const err = await toolError(think({ content: 'Remember: my name is Alice', layer: 'user' }));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'text' });
    expect(err.message).toContain('field "text" is required');
    expect(err.message).toContain('the call gave "content" instead, which this tool does not take (arguments: text, layer, user_id');
    expect(snapshot(s)).toEqual(before);
    // A call that gives text is not told about keys it does not need.
    const wrongType = await toolError(think({ text: 5, content: 'x' }));
    expect(wrongType.message).not.toContain('instead');
  });
});
