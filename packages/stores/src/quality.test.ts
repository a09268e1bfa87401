import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('QualityStore', () => {
  it('moves importance by 0.05 within 0.05..1.0, logs agent_feedback and a recall_useful / recall_not_useful row', () => {
    const f = env.stores.facts.upsert(U, { key: 'k', value: 'v', importance: 0.95 });
    const q = env.stores.quality;
    expect(q.feedback(U, f.entry_id, true)).toMatchObject({ old_importance: 0.95, importance: 1, changed: true, key: 'k' });
    expect(q.feedback(U, f.entry_id, true)).toMatchObject({ old_importance: 1, importance: 1, changed: false });
    expect(q.feedback(U, f.entry_id, false)).toMatchObject({ old_importance: 1, importance: 0.95, changed: true });
    const low = env.stores.facts.upsert(U, { key: 'low', value: 'v', importance: 0.05 });
    expect(q.feedback(U, low.entry_id, false)).toMatchObject({ importance: 0.05, changed: false });
    expect(env.stores.audit.history(f.entry_id).map((h) => [h.old, h.new, h.reason])).toEqual([
      [0.95, 1, 'agent_feedback'],
      [1, 1, 'agent_feedback'],
      [1, 0.95, 'agent_feedback'],
    ]);
    const actions = env.stores.audit.forTargetInScope(U, f.entry_id).map((e) => e.action);
    expect(actions.filter((a) => a.startsWith('recall_'))).toEqual(['recall_useful', 'recall_useful', 'recall_not_useful']);
  });

  it('refuses a fact of another scope or an unknown or malformed entry_id, naming entry_id, and writes nothing', () => {
    const f = env.stores.facts.upsert(U, { key: 'k', value: 'v', importance: 0.5 });
    for (const [scope, id] of [[U2, f.entry_id], [A, f.entry_id], [U, 'fact_999'], [U, 'ep_1'], [U, 'nope']] as const) {
      expect(() => env.stores.quality.feedback(scope, id, true)).toThrow(expect.objectContaining({ field: 'entry_id' }));
    }
    expect(() => env.stores.quality.feedback(U, 'fact_999', true)).toThrow(/fact_999/);
    expect(env.stores.facts.get(U, 'k')?.importance).toBe(0.5);
    expect(env.stores.audit.history(f.entry_id)).toEqual([]);
  });

  it('reports per-fact useful and not-useful counts with current importance, most useful first, in its scope only', () => {
    const s = env.stores;
    const a = s.facts.upsert(U, { key: 'a', value: 'v', importance: 0.5 });
    const b = s.facts.upsert(U, { key: 'b', value: 'v', importance: 0.5 });
    const c = s.facts.upsert(U, { key: 'c', value: 'v', importance: 0.5 });
    const bob = s.facts.upsert(U2, { key: 'a', value: 'v', importance: 0.5 });
    s.quality.feedback(U, a.entry_id, true);
    s.quality.feedback(U, b.entry_id, true);
    s.quality.feedback(U, b.entry_id, true);
    s.quality.feedback(U, b.entry_id, false);
    s.quality.feedback(U, c.entry_id, false);
    s.quality.feedback(U2, bob.entry_id, true);
    const r = s.quality.report(U);
    expect(r).toMatchObject({ total: 3, useful: 3, not_useful: 2 });
    expect(r.entries.map((e) => [e.entry_id, e.useful, e.not_useful, e.importance])).toEqual([
      [b.entry_id, 2, 1, 0.55],
      [a.entry_id, 1, 0, 0.55],
      [c.entry_id, 0, 1, 0.45],
    ]);
    expect(s.quality.report(U, { limit: 1, offset: 1 }).entries.map((e) => e.key)).toEqual(['a']);
    expect(s.quality.report(U2).entries.map((e) => e.entry_id)).toEqual([bob.entry_id]);
    expect(s.quality.report(A)).toMatchObject({ total: 0, entries: [] });
    // A deleted fact has no current importance: it leaves the report.
    s.facts.delete(U, 'b');
    expect(s.quality.report(U).entries.map((e) => e.key)).toEqual(['a', 'c']);
  });

  // Regression guard, fixed: the report read every audit row of the scope (audit_log_scope) to find the feedback rows.
  it('reads the feedback rows through their partial index, which the writes of other actions never touch', () => {
    const plans = (sql: string) => (env.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('user', 'default') as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(
      plans("SELECT target_id, COUNT(*) FROM audit_log WHERE layer = ? AND user_id = ? AND action IN ('recall_useful', 'recall_not_useful') GROUP BY target_id"),
    ).toMatch(/USING (COVERING )?INDEX audit_log_feedback/);
    const f = env.stores.facts.upsert(U, { key: 'k', value: 'v' });
    env.stores.quality.feedback(U, f.entry_id, true);
    env.stores.episodes.add(U, { summary: 'no feedback here' });
    const indexed = env.db.prepare("SELECT COUNT(*) FROM audit_log INDEXED BY audit_log_feedback WHERE layer = 'user' AND user_id = 'default' AND action IN ('recall_useful', 'recall_not_useful')").pluck(true).get();
    expect(indexed).toBe(1);
    expect(env.stores.quality.report(U)).toMatchObject({ total: 1, useful: 1 });
  });
});
