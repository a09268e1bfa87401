import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { ManualClock, admin, primitives, storesOf, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const T = { layer: 'user' as const, user_id: 'target' };

/** More records of each kind than the clear writes in one statement (500), facts with several versions. */
function seed(st: ReturnType<typeof storesOf>) {
  let prev: string | null = null;
  for (let i = 0; i < 620; i++) {
    st.episodes.add(T, { summary: `Episode ${i} of the harbour`, tags: [`t${i % 4}`], importance: 0.3, meta: { i } });
    if (i % 2 === 0) st.facts.upsert(T, { key: `fact ${i}`, value: `value ${i}`, importance: 0.5 });
    if (i % 4 === 0) st.facts.upsert(T, { key: `fact ${i}`, value: `value ${i} again`, importance: 0.6 });
    if (i % 5 === 0) {
      const n = st.graph.addNode(T, { content: `Node ${i}`, node_type: 'place' }).node_id;
      if (prev) st.graph.addEdge(T, { from: prev, to: n, relation: 'relates_to' });
      prev = n;
    }
  }
  st.wiki.save(T, { title: 'Harbour', content: 'Boats.', wiki_type: 'diary' });
  st.wiki.save(T, { title: 'Trams', content: 'Line 1.', wiki_type: 'diary' });
  st.wiki.link(T, 'Harbour', 'Trams', 'follows');
}

describe('memory_data import replace over a large target (in-process MCP client)', () => {
  it('archives every fact, episode, node and page as its store answered it, keeps each fact one delete version, and the target then holds the document only', async () => {
    s = await createTestServer({ plugins: [primitives, write, admin], expose: 'all', clock: new ManualClock() });
    const st = storesOf(s);
    seed(st);
    st.episodes.add({ layer: 'user', user_id: 'default' }, { summary: 'The document\'s one episode', importance: 0.5 });
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    const before = {
      facts: st.facts.list(T, { limit: 10_000, orderBy: 'created' }),
      episodes: st.episodes.list(T, { limit: 10_000 }),
    };
    const heldExport = await s.call('memory_data', { action: 'export', user_id: 'target', to_file: true });
    const r = await s.call('memory_data', { action: 'import', data: doc, mode: 'replace', user_id: 'target' });
    expect(r.cleared).toMatchObject({ facts: 310, episodes: 620, graph_nodes: 124, graph_edges: 123, wiki_pages: 2, wiki_links: 1 });
    expect(r.archived).toBe(310 + 620 + 124 + 2);
    expect(r.imported.episodes).toBe(1);
    // The previous export is the target as it was, byte for byte (its time aside).
    const prev = JSON.parse(fs.readFileSync(path.join(s.dataDir, 'exports', r.previous_export), 'utf8'));
    const held = JSON.parse(fs.readFileSync(path.join(s.dataDir, 'exports', heldExport.file), 'utf8'));
    expect({ ...prev, exported_at: null }).toEqual({ ...held, exported_at: null });
    // The Shadow Bin holds each record as the store answered it, in id order, each restorable.
    const bin = st.shadowBin.list(T, { limit: 10_000 }).reverse();
    expect(bin.map((e) => e.origin_store)).toEqual([...Array(310).fill('l4'), ...Array(620).fill('l3'), ...Array(124).fill('graph'), 'wiki', 'wiki']);
    expect(bin.filter((e) => e.origin_store === 'l4').map((e) => e.content)).toEqual([...before.facts].sort((a, b) => Number(a.entry_id.slice(5)) - Number(b.entry_id.slice(5))));
    expect(bin.filter((e) => e.origin_store === 'l3').map((e) => e.content)).toEqual([...before.episodes].reverse());
    expect(new Set(bin.map((e) => e.reason))).toEqual(new Set(['memory_data import replace']));
    // A fact's history keeps one delete version, its values gone.
    const hist = await s.call('memory_history', { key: 'fact 0', user_id: 'target' });
    expect(hist.current).toBeNull();
    expect(hist.versions.map((v: { op: string }) => v.op)).toEqual(['delete']);
    // The target holds the document only: its export is the document's records.
    const after = (await s.call('memory_data', { action: 'export', user_id: 'target' })).data;
    expect(after.episodes.map((e: { summary: string }) => e.summary)).toEqual(['The document\'s one episode']);
    expect(after.facts).toEqual([]);
    expect(after.graph_nodes).toEqual([]);
    expect(st.shadowBin.restore(bin[400]!.id).record).toMatchObject({ summary: (bin[400]!.content as { summary: string }).summary });
  });
});
