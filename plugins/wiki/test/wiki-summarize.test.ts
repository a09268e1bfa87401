import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '@memory-service/stores';
import { add, ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const TABLE = {
  practical: ['agent', 'decision_log'],
  epistemic: ['agent', 'learning_journal'],
  psychological: ['agent', 'emotional_context'],
  social: ['user', 'relationships'],
  temporal: ['user', 'retrospective'],
  metacognitive: ['agent', 'principle_log'],
} as const;

describe('wiki_summarize', () => {
  it('reads each perspective\'s type on its canonical layer, whatever layer is asked', async () => {
    s = await start();
    for (const [name, [layer, type]] of Object.entries(TABLE)) {
      await add(s, `${name} page`, `Notes for the ${name} perspective.`, { layer, wiki_type: type, tags: [name] });
      await add(s, `${name} decoy`, 'Same type, other layer.', { layer: layer === 'agent' ? 'user' : 'agent', wiki_type: type });
    }
    for (const [name, [layer, type]] of Object.entries(TABLE)) {
      for (const asked of ['user', 'agent']) {
        const r = await s.call('wiki_summarize', { perspective: name, layer: asked });
        expect(r).toMatchObject({ perspective: name, layer, wiki_type: type, count: 1, truncated: false, digest_pages: 1, query: '' });
        expect(r.pages).toEqual([{ title: `${name} page`, type, tags: [name], path: expect.stringContaining(`wiki/${layer}/default/${type}/`) }]);
        expect(r.digest).toContain(`## ${name} page`);
        expect(r.digest).toContain(`Notes for the ${name} perspective.`);
        expect(r.digest).not.toContain('decoy');
      }
    }
  });

  it('filters by query within the type, caps pages at limit and the digest at 2000 tokens', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    for (let i = 0; i < 14; i++) {
      clock.advance(1000);
      const topic = i % 2 ? 'database indexing' : 'release naming';
      await add(s, `Decision ${i}`, `We chose ${topic}. ${'Because of many careful reasons. '.repeat(60)}`, { layer: 'agent', wiki_type: 'decision_log' });
    }
    const r = await s.call('wiki_summarize', { perspective: 'practical' });
    expect(r.count).toBe(10);
    expect(r.pages[0].title).toBe('Decision 13');
    expect(r.truncated).toBe(true);
    expect(estimateTokens(r.digest)).toBeLessThanOrEqual(2000);
    expect(r.estimated_tokens).toBe(estimateTokens(r.digest));
    expect(r.estimated_tokens).toBeGreaterThan(1800);
    const q = await s.call('wiki_summarize', { perspective: 'practical', query: 'database indexing', limit: 2 });
    expect(q.count).toBe(2);
    expect(q.pages.every((p: any) => Number(p.title.split(' ')[1]) % 2 === 1)).toBe(true);
    // A query of nothing visible is no query: the type's newest pages, as with none.
    expect((await s.call('wiki_summarize', { perspective: 'practical', query: '\u200b ' })).pages[0].title).toBe('Decision 13');
    const small = await s.call('wiki_summarize', { perspective: 'practical', limit: 1 });
    expect(small).toMatchObject({ count: 1, truncated: false, digest_pages: 1 });
    const none = await s.call('wiki_summarize', { perspective: 'social' });
    expect(none).toMatchObject({ count: 0, pages: [], truncated: false, layer: 'user' });
    expect(none.digest).toMatch(/No relationships pages/);
  });

  it('keeps user_ids apart and refuses bad input naming the field', async () => {
    s = await start();
    await add(s, 'Alice', 'Met Alice at the conference.', { wiki_type: 'relationships', user_id: 'u1' });
    expect((await s.call('wiki_summarize', { perspective: 'social', user_id: 'u1' })).count).toBe(1);
    expect((await s.call('wiki_summarize', { perspective: 'social', user_id: 'u2' })).count).toBe(0);
    const p = await toolError(s.call('wiki_summarize', { perspective: 'cosmic' }));
    expect(p.field).toBe('perspective');
    expect(p.accepted).toEqual(Object.keys(TABLE));
    expect((await toolError(s.call('wiki_summarize', {}))).field).toBe('perspective');
    expect((await toolError(s.call('wiki_summarize', { perspective: 'social', limit: 0 }))).field).toBe('limit');
    expect((await toolError(s.call('wiki_summarize', { perspective: 'social', layer: 'both' }))).field).toBe('layer');
  });
});
