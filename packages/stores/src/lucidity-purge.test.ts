import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PURGE_HOURS_MAX } from './lucidity-purge.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const HOUR = 3_600_000;

/** One record of every kind the purge takes, in a scope, at the clock's time. */
function writeAll(scope: typeof U, word: string) {
  const s = env.stores;
  s.facts.upsert(scope, { key: `k-${word}`, value: `fact ${word}` });
  s.episodes.add(scope, { summary: `episode ${word}` });
  const a = s.graph.addNode(scope, { content: `node ${word}`, node_type: 'concept' });
  const b = s.graph.addNode(scope, { content: `other ${word}`, node_type: 'concept' });
  s.graph.addEdge(scope, { from: a.node_id, to: b.node_id, relation: 'relates_to' });
  s.wiki.save(scope, { title: `Page ${word}`, content: `page ${word}`, wiki_type: 'diary' });
  s.l1.push(scope, { text: `l1 ${word}` });
  s.timeline.add(scope, { type: 'thought', summary: `event ${word}` });
  s.recallEvents.record(scope, { query: `query ${word}`, intent: 'balanced', result_count: 0, ms: 1 });
  s.scratchpad.write(scope, `pad-${word}`, `note ${word}`);
  s.proposals.propose(scope, { kind: 'core_write', key: `proposed-${word}`, value: `proposal ${word}` });
}

const count = (table: string, scope: typeof U) =>
  env.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE layer = ? AND user_id = ?`).pluck(true).get(scope.layer, scope.user_id) as number;

describe('LucidityPurge', () => {
  it('deletes what the scope wrote in the window, in every store, and keeps what came before', () => {
    writeAll(U, 'old');
    env.clock.advance(3 * HOUR);
    writeAll(U, 'new');
    const r = env.stores.lucidityPurge.purge(U, 2);
    expect(r).toMatchObject({
      hours: 2,
      deleted_l4: 1,
      deleted_l3: 1,
      deleted_graph: 2,
      deleted_graph_edges: 1,
      deleted_wiki: 1,
      deleted_l1: 1,
      deleted_timeline: 1,
      deleted_recall_events: 1,
      deleted_scratchpad: 1,
      deleted_proposals: 1,
    });
    expect(r.deleted_audit).toBeGreaterThan(0);
    expect(r.since).toBe(new Date(env.clock.now() - 2 * HOUR).toISOString());
    for (const t of ['facts', 'episodes', 'wiki_pages', 'l1_items', 'timeline_events', 'recall_events', 'scratchpad', 'proposals']) expect(count(t, U), t).toBe(1);
    expect(count('graph_nodes', U)).toBe(2);
    expect(count('graph_edges', U)).toBe(1);
    expect(env.stores.facts.get(U, 'k-old')).not.toBeNull();
    expect(env.stores.scratchpad.get(U, 'pad-new')).toBeNull();
    // The window's search hits are gone, the old ones found.
    expect(env.stores.retrieval.search(U, 'episode').map((h) => h.text)).toEqual(['episode old']);
    // The deleted page's file goes with it.
    expect(fs.existsSync(path.join(env.dir, 'wiki', 'user', 'default', 'diary', 'page-new.md'))).toBe(false);
    expect(fs.existsSync(path.join(env.dir, 'wiki', 'user', 'default', 'diary', 'page-old.md'))).toBe(true);
  });

  it("leaves the audit rows before the window and its own content-free trail; the change log keeps no deleted text", () => {
    env.clock.advance(3 * HOUR);
    writeAll(U, 'secretword');
    env.stores.lucidityPurge.purge(U, 1);
    const rows = env.db.prepare('SELECT action, detail FROM audit_log WHERE layer = ? AND user_id = ?').all('user', 'default') as { action: string; detail: string }[];
    expect(rows.map((r) => r.action)).toContain('lucidity_purge');
    expect(JSON.stringify(rows)).not.toContain('secretword');
    const old = env.db.prepare("SELECT COUNT(*) FROM retrieval_changes WHERE old LIKE '%secretword%'").pluck(true).get();
    expect(old).toBe(0);
  });

  it('deletes nothing dated after now: a clock stepped back leaves the records written while it ran ahead', () => {
    env.clock.advance(2 * HOUR);
    writeAll(U, 'ahead');
    const s = env.stores;
    s.sessions.start(U);
    const sess = s.sessions.end(U, { summary: 'ahead summary', topics: ['ahead'] });
    const tables = ['facts', 'episodes', 'graph_nodes', 'graph_edges', 'wiki_pages', 'l1_items', 'timeline_events', 'recall_events', 'scratchpad', 'proposals', 'audit_log'];
    const before = Object.fromEntries(tables.map((t) => [t, count(t, U)]));
    env.clock.t -= HOUR; // the clock corrected back: every record above is an hour in the future
    const r = env.stores.lucidityPurge.purge(U, 0.01);
    for (const [k, v] of Object.entries(r)) if (k.startsWith('deleted_') || k === 'scrubbed_sessions') expect(v, k).toBe(0);
    for (const t of tables.filter((x) => x !== 'audit_log')) expect(count(t, U), t).toBe(before[t]);
    expect(count('audit_log', U)).toBeGreaterThanOrEqual(before.audit_log);
    expect(s.sessions.get(sess.id)?.summary).toBe('ahead summary');
  });

  it('never touches another layer or user_id', () => {
    writeAll(U, 'mine');
    writeAll(A, 'agent');
    writeAll(U2, 'bob');
    env.stores.lucidityPurge.purge(U, 1);
    expect(count('facts', U)).toBe(0);
    for (const scope of [A, U2]) {
      for (const t of ['facts', 'episodes', 'graph_nodes', 'wiki_pages', 'l1_items', 'timeline_events', 'recall_events', 'scratchpad', 'audit_log']) {
        expect(count(t, scope), `${scope.layer}/${scope.user_id} ${t}`).toBeGreaterThan(0);
      }
    }
  });

  it("spares a project's spec page and keeps a fact created before the window and updated in it", () => {
    env.stores.facts.upsert(U, { key: 'kept', value: 'first' });
    env.clock.advance(2 * HOUR);
    env.stores.facts.upsert(U, { key: 'kept', value: 'second' });
    env.stores.wiki.save(U, { title: 'Spec', content: 'spec', wiki_type: 'project_spec', tags: ['project'] });
    const r = env.stores.lucidityPurge.purge(U, 1);
    expect(r.deleted_l4).toBe(0);
    expect(r.deleted_wiki).toBe(0);
    expect(env.stores.facts.get(U, 'kept')?.value).toBe('second');
  });

  it('refuses hours that are not above 0 and at most the maximum, naming hours', () => {
    for (const h of [0, -1, PURGE_HOURS_MAX + 1, Number.NaN, Infinity]) {
      expect(() => env.stores.lucidityPurge.purge(U, h)).toThrow(expect.objectContaining({ field: 'hours' }));
    }
    expect(env.stores.lucidityPurge.purge(U, 0.5).hours).toBe(0.5);
  });
});
