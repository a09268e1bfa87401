import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { derivedNodeIds } from './graph.js';
import type { ScopeDocument } from './scope-doc.js';
import { U, U2, makeEnv, type Env } from './test-helpers.js';

/** memory_data import and the ids a document's records name: they must name the records the import wrote. */
let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

/** Records of the target written before the import, so its ids and the document's differ. */
function occupy(scope = U2) {
  const s = env.stores;
  for (let i = 0; i < 3; i++) s.graph.addNode(scope, { content: `precious node ${i}`, node_type: 'note' });
  for (let i = 0; i < 3; i++) s.episodes.add(scope, { summary: `own episode ${i}` });
  for (let i = 0; i < 3; i++) s.facts.upsert(scope, { key: `own ${i}`, value: `own value ${i}` });
  s.wiki.save(scope, { title: 'Own page', content: 'mine', wiki_type: 'diary' });
  s.sessions.start(scope);
  s.sessions.end(scope, { summary: 'own session' });
}

const nodeContents = (ids: string[], scope = U2) => ids.map((id) => env.stores.graph.getNode(scope, id)?.content);

describe('ScopeData import: the ids records name', () => {
  it("a fact's derived_nodes name the node the import wrote, so memory_remember replaces that node and no other", () => {
    const s = env.stores;
    s.rememberer.remember(U, { key: 'color', value: 'favourite colour is teal' });
    const ep = s.episodes.add(U, { summary: 'Alice is my sister', meta: { origin: 'think', derived_nodes: [s.graph.addNode(U, { content: 'Alice is sister', node_type: 'relation' }).node_id] } });
    const doc = s.scopeData.exportScope(U);
    occupy();
    s.scopeData.importScope(U2, doc, 'merge');
    const fact = s.facts.get(U2, 'color')!;
    expect(nodeContents(derivedNodeIds(fact.metadata))).toEqual(['color: favourite colour is teal']);
    const imported = s.episodes.list(U2).find((e) => e.summary === ep.summary)!;
    expect(nodeContents(derivedNodeIds(imported.meta))).toEqual(['Alice is sister']);
    s.rememberer.remember(U2, { key: 'color', value: 'favourite colour is green' });
    expect(s.graph.nodes(U2).map((n) => n.content).filter((c) => c.startsWith('precious'))).toHaveLength(3);
    expect(s.graph.nodes(U2).map((n) => n.content)).not.toContain('color: favourite colour is teal');
  });

  it("a long thought's link names the page the import wrote in the target user_id, in its metadata and its text", () => {
    const s = env.stores;
    const page = s.wiki.save(U, { title: 'Thought_1', content: 'A long thought. '.repeat(200), wiki_type: 'diary', tags: ['thought', 'long_thought'] });
    const link = `A long thought... [wiki: Thought_1 (${page.path})]`;
    s.episodes.add(U, { summary: link, meta: { origin: 'think', wiki_path: page.path } });
    s.facts.upsert(U, { key: 'thought:long', value: link, metadata: { origin: 'think', wiki_path: page.path } });
    const doc = s.scopeData.exportScope(U);
    occupy();
    s.scopeData.importScope(U2, doc, 'merge');
    const target = s.wiki.getByTitle(U2, 'Thought_1')!;
    expect(target.path).not.toBe(page.path);
    const ep = s.episodes.list(U2).find((e) => e.summary.startsWith('A long thought'))!;
    expect(ep.meta.wiki_path).toBe(target.path);
    expect(ep.summary).toBe(`A long thought... [wiki: Thought_1 (${target.path})]`);
    const fact = s.facts.get(U2, 'thought:long')!;
    expect([fact.metadata.wiki_path, fact.value]).toEqual([target.path, ep.summary]);
    // Without the pages' paths (a document written before them) the link's title finds the page.
    const old = JSON.parse(JSON.stringify(doc)) as ScopeDocument;
    for (const p of old.wiki_pages) delete p.path;
    s.scopeData.importScope({ layer: 'user', user_id: 'carol' }, old, 'merge');
    expect(s.episodes.list({ layer: 'user', user_id: 'carol' })[0]!.meta.wiki_path).toBe(s.wiki.getByTitle({ layer: 'user', user_id: 'carol' }, 'Thought_1')!.path);
  });

  it("timeline refs, from_episode, session_id, evolve's entry_id and a reflection's most recalled name the target's records", () => {
    const s = env.stores;
    const ep = s.episodes.add(U, { summary: 'We ship on Fridays' });
    const fact = s.facts.upsert(U, { key: 'episode:we ship', value: 'We ship on Fridays', metadata: { from_episode: ep.id } });
    const node = s.graph.addNode(U, { content: 'ship relates to Fridays', node_type: 'relation' });
    const page = s.wiki.save(U, { title: 'Shipping', content: 'notes', wiki_type: 'diary' });
    s.timeline.add(U, { type: 'thought', summary: 'ship', metadata: { refs: ['l1:l1_1', `l3:${ep.id}`, `l4:${fact.entry_id}`, `graph:${node.node_id}`, `wiki:${page.id}`, 'l3:ep_999'] } });
    s.timeline.add(U, { type: 'personality_shift', summary: 'be brief', metadata: { entry_id: fact.entry_id, key: fact.key } });
    const session = s.sessions.start(U);
    s.episodes.add(U, { summary: 'Session summary', meta: { origin: 'session_ended', session_id: session.id } });
    s.retrieval.touch([{ source: 'l3', id: ep.id } as never, { source: 'l4', id: fact.entry_id } as never]);
    s.reflections.write(U);
    const doc = s.scopeData.exportScope(U);
    // A most-recalled row of a record the document does not hold (forgotten since).
    doc.reflections[0]!.most_recalled.push({ source: 'l3', id: 'ep_999', text: 'gone', access_count: 1 });
    occupy();
    s.scopeData.importScope(U2, doc, 'merge');
    const ep2 = s.episodes.list(U2, { limit: 100 }).find((e) => e.summary === 'We ship on Fridays')!;
    const fact2 = s.facts.get(U2, 'episode:we ship')!;
    const node2 = s.graph.nodes(U2).find((n) => n.content === node.content)!;
    const page2 = s.wiki.getByTitle(U2, 'Shipping')!;
    expect(fact2.metadata.from_episode).toBe(ep2.id);
    const events = s.timeline.latest(U2, 10);
    expect(events.find((e) => e.type === 'thought')?.metadata.refs).toEqual([`l3:${ep2.id}`, `l4:${fact2.entry_id}`, `graph:${node2.node_id}`, `wiki:${page2.id}`]);
    expect(events.find((e) => e.type === 'personality_shift')?.metadata).toMatchObject({ entry_id: fact2.entry_id, key: fact.key });
    const summary = s.episodes.list(U2, { limit: 100 }).find((e) => e.summary === 'Session summary')!;
    expect(summary.meta.session_id).toBe(s.sessions.list(U2).find((x) => x.started === session.started)!.id);
    const r = s.reflections.list(U2)[0]!;
    expect(r.most_recalled.map((m) => m.id).sort()).toEqual([ep2.id, fact2.entry_id].sort());
    expect(r.summary).toContain(ep2.id);
    expect(r.summary).not.toContain('ep_999');
    // Importing again adds nothing: the re-pointed records are found as held.
    const twice = s.scopeData.importScope(U2, doc, 'merge');
    expect(Object.values(twice.imported).every((n) => n === 0)).toBe(true);
  });

  it("a skill page's episode tag and provenance name the episode the import wrote", () => {
    const s = env.stores;
    const ep = s.episodes.add(U, { summary: 'Rebase onto origin/main, then push with lease.' });
    s.skills.promoteEpisodes(U, [ep.id]);
    const doc = s.scopeData.exportScope(U);
    occupy();
    s.scopeData.importScope(U2, doc, 'merge');
    const ep2 = s.episodes.list(U2, { limit: 100 }).find((e) => e.summary === ep.summary)!;
    expect(ep2.id).not.toBe(ep.id);
    const page = s.skills.pageOf(U2, ep2.id);
    expect(page?.content).toContain(`promoted verbatim from episode ${ep2.id} (`);
    expect(s.skills.pageOf(U2, ep.id)).toBeNull();
  });

  it('references a document cannot map are dropped: a fact id of a document written before facts carried theirs, a proposal', () => {
    const s = env.stores;
    const fact = s.facts.upsert(U, { key: 'k', value: 'v', metadata: { proposal_id: 'prop_1', derived_nodes: ['node_77'] } });
    s.timeline.add(U, { type: 'thought', summary: 's', metadata: { refs: [`l4:${fact.entry_id}`] } });
    const doc = JSON.parse(JSON.stringify(s.scopeData.exportScope(U))) as ScopeDocument;
    for (const f of doc.facts) delete f.entry_id;
    occupy();
    s.scopeData.importScope(U2, doc, 'merge');
    expect(s.facts.get(U2, 'k')?.metadata).toEqual({});
    expect(s.timeline.latest(U2, 10).find((e) => e.summary === 's')?.metadata.refs).toEqual([]);
  });

  it('imported back into its own scope, every reference names the record it named before', () => {
    const s = env.stores;
    s.rememberer.remember(U, { key: 'color', value: 'teal' });
    const before = s.facts.get(U, 'color')!;
    const doc = s.scopeData.exportScope(U);
    s.facts.delete(U, 'color');
    s.scopeData.importScope(U, doc, 'merge');
    expect(s.facts.get(U, 'color')?.metadata.derived_nodes).toEqual(before.metadata.derived_nodes);
  });
});
