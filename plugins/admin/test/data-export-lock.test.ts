import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, admin, primitives, storesOf, type TestServer } from './helpers.js';
import { createTestServer } from '@memory-service/testing';

let s: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
  s = undefined;
});

const U = { layer: 'user' as const, user_id: 'default' };

function seed(st: ReturnType<typeof storesOf>, n: number) {
  for (let i = 0; i < n; i++) {
    st.episodes.add(U, { summary: `Episode ${i} about the harbour in Porto`, tags: [`t${i % 3}`], importance: 0.4 });
    st.facts.upsert(U, { key: `fact ${i}`, value: `value ${i} of the tram line`, importance: 0.6 });
  }
  st.graph.addNode(U, { content: 'Porto harbour', node_type: 'place' });
  st.wiki.save(U, { title: 'Porto notes', content: 'Tiles and trams.', wiki_type: 'diary' });
}

describe('memory_data export reads one snapshot without the write lock (in-process MCP client)', () => {
  it('answers while another process holds the write lock (BEGIN IMMEDIATE), inline and to a file, the same document as once it is released', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    seed(storesOf(s), 5);
    // The busy timeout shortened (10 s in service): the export took the write lock and failed KERNEL_ERR_BUSY before.
    s.kernel.storage.db.pragma('busy_timeout = 150');
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    let inline: Record<string, any>;
    let toFile: Record<string, any>;
    try {
      inline = await s.call('memory_data', { action: 'export' });
      toFile = await s.call('memory_data', { action: 'export', to_file: true });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(inline.counts).toMatchObject({ episodes: 5, facts: 5, graph_nodes: 1, wiki_pages: 1 });
    expect(fs.readFileSync(path.join(s.dataDir, 'exports', toFile.file), 'utf8')).toBe(JSON.stringify(inline.data));
    const after = await s.call('memory_data', { action: 'export' });
    expect(after.data).toEqual(inline.data);
  });

  it('is one snapshot: a write another process commits while the export runs is not in it (nor half of it)', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    const st = storesOf(s);
    seed(st, 3);
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    const insertNode = other.prepare(
      "INSERT INTO graph_nodes (layer, user_id, content, norm_content, node_type, tags, confidence, created) VALUES ('user', 'default', 'Late node', 'late node', 'place', '[]', 1, '2026-01-01T00:00:00.000Z')",
    );
    // Once the facts and episodes are read, another process adds a graph node (exported after the wiki pages).
    const read = st.wiki.getByTitle.bind(st.wiki);
    vi.spyOn(st.wiki, 'getByTitle').mockImplementation((scope, title) => {
      insertNode.run();
      return read(scope, title);
    });
    try {
      const out = await s.call('memory_data', { action: 'export' });
      expect(out.counts.graph_nodes).toBe(1);
      expect(out.data.graph_nodes.map((n: { content: string }) => n.content)).toEqual(['Porto harbour']);
    } finally {
      other.close();
    }
    vi.restoreAllMocks();
    expect((await s.call('memory_data', { action: 'export' })).counts.graph_nodes).toBe(2);
  });
});
