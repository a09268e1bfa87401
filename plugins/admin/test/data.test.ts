import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function seed(user_id = 'default') {
  await s.call('think', { text: 'I moved to Lisbon last spring and I love the tram rides along the river.', user_id });
  await s.call('think', { text: 'Alice is my sister', user_id });
  const st = storesOf(s);
  const scope = { layer: 'user' as const, user_id };
  st.facts.upsert(scope, { key: 'city', value: 'Lisbon', importance: 0.9 });
  st.wiki.save(scope, { title: 'Lisbon notes', content: 'Trams and tiles.', wiki_type: 'diary', tags: ['travel'] });
  st.wiki.save(scope, { title: 'Lisbon review', content: 'Worth it.', wiki_type: 'retrospective' });
  st.wiki.link(scope, 'Lisbon review', 'Lisbon notes', 'review_of');
  st.sessions.start(scope);
  st.sessions.end(scope, { summary: 'talked about Lisbon', topics: ['travel'] });
  st.scratchpad.write(scope, 'todo', 'book tram tour');
}

/** A record's metadata with its derived_nodes given as the nodes' contents. */
const named = (meta: any, nodes: Map<unknown, unknown>) => (meta.derived_nodes ? { ...meta, derived_nodes: meta.derived_nodes.map((id: string) => nodes.get(id)) } : meta);

/** What stays the same between two scopes holding the same memories: no ids, no export time or scope. */
function comparable(doc: any) {
  const nodes = new Map(doc.graph_nodes.map((n: any) => [n.node_id, n.content]));
  return {
    ...doc,
    exported_at: null,
    layer: null,
    user_id: null,
    // Ids are each scope's own, and so are those the records name (re-pointed by the import): compared by what they name.
    facts: doc.facts.map(({ entry_id: _id, ...f }: any) => ({ ...f, metadata: named(f.metadata, nodes) })),
    episodes: doc.episodes.map(({ id: _id, ...e }: any) => ({ ...e, meta: named(e.meta, nodes) })),
    wiki_pages: doc.wiki_pages.map(({ id: _id, path: _path, ...p }: any) => p),
    sessions: doc.sessions.map(({ id: _id, ...x }: any) => x),
    graph_nodes: doc.graph_nodes.map(({ node_id: _n, ...n }: any) => n),
    graph_edges: doc.graph_edges.map((e: any) => ({ ...e, from: nodes.get(e.from), to: nodes.get(e.to) })),
    // The timeline events of think name their records by id.
    timeline: doc.timeline.map((t: any) => ({ ...t, metadata: { ...t.metadata, refs: undefined } })),
  };
}

describe('memory_data', () => {
  it('round trip: export a scope, import it into another user_id, export again: the same document', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed();
    const out = await s.call('memory_data', { action: 'export' });
    expect(out).toMatchObject({ action: 'export', layer: 'user', user_id: 'default' });
    expect(out.data).toMatchObject({ format: 'memory-service-scope-export', version: 1, layer: 'user', user_id: 'default' });
    expect(out.counts).toMatchObject({ facts: out.data.facts.length, wiki_pages: 2, wiki_links: 1, sessions: 1, scratchpad: 1 });
    expect(out.counts.episodes + out.counts.graph_nodes + out.counts.timeline).toBeGreaterThan(2);
    clock.advance(86_400_000);
    const imp = await s.call('memory_data', { action: 'import', data: out.data, user_id: 'carol' });
    expect(imp).toMatchObject({ action: 'import', mode: 'merge', user_id: 'carol', imported: out.counts });
    const again = await s.call('memory_data', { action: 'export', user_id: 'carol' });
    expect(comparable(again.data)).toEqual(comparable(out.data));
    // The imported memories are searchable in the new scope, and not in another.
    expect((await s.call('dream', { query: 'Lisbon tram', user_id: 'carol' })).result_count).toBeGreaterThan(0);
    expect((await s.call('dream', { query: 'Lisbon tram', user_id: 'dave' })).result_count).toBe(0);
  });

  it('export to a file under exports/ and import from that file; merge twice adds nothing', async () => {
    s = await start();
    await seed();
    const out = await s.call('memory_data', { action: 'export', to_file: true });
    expect(out.data).toBeUndefined();
    expect(out.file).toMatch(/^user-default-.*\.json$/);
    const file = path.join(s.dataDir, 'exports', out.file);
    expect(fs.statSync(file).size).toBe(out.bytes);
    const first = await s.call('memory_data', { action: 'import', file: out.file, layer: 'agent' });
    expect(first.imported.facts).toBe(out.counts.facts);
    const second = await s.call('memory_data', { action: 'import', file: out.file, layer: 'agent' });
    expect(Object.values(second.imported).every((n) => n === 0)).toBe(true);
    expect(second.skipped).toEqual(out.counts);
  });

  it('an export over 1 MB goes to a file even without to_file', async () => {
    s = await start();
    const st = storesOf(s);
    for (let i = 0; i < 12; i++) st.facts.upsert({ layer: 'user', user_id: 'big' }, { key: `k${i}`, value: `${i} ${'x'.repeat(90_000)}` });
    const out = await s.call('memory_data', { action: 'export', user_id: 'big' });
    expect(out.data).toBeUndefined();
    expect(out.bytes).toBeGreaterThan(1_000_000);
    expect(out.file).toMatch(/^user-big-.*\.json$/);
    expect(JSON.parse(fs.readFileSync(path.join(s.dataDir, 'exports', out.file), 'utf8')).facts).toHaveLength(12);
  });

  it('replace clears the target first, archived to the Shadow Bin and saved as an export file', async () => {
    s = await start();
    await seed();
    const out = await s.call('memory_data', { action: 'export' });
    storesOf(s).facts.upsert({ layer: 'user', user_id: 'erin' }, { key: 'old fact', value: 'to be replaced' });
    const r = await s.call('memory_data', { action: 'import', data: out.data, user_id: 'erin', mode: 'replace' });
    expect(r).toMatchObject({ mode: 'replace', archived: 1 });
    expect(r.cleared.facts).toBe(1);
    expect(r.previous_export).toMatch(/^user-erin-.*\.json$/);
    const prev = JSON.parse(fs.readFileSync(path.join(s.dataDir, 'exports', r.previous_export), 'utf8'));
    expect(prev.facts.map((f: any) => f.key)).toEqual(['old fact']);
    const st = storesOf(s);
    expect(st.facts.get({ layer: 'user', user_id: 'erin' }, 'old fact')).toBeNull();
    expect(st.shadowBin.list({ layer: 'user', user_id: 'erin' }).map((e) => e.origin_id)).toEqual(['old fact']);
    // A replace into an empty scope saves no previous export.
    expect((await s.call('memory_data', { action: 'import', data: out.data, user_id: 'frank', mode: 'replace' })).previous_export).toBeNull();
  });

  it('a malformed document is an error naming the bad field, and nothing is written', async () => {
    s = await start();
    await seed();
    const { data } = await s.call('memory_data', { action: 'export' });
    const count = () => s.kernel.storage.db.prepare("SELECT COUNT(*) FROM audit_log").pluck(true).get() as number;
    const before = count();
    const broken = (f: (d: any) => void) => {
      const d = structuredClone(data);
      f(d);
      return d;
    };
    const cases: [(d: any) => void, string][] = [
      [(d) => (d.facts[0].key = 42), 'data.facts[0].key'],
      [(d) => (d.facts[d.facts.length] = { value: 'no key' }), `data.facts[${data.facts.length}].key`],
      [(d) => (d.version = 2), 'data.version'],
      [(d) => delete d.format, 'data.format'],
      [(d) => (d.episodes[0].tags = 'x'), 'data.episodes[0].tags'],
      [(d) => (d.wiki_links[0].relation = 'likes'), 'data.wiki_links[0].relation'],
      [(d) => (d.scratchpad[0] = null), 'data.scratchpad[0]'],
      [(d) => (d.sessions[0].quality = 99), 'data.sessions[0].quality'],
      [(d) => (d.facts[0].value = '   '), 'data.facts[0].value'],
      [(d) => (d.facts[0].value = '\u200b'), 'data.facts[0].value'],
    ];
    for (const [f, field] of cases) {
      const e = await toolError(s.call('memory_data', { action: 'import', data: broken(f), user_id: 'gina', mode: 'replace' }));
      expect(e.field, field).toBe(field);
    }
    // A link to a page neither the document nor the target holds fails in the write: rolled back, and no previous export is left.
    storesOf(s).facts.upsert({ layer: 'user', user_id: 'gina' }, { key: 'kept', value: 'still here' });
    const before2 = count();
    const e = await toolError(s.call('memory_data', { action: 'import', data: broken((d) => (d.wiki_links[0].to_title = 'Nowhere')), user_id: 'gina', mode: 'replace' }));
    expect(e.field).toBe('data.wiki_links[0].to_title');
    expect(count()).toBe(before2);
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'gina' }, 'kept')?.value).toBe('still here');
    expect(count()).toBe(before + 1);
    expect(fs.existsSync(path.join(s.dataDir, 'exports'))).toBe(false);
    expect(storesOf(s).facts.count({ layer: 'user', user_id: 'gina' })).toBe(1);
  });

  it('an import whose free JSON nests more than 100 levels is refused naming its path (thousands overflowed the stack), and nothing is written', async () => {
    s = await start();
    const nest = (n: number): unknown => {
      let v: unknown = {};
      for (let i = 1; i < n; i++) v = { a: v };
      return v;
    };
    const doc = (metadata: unknown) => ({
      format: 'memory-service-scope-export',
      version: 1,
      facts: [{ key: 'fine', value: 'shallow', metadata: {} }, { key: 'deep', value: 'v', metadata }],
      episodes: [{ summary: 'e', meta: {} }],
    });
    for (const depth of [101, 5000]) {
      const e = await toolError(s.call('memory_data', { action: 'import', data: doc(nest(depth)) }));
      expect(e, String(depth)).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'data.facts[1].metadata', accepted: 'JSON at most 100 levels deep' });
    }
    expect(storesOf(s).facts.count({ layer: 'user', user_id: 'default' })).toBe(0);
    const ok = await s.call('memory_data', { action: 'import', data: doc(nest(100)) });
    expect(ok.imported.facts).toBe(2);
  });

  it('names data or file when an import has neither, both, or a bad file; export refuses import inputs', async () => {
    s = await start();
    expect((await toolError(s.call('memory_data', { action: 'import' }))).field).toBe('data');
    expect((await toolError(s.call('memory_data', { action: 'import', data: {}, file: 'x.json' }))).field).toBe('file');
    for (const file of ['../memory.db', '/etc/passwd', 'nested/x.json', 'missing.json']) {
      expect((await toolError(s.call('memory_data', { action: 'import', file }))).field, file).toBe('file');
    }
    fs.mkdirSync(path.join(s.dataDir, 'exports'));
    fs.writeFileSync(path.join(s.dataDir, 'exports', 'broken.json'), '{ not json');
    expect((await toolError(s.call('memory_data', { action: 'import', file: 'broken.json' }))).field).toBe('file');
    expect((await toolError(s.call('memory_data', { action: 'import', data: [] }))).field).toBe('data');
    expect((await toolError(s.call('memory_data', { action: 'export', data: {} }))).field).toBe('data');
    expect((await toolError(s.call('memory_data', { action: 'copy' }))).field).toBe('action');
    expect((await toolError(s.call('memory_data', { action: 'import', data: {}, mode: 'overwrite' }))).field).toBe('mode');
  });
});
