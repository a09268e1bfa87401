import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
import { createTestServer, type TestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, storesOf, toolError } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const U = { layer: 'user' as const, user_id: 'default' };
const T = { layer: 'user' as const, user_id: 'target' };

/** A scope of every core kind in `scope`, a few of each. */
function seed(st: ReturnType<typeof storesOf>, scope: typeof U, n: number) {
  for (let i = 0; i < n; i++) {
    st.episodes.add(scope, { summary: `Episode ${i} about the harbour in Porto`, tags: [`t${i % 3}`], importance: 0.4 });
    st.facts.upsert(scope, { key: `fact ${i}`, value: `value ${i} of the tram line`, importance: 0.6 });
    st.timeline.add(scope, { type: 'note', summary: `Event ${i} at the market` });
  }
  const a = st.graph.addNode(scope, { content: 'Porto harbour', node_type: 'place' });
  const b = st.graph.addNode(scope, { content: 'Tram line 1', node_type: 'place' });
  st.graph.addEdge(scope, { from: a.node_id, to: b.node_id, relation: 'relates_to' });
  st.wiki.save(scope, { title: `Porto notes ${scope.user_id}`, content: 'Tiles and trams.', wiki_type: 'diary' });
}

/** The scope's export with its time taken out: what it holds, byte for byte. */
async function held(server: TestServer, user_id: string): Promise<string> {
  const out = await server.call('memory_data', { action: 'export', user_id });
  return JSON.stringify({ ...out.data, exported_at: null });
}

describe('memory_data import and the write lock', () => {
  it('checks the document before taking the write lock: a bad record is refused naming its path at once while another process holds the lock, nothing written', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    const st = storesOf(s);
    seed(st, U, 3);
    const { data } = await s.call('memory_data', { action: 'export' });
    data.episodes[1].importance = 7;
    const name = 'bad.json';
    fs.mkdirSync(path.join(s.dataDir, 'exports'), { recursive: true });
    fs.writeFileSync(path.join(s.dataDir, 'exports', name), JSON.stringify(data));
    // The busy timeout shortened (10 s in service): before, the call's transaction waited for the lock and failed with KERNEL_ERR_BUSY.
    s.kernel.storage.db.pragma('busy_timeout = 150');
    const audit = () => s!.kernel.storage.db.prepare('SELECT COUNT(*) FROM audit_log').pluck(true).get();
    const before = audit();
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      for (const [args, field] of [
        [{ data }, 'data.episodes[1].importance'],
        [{ file: name }, 'file.episodes[1].importance'],
      ] as const) {
        for (const mode of ['merge', 'replace']) {
          const err = await toolError(s.call('memory_data', { action: 'import', ...args, mode, user_id: 'target' }));
          expect(err, `${mode} ${field}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field });
          expect(err.message).toContain(field.replace(/\.importance$/, ''));
        }
      }
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(audit()).toBe(before);
    expect(st.episodes.count(T)).toBe(0);
    expect(fs.readdirSync(path.join(s.dataDir, 'exports'))).toEqual([name]);
  });

  it('a valid import waiting on another process\'s lock gives up with KERNEL_ERR_BUSY saying nothing of the call was written', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    seed(storesOf(s), U, 2);
    const { data } = await s.call('memory_data', { action: 'export' });
    s.kernel.storage.db.pragma('busy_timeout = 150');
    const other = openSqlite(path.join(s.dataDir, 'memory.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const err = await toolError(s.call('memory_data', { action: 'import', data, user_id: 'target' }));
      expect(err).toMatchObject({ code: 'KERNEL_ERR_BUSY' });
      expect(err.message).toContain('nothing of this call was written');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const done = await s.call('memory_data', { action: 'import', data, user_id: 'target' });
    expect(done.imported.episodes).toBe(2);
  });

  it('a valid import waits for another process\'s lock without holding up the server (pings answered), then writes (merge and replace)', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    seed(storesOf(s), U, 5);
    const { data } = await s.call('memory_data', { action: 'export' });
    // Before, its transaction waited in SQLite's busy handler inside a synchronous call: no ping was answered, and the call failed.
    s.kernel.storage.db.pragma('busy_timeout = 4000');
    for (const [mode, holdMs] of [['merge', 1000], ['replace', 300]] as const) {
      const other = openSqlite(path.join(s.dataDir, 'memory.db'));
      other.exec('BEGIN IMMEDIATE');
      // Released by a timer of this process: it fires only while the event loop turns.
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
      }, holdMs);
      let settled = false;
      const call = s.call('memory_data', { action: 'import', data, mode, user_id: 'target' }).finally(() => (settled = true));
      let worst = 0;
      let pings = 0;
      while (!settled) {
        const t = performance.now();
        await s.client.ping();
        worst = Math.max(worst, performance.now() - t);
        pings++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const done = await call;
      expect(done.imported.episodes, mode).toBe(5);
      expect(worst, mode).toBeLessThan(holdMs / 2);
      expect(pings, mode).toBeGreaterThan(3);
    }
    // The replace left the target holding the document, once.
    expect(storesOf(s).episodes.count(T)).toBe(5);
    expect(storesOf(s).facts.count(T)).toBe(5);
  }, 30_000);

  it('an import that fails at its last step leaves the target as it was: rows, page files, Shadow Bin and exports/ (merge and replace)', async () => {
    s = await createTestServer({ plugins: [primitives, admin], expose: 'all', clock: new ManualClock() });
    const st = storesOf(s);
    seed(st, U, 30);
    seed(st, T, 4);
    // 20 scratchpad entries at most: the target's 5 and the document's 20 fail a merge at its last core step, after every other kind of it was written.
    for (let i = 0; i < 20; i++) st.scratchpad.write(U, `note ${i}`, `content ${i}`);
    for (let i = 0; i < 5; i++) st.scratchpad.write(T, `held ${i}`, `content ${i}`);
    const { data } = await s.call('memory_data', { action: 'export' });
    // A link to a page neither the document nor the target holds fails once the pages, nodes, edges and episodes are written (and, in a replace, the target cleared).
    const linked = { ...data, wiki_links: [{ from_title: data.wiki_pages[0].title, to_title: 'Nowhere', relation: 'follows', created: data.wiki_pages[0].created }] };
    const wikiFiles = () => fs.readdirSync(path.join(s!.dataDir, 'wiki'), { recursive: true }).sort();
    const bin = () => s!.kernel.storage.db.prepare('SELECT COUNT(*) FROM shadow_bin').pluck(true).get();
    const exportFiles = () => (fs.existsSync(path.join(s!.dataDir, 'exports')) ? fs.readdirSync(path.join(s!.dataDir, 'exports')).sort() : []);
    const exportsBefore = exportFiles();
    const target = await held(s, 'target');
    const files = wikiFiles();
    const binned = bin();
    for (const [mode, doc, field] of [
      ['merge', data, 'data.scratchpad'],
      ['merge', linked, 'data.wiki_links[0].to_title'],
      ['replace', linked, 'data.wiki_links[0].to_title'],
    ] as const) {
      const err = await toolError(s.call('memory_data', { action: 'import', data: doc, mode, user_id: 'target' }));
      expect(err.field, mode).toBe(field);
      expect(await held(s, 'target'), mode).toBe(target);
      expect(wikiFiles(), mode).toEqual(files);
      expect(bin(), mode).toBe(binned);
      expect(exportFiles(), mode).toEqual(exportsBefore);
    }
    // The same document without the failing link goes through.
    expect((await s.call('memory_data', { action: 'import', data: { ...linked, wiki_links: [] }, mode: 'replace', user_id: 'target' })).imported.episodes).toBe(30);
  });
});
