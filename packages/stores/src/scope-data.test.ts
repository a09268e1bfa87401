import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScopeDocument } from './scope-doc.js';
import { SCOPE_DOC_EXTRA_KINDS } from './scope-doc-extra.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

function seed(scope = U) {
  const s = env.stores;
  s.facts.upsert(scope, { key: 'city', value: 'Lyon', importance: 0.8, source: 'user_explicit', metadata: { origin: 'test' } });
  env.clock.advance(1000);
  s.episodes.add(scope, { summary: 'Hiked the Vercors', tags: ['trip', 'mood:happy'], emotional_weight: 0.7, context: 'before' });
  s.wiki.save(scope, { title: 'Trips', content: '# Trips\nVercors', wiki_type: 'diary', tags: ['travel'] });
  s.wiki.save(scope, { title: 'Review', content: 'good', wiki_type: 'retrospective' });
  s.wiki.link(scope, 'Review', 'Trips', 'review_of');
  const a = s.graph.addNode(scope, { content: 'Ana', node_type: 'person' });
  const b = s.graph.addNode(scope, { content: 'Lyon', node_type: 'place', tags: ['city'] });
  s.graph.addEdge(scope, { from: a.node_id, to: b.node_id, relation: 'mentions', strength: 0.4 });
  s.timeline.add(scope, { type: 'thought', summary: 'thinking', metadata: { training_value: 'high' } });
  s.sessions.start(scope);
  s.sessions.end(scope, { summary: 'done', topics: ['trip'] });
  s.scratchpad.write(scope, 'todo', 'pack');
}

/** A document without what differs between two scopes holding the same memories (ids, export time, scope). */
function comparable(doc: ScopeDocument) {
  const nodes = new Map(doc.graph_nodes.map((n) => [n.node_id, n.content]));
  return {
    ...doc,
    exported_at: null,
    user_id: null,
    layer: null,
    facts: doc.facts.map(({ entry_id: _id, ...f }) => f),
    episodes: doc.episodes.map(({ id: _id, ...e }) => e),
    wiki_pages: doc.wiki_pages.map(({ id: _id, path: _path, ...p }) => p),
    sessions: doc.sessions.map(({ id: _id, ...x }) => x),
    graph_nodes: doc.graph_nodes.map(({ node_id: _n, ...n }) => n),
    graph_edges: doc.graph_edges.map((e) => ({ ...e, from: nodes.get(e.from), to: nodes.get(e.to) })),
  };
}

describe('ScopeData', () => {
  it('round trip: export, import into another user_id, export again gives the same memories with their times', () => {
    seed();
    const doc = env.stores.scopeData.exportScope(U);
    expect(doc.facts[0]).toMatchObject({ key: 'city', value: 'Lyon', importance: 0.8, source: 'user_explicit', metadata: { origin: 'test' } });
    expect(doc.wiki_links).toEqual([{ from_title: 'Review', to_title: 'Trips', relation: 'review_of', created: expect.any(String) }]);
    env.clock.advance(3_600_000);
    const r = env.stores.scopeData.importScope(U2, JSON.parse(JSON.stringify(doc)), 'merge');
    expect(r.imported).toEqual({
      facts: 1,
      episodes: 1,
      wiki_pages: 2,
      wiki_links: 1,
      graph_nodes: 2,
      graph_edges: 1,
      timeline: 1,
      sessions: 1,
      scratchpad: 1,
      ...Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, 0])),
    });
    const again = env.stores.scopeData.exportScope(U2);
    expect(comparable(again)).toEqual(comparable(doc));
    // The imported page has its file (written after the commit, a slice at a time; flush finishes them), and search finds the imported memories.
    env.stores.flush();
    expect(fs.readFileSync(path.join(env.dir, env.stores.wiki.getByTitle(U2, 'Trips')!.path), 'utf8')).toBe('# Trips\nVercors');
    expect(env.stores.retrieval.search(U2, 'Vercors').length).toBeGreaterThan(0);
    // Importing the same document again adds nothing.
    const twice = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(Object.values(twice.imported).every((n) => n === 0)).toBe(true);
    expect(twice.skipped.facts).toBe(1);
  });

  it('merge keeps a fact of the same key and a page of the same title as the target holds them', () => {
    seed();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.facts.upsert(U2, { key: 'city', value: 'Paris' });
    env.stores.wiki.save(U2, { title: 'Trips', content: 'mine', wiki_type: 'diary' });
    const r = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(r.skipped).toMatchObject({ facts: 1, wiki_pages: 1 });
    expect(env.stores.facts.get(U2, 'city')?.value).toBe('Paris');
    expect(env.stores.wiki.getByTitle(U2, 'Trips')?.content).toBe('mine');
  });

  it('replace clears the target first, archiving its facts, episodes, nodes and pages', () => {
    seed();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.facts.upsert(U2, { key: 'old', value: 'gone' });
    env.stores.episodes.add(U2, { summary: 'old episode' });
    env.stores.scratchpad.write(U2, 'old', 'note');
    const r = env.stores.scopeData.importScope(U2, doc, 'replace');
    expect(r.cleared).toMatchObject({ facts: 1, episodes: 1, scratchpad: 1 });
    expect(r.archived).toBe(2);
    expect(env.stores.facts.get(U2, 'old')).toBeNull();
    expect(env.stores.shadowBin.list(U2).map((e) => e.origin_id).sort()).toEqual(['ep_2', 'old'].sort());
    expect(env.stores.facts.get(U2, 'city')?.value).toBe('Lyon');
  });

  it("replace empties the target's L1 ring and its file; merge leaves them", () => {
    seed();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.l1.push(U2, { text: 'old turn of the replaced memory', kind: 'thought' });
    const merged = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(merged.cleared_l1).toBe(0);
    expect(env.stores.l1.count(U2)).toBe(1);
    const r = env.stores.scopeData.importScope(U2, doc, 'replace');
    expect(r.cleared_l1).toBe(1);
    expect(env.stores.l1.count(U2)).toBe(0);
    env.stores.l1.flush();
    expect(JSON.parse(fs.readFileSync(env.stores.l1.fileFor(U2), 'utf8')).items).toEqual([]);
    // The source scope's ring is not the target's.
    env.stores.l1.push(U, { text: 'kept', kind: 'thought' });
    env.stores.scopeData.importScope(U2, doc, 'replace');
    expect(env.stores.l1.count(U)).toBe(1);
  });

  // Regression guard, fixed: a document holding one scratchpad key in both Unicode forms (as an older build could
  // store them) reported both imported while the second overwrote the first; an NFD key lost its times.
  it('scratchpad keys: one key in two forms imports the first and counts the other skipped; an NFD key keeps its times', () => {
    const doc = env.stores.scopeData.exportScope(U);
    const note = (key: string, content: string) => ({ key, content, created: '2025-03-01T00:00:00.000Z', updated: '2025-03-02T00:00:00.000Z' });
    doc.scratchpad = [note('caf\u00e9', 'first'), note('cafe\u0301', 'second'), note('cre\u0300me', 'third')];
    const r = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect([r.imported.scratchpad, r.skipped.scratchpad]).toEqual([2, 1]);
    expect(env.stores.scratchpad.get(U2, 'caf\u00e9')?.content).toBe('first');
    expect(env.stores.scratchpad.get(U2, 'cr\u00e8me')).toMatchObject({ content: 'third', created: '2025-03-01T00:00:00.000Z', updated: '2025-03-02T00:00:00.000Z' });
  });

  it('a malformed document names the path of the bad field and writes nothing', () => {
    seed();
    const doc = env.stores.scopeData.exportScope(U) as any;
    const before = env.db.prepare('SELECT COUNT(*) FROM audit_log').pluck(true).get();
    const bad = (mutate: (d: any) => void) => {
      const d = JSON.parse(JSON.stringify(doc));
      mutate(d);
      return d;
    };
    const cases: [(d: any) => void, string][] = [
      [(d) => (d.version = 99), 'data.version'],
      [(d) => (d.format = 'other'), 'data.format'],
      [(d) => d.facts.push({ key: '', value: 'x' }), 'data.facts[1].key'],
      [(d) => d.facts.push({ key: 'city', value: 'x' }), 'data.facts[1].key'],
      [(d) => d.facts.push({ key: 'blank', value: '   ' }), 'data.facts[1].value'],
      [(d) => d.facts.push({ key: 'invisible', value: '\u200b' }), 'data.facts[1].value'],
      [(d) => d.facts.push({ key: 'color\n## Recent turns', value: 'blue' }), 'data.facts[1].key'],
      [(d) => (d.episodes[0].importance = 2), 'data.episodes[0].importance'],
      [(d) => (d.wiki_pages[1].wiki_type = 'nope'), 'data.wiki_pages[1].wiki_type'],
      [(d) => (d.graph_edges[0].to = 'node_999'), 'data.graph_edges[0].to'],
      [(d) => (d.timeline[0].created = 'yesterday'), 'data.timeline[0].created'],
      // Times are read as the query tools read them (checkIsoTimestamp): no Date.parse guesses, no roll-over, no zone-less time, years 0000-9999.
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '1' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: 'March 7, 2026' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '2026-02-30' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', updated: '2026-02-31T10:00:00Z' }), 'data.facts[1].updated'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '2026-03-29T01:30:00' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '+010000-01-01T00:00:00Z' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '-000001-01-01T00:00:00Z' }), 'data.facts[1].created'],
      [(d) => d.facts.push({ key: 'k1', value: 'x', created: '9999-12-31T23:30:00-01:00' }), 'data.facts[1].created'],
      [(d) => (d.sessions[0].started = '2026-03-29 01:30'), 'data.sessions[0].started'],
      [(d) => (d.sessions[0].status = 'paused'), 'data.sessions[0].status'],
      [(d) => (d.scratchpad = 'x'), 'data.scratchpad'],
      [(d) => (d.extra = []), 'data.extra'],
      [(d) => (d.wiki_links[0].to_title = 'Missing'), 'data.wiki_links[0].to_title'],
    ];
    for (const [mutate, field] of cases) {
      expect(() => env.stores.scopeData.importScope(U2, bad(mutate), 'replace'), field).toThrow(expect.objectContaining({ field }));
    }
    expect(env.db.prepare('SELECT COUNT(*) FROM audit_log').pluck(true).get()).toBe(before);
    expect(env.stores.facts.count(U2)).toBe(0);
    expect(env.stores.episodes.count(U2)).toBe(0);
  });

  it('reads an imported time in UTC whatever the server zone, in the forms the query tools take', () => {
    const doc = env.stores.scopeData.exportScope(U2);
    doc.facts = [
      { key: 'offset', value: 'a', created: '2026-03-29t01:30:00+02', updated: '2026-03-29 01:30:00z' },
      { key: 'date', value: 'b', created: '2026-03-07', updated: '9999-12-31T23:59:59.999Z' },
    ] as never;
    env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(env.stores.facts.get(U2, 'offset')).toMatchObject({ created: '2026-03-28T23:30:00.000Z', updated: '2026-03-29T01:30:00.000Z' });
    expect(env.stores.facts.get(U2, 'date')).toMatchObject({ created: '2026-03-07T00:00:00.000Z', updated: '9999-12-31T23:59:59.999Z' });
  });

  it('refuses free JSON (metadata, meta, state_deltas, quality_detail, a branch entry\'s metadata) nested more than 100 levels, naming its path', () => {
    const nest = (n: number, list = false): unknown => {
      let v: unknown = 'leaf';
      for (let i = 0; i < n; i++) v = list ? [v] : { a: v };
      return v;
    };
    const session = { status: 'closed', started: '2025-01-01T00:00:00.000Z', ended: '2025-01-01T00:01:00.000Z', summary: 's' };
    const doc = (patch: (d: any) => void) => {
      const d: any = { format: 'memory-service-scope-export', version: 1, facts: [], episodes: [], wiki_pages: [], wiki_links: [], graph_nodes: [], graph_edges: [] };
      patch(d);
      return d;
    };
    const cases: [(d: any, depth: number) => void, string][] = [
      [(d, n) => d.facts.push({ key: 'k', value: 'v', metadata: nest(n) }), 'data.facts[0].metadata'],
      [(d, n) => d.episodes.push({ summary: 'e', meta: nest(n) }), 'data.episodes[0].meta'],
      [(d, n) => (d.timeline = [{ type: 't', summary: 's', metadata: nest(n) }]), 'data.timeline[0].metadata'],
      [(d, n) => (d.sessions = [{ ...session, state_deltas: nest(n, true) }]), 'data.sessions[0].state_deltas'],
      [(d, n) => (d.sessions = [{ ...session, quality: 3, quality_detail: nest(n) }]), 'data.sessions[0].quality_detail'],
      [(d, n) => (d.branches = [{ name: 'b', entries: [{ key: 'k', base_value: null, base_importance: null, value: 'v', importance: 0.5, metadata: nest(n) }] }]), 'data.branches[0].entries[0].metadata'],
    ];
    for (const [patch, field] of cases) {
      // 100 levels (the value itself the first) are taken; one more, or thousands (which overflowed the stack), are refused.
      for (const depth of [101, 5000]) {
        expect(() => env.stores.scopeData.importScope(U2, doc((d) => patch(d, depth)), 'merge'), `${field} ${depth}`).toThrow(
          expect.objectContaining({ field, accepted: 'JSON at most 100 levels deep', message: expect.stringMatching(/more than 100 levels deep/) }),
        );
      }
      env.stores.scopeData.importScope(U2, doc((d) => patch(d, 100)), 'replace');
    }
    expect(env.stores.facts.get(U2, 'k')).toBeNull();
    expect(env.stores.branches.list(U2)).toHaveLength(1);
  });

  it('refuses a scratchpad that would overflow the target, and never reads outside exports/', () => {
    const doc = env.stores.scopeData.exportScope(U);
    doc.scratchpad = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, content: 'x', created: '', updated: '' }));
    expect(() => env.stores.scopeData.importScope(A, doc, 'merge')).toThrow(expect.objectContaining({ field: 'data.scratchpad' }));
    expect(env.stores.scratchpad.count(A)).toBe(0);
    for (const name of ['../memory.db', 'a/b.json', '.json', 'x.txt']) expect(() => env.stores.scopeData.readFile(name)).toThrow(expect.objectContaining({ field: 'file' }));
    expect(() => env.stores.scopeData.readFile('missing.json')).toThrow(expect.objectContaining({ field: 'file', code: 'STORES_ERR_NOT_FOUND' }));
    const { file } = env.stores.scopeData.writeFile(doc);
    expect(file).toMatch(/^user-default-\d{8}T\d{9}Z\.json$/);
    expect(env.stores.scopeData.readFile(file)).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(env.stores.scopeData.writeFile(doc).file).toMatch(/-2\.json$/);
  });
});
