import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, ManualClock } from '@memory-service/testing';
import { primitives, storesOf, write, type TestServer } from './helpers.js';

/**
 * forget exact of a fact whose value is very long (memory_remember takes a value up to the text
 * limit, think.max_text_chars, 100,000 characters by default): the L3 episodes and graph nodes
 * carrying the value go with it, as for a short value.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const scope = { layer: 'user', user_id: 'default' } as const;

/** A text of `n` characters of ordinary words. */
function prose(n: number, seed = 'harbour'): string {
  const words = [seed, 'ferry', 'leaves', 'at', 'eight', 'from', 'the', 'north', 'pier', 'every', 'morning', 'Café'];
  let out = '';
  for (let i = 0; out.length < n; i++) out += `${words[i % words.length]}${i % 5 === 0 ? ',' : ''} `;
  return out.slice(0, n).trim();
}

function startWith(maxTextChars: number): Promise<TestServer> {
  return createTestServer({ plugins: [primitives, write], expose: 'write', clock: new ManualClock(), config: { think: { max_text_chars: maxTextChars } } });
}

// Regression guard, fixed: the value was matched as a SQL LIKE pattern and a regular expression
// of its own length: past 10,000 characters forget refused it ("pattern is longer than 10000
// characters"), and longer still it passed SQLite's LIKE pattern limit and overflowed the stack.
describe('forget exact of a long value', () => {
  for (const n of [10_500, 50_000, 200_000]) {
    it(`deletes the fact and the episodes and nodes carrying its ${n} characters, and nothing else`, async () => {
      s = await startWith(300_000);
      const value = prose(n);
      const r = await s.call('memory_remember', { key: 'long_note', value, layer: 'user' });
      expect(r.value).toBe(value);
      const stores = storesOf(s);
      // Carriers: the value inside a longer episode and a node, folded differently; others hold only part of it or it inside a word.
      const carrier = stores.episodes.add(scope, { summary: `Copied from the note: ${value.toUpperCase()} (end of the note)` });
      const node = stores.graph.addNode(scope, { content: `Quote: ${value.replace(/ /g, '  ')}`, node_type: 'note' });
      const part = stores.episodes.add(scope, { summary: value.slice(0, Math.floor(n / 2)) });
      const glued = stores.graph.addNode(scope, { content: `x${value}`, node_type: 'note' });
      const other = stores.episodes.add(scope, { summary: prose(300, 'lighthouse') });
      const out = await s.call('forget', { key: 'long_note', layer: 'user' });
      expect(out).toMatchObject({ deleted_l4: 1, deleted_l3: 1, deleted_graph: 2 });
      expect(stores.facts.get(scope, 'long_note')).toBeNull();
      expect(stores.episodes.get(scope, carrier.id)).toBeNull();
      expect(stores.graph.getNode(scope, node.node_id)).toBeNull();
      expect(stores.graph.getNode(scope, r.node_id)).toBeNull();
      expect(stores.episodes.get(scope, part.id)).not.toBeNull();
      expect(stores.graph.getNode(scope, glued.node_id)).not.toBeNull();
      expect(stores.episodes.get(scope, other.id)).not.toBeNull();
      // Archived in the Shadow Bin, whole.
      const restored = stores.shadowBin.list(scope).find((e) => e.origin_store === 'l4');
      expect(restored?.content).toMatchObject({ key: 'long_note', value });
    });
  }

  it('takes the default text limit: a 99,000 character value is forgotten through memory_remember and forget alone', async () => {
    s = await startWith(100_000);
    const value = prose(99_000);
    await s.call('memory_remember', { key: 'big', value, layer: 'user' });
    await s.call('memory_episode_save', { summary: `${value} was saved twice`, layer: 'user' });
    const out = await s.call('forget', { key: 'big', layer: 'user' });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_l3: 1, deleted_graph: 1 });
    expect((await s.call('dream', { query: 'harbour ferry pier', layer: 'user' })).result_count).toBe(0);
  });
});
