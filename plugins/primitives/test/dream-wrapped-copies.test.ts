import { afterEach, describe, expect, it } from 'vitest';
import { hook, start, type TestServer } from './helpers.js';

/**
 * One memory the service writes in several records (memory_hook's auto-save: an episode, a graph
 * node and an `auto:` fact of the same text; think's long thought: a wiki page and its link) is
 * answered once by dream and wake_up, whichever record ranks first, and the limit is filled with
 * other memories.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** Important enough (>= 0.8) for the auto-save to write the episode, the node and the fact. */
const said = (i: number) => `Remember: we decided the quarterly billing report ${i} always goes to Alice on Friday`;
/** The memory a line or hit text names (its number), or undefined. */
const which = (text: string) => /quarterly billing report (\d+)/i.exec(text)?.[1];

/** The stored text of a dream hit (dream's hits carry ids; the text is in its summary). */
function textOf(id: string): string {
  const [prefix, n] = id.split('_');
  const sql = { ep: 'SELECT summary FROM episodes WHERE id = ?', fact: 'SELECT value FROM facts WHERE id = ?', node: 'SELECT content FROM graph_nodes WHERE id = ?' }[prefix!];
  if (!sql) return '';
  return (s.kernel.storage.db.prepare(sql).pluck(true).get(Number(n)) as string | undefined) ?? '';
}

async function autoSaved(n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const r = await hook(s, 'new_message', { text: said(i) });
    expect(r.actions.map((a: { store: string }) => a.store).sort(), said(i)).toEqual(['graph', 'l1', 'l3', 'l4']);
  }
}

describe('auto-saved memories are answered once', () => {
  it('dream lists each auto-saved memory once and fills its limit', async () => {
    s = await start();
    await autoSaved(8);
    for (const query of ['Alice Friday', 'quarterly billing report', 'report goes to Alice']) {
      for (const limit of [3, 5]) {
        const r = await s.call('dream', { query, limit, hits: true });
        const memories = r.hits.map((h: { id: string }) => which(textOf(h.id)));
        expect(memories.every(Boolean), `${query}: ${JSON.stringify(r.hits)}`).toBe(true);
        expect(memories, `${query} limit ${limit}: ${r.hits.map((h: { id: string }) => h.id).join(' ')}`).toHaveLength(limit);
        expect(new Set(memories).size, `${query} limit ${limit}: ${memories.join(' ')}`).toBe(limit);
      }
    }
  });

  it("wake_up's query section lists each auto-saved memory once, and other memories to fill its five", async () => {
    s = await start();
    await autoSaved(3);
    for (let i = 4; i <= 8; i++) await s.call('think', { text: `The quarterly billing report ${i} was late again last month`, layer: 'user' });
    const r = await s.call('wake_up', { query: 'report goes to Alice', budget: 8000 });
    const section = r.brief.split(/^## /m).find((x: string) => x.startsWith('About "report goes to Alice"'));
    const memories = section.split('\n').filter((l: string) => l.startsWith('- ')).map(which);
    expect(memories.every(Boolean), section).toBe(true);
    expect(memories, section).toHaveLength(5);
    expect(new Set(memories).size, section).toBe(5);
    expect(memories.slice(0, 3).sort(), section).toEqual(['1', '2', '3']);
  });
});

describe('a long thought is answered once', () => {
  it('dream lists the page or its link, not both, and fills its limit with other memories', async () => {
    s = await start();
    const long = `Lighthouse keeper log: ${Array.from({ length: 80 }, (_, i) => `entry ${i} notes the lamp and the tide`).join(', ')}`;
    const r = await s.call('think', { text: long, layer: 'user' });
    const page = r.actions.find((a: { store: string }) => a.store === 'wiki')!.id;
    const link = r.actions.find((a: { kind?: string }) => a.kind === 'wiki_link')!.id;
    for (let i = 1; i <= 4; i++) await s.call('think', { text: `The lighthouse keeper ${i} wrote about the lamp`, layer: 'user' });
    for (const query of ['lighthouse keeper log', 'lamp tide']) {
      const ids = (await s.call('dream', { query, limit: 4, hits: true })).hits.map((h: { id: string }) => h.id);
      expect(ids, `${query}: ${ids.join(' ')}`).toHaveLength(4);
      expect(ids.filter((id: string) => id === page || id === link), `${query}: ${ids.join(' ')}`).toHaveLength(1);
    }
  });
});
