import { afterEach, describe, expect, it } from 'vitest';
import { dump, start, storesOf, toolError, USER, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const q = async (args: Record<string, unknown>): Promise<any> => s.call('memory_quality', args);

describe('memory_quality feedback', () => {
  it('useful adds 0.05 up to 1.0 and writes recall_useful; not useful subtracts 0.05 down to 0.05; every change is agent_feedback', async () => {
    s = await start();
    const f = storesOf(s).facts.upsert(USER, { key: 'editor', value: 'Uses Vim', importance: 0.9 });
    expect(await q({ action: 'feedback', entry_id: f.entry_id, useful: true })).toMatchObject({ action: 'feedback', entry_id: f.entry_id, key: 'editor', useful: true, old_importance: 0.9, importance: 0.95, changed: true });
    expect(await q({ action: 'feedback', entry_id: f.entry_id, useful: true })).toMatchObject({ importance: 1, changed: true });
    expect(await q({ action: 'feedback', entry_id: f.entry_id, useful: true })).toMatchObject({ old_importance: 1, importance: 1, changed: false });
    expect(await q({ action: 'feedback', entry_id: ` ${f.entry_id} `, useful: false })).toMatchObject({ importance: 0.95, changed: true });
    const low = storesOf(s).facts.upsert(USER, { key: 'low', value: 'rarely used', importance: 0.1 });
    expect((await q({ action: 'feedback', entry_id: low.entry_id, useful: false })).importance).toBe(0.05);
    expect(await q({ action: 'feedback', entry_id: low.entry_id, useful: false })).toMatchObject({ importance: 0.05, changed: false });
    const blame: any = await s.call('memory_fact_blame', { entry_id: f.entry_id });
    expect(blame.entry.importance).toBe(0.95);
    expect(blame.importance_history.map((h: any) => [h.old, h.new, h.reason])).toEqual([
      [0.9, 0.95, 'agent_feedback'],
      [0.95, 1, 'agent_feedback'],
      [1, 1, 'agent_feedback'],
      [1, 0.95, 'agent_feedback'],
    ]);
    expect(blame.audit_events.map((e: any) => e.action).filter((a: string) => a.startsWith('recall_'))).toEqual(['recall_useful', 'recall_useful', 'recall_useful', 'recall_not_useful']);
  });

  it('names entry_id for a malformed, unknown or other-scope fact, and useful or action when missing or wrong, changing nothing', async () => {
    s = await start();
    const f = storesOf(s).facts.upsert(USER, { key: 'editor', value: 'Uses Vim', importance: 0.5 });
    const before = dump(s, 'facts') + dump(s, 'importance_audit') + dump(s, 'audit_log');
    const err = async (args: Record<string, unknown>) => toolError(q({ action: 'feedback', useful: true, ...args }));
    expect((await err({ entry_id: 'fact_404' })).field).toBe('entry_id');
    expect((await err({ entry_id: 'fact_404' })).message).toContain('fact_404');
    expect((await err({ entry_id: 'ep_1' })).field).toBe('entry_id');
    expect((await err({ entry_id: 'editor' })).field).toBe('entry_id');
    expect((await err({ entry_id: f.entry_id, user_id: 'bob' })).field).toBe('entry_id');
    expect((await err({ entry_id: f.entry_id, layer: 'agent' })).field).toBe('entry_id');
    expect((await err({ entry_id: undefined })).field).toBe('entry_id');
    expect((await toolError(q({ action: 'feedback', entry_id: f.entry_id }))).field).toBe('useful');
    expect((await toolError(q({ action: 'feedback', entry_id: f.entry_id, useful: 'yes' }))).field).toBe('useful');
    expect((await toolError(q({ action: 'rate' }))).field).toBe('action');
    expect((await toolError(q({ action: 'report', limit: 201 }))).field).toBe('limit');
    expect(dump(s, 'facts') + dump(s, 'importance_audit') + dump(s, 'audit_log')).toBe(before);
  });
});

describe('memory_quality report', () => {
  it('aggregates per-entry useful counts with current importance, most useful first, paged, per layer and user_id', async () => {
    s = await start();
    const facts = storesOf(s).facts;
    const a = facts.upsert(USER, { key: 'a', value: 'alpha', importance: 0.5 });
    const b = facts.upsert(USER, { key: 'b', value: 'beta', importance: 0.5 });
    const bob = facts.upsert({ layer: 'user', user_id: 'bob' }, { key: 'a', value: 'alpha', importance: 0.5 });
    expect(await q({ action: 'report' })).toMatchObject({ entries: [], total: 0, useful_total: 0, not_useful_total: 0, next_offset: null });
    for (const [id, useful] of [[a.entry_id, true], [b.entry_id, true], [b.entry_id, true], [b.entry_id, false]] as const) await q({ action: 'feedback', entry_id: id, useful });
    await q({ action: 'feedback', entry_id: bob.entry_id, useful: false, user_id: 'bob' });
    const r = await q({ action: 'report' });
    expect(r).toMatchObject({ action: 'report', total: 2, useful_total: 3, not_useful_total: 1, next_offset: null });
    expect(r.entries.map((e: any) => [e.key, e.useful, e.not_useful, e.importance])).toEqual([
      ['b', 2, 1, 0.55],
      ['a', 1, 0, 0.55],
    ]);
    expect(await q({ action: 'report', limit: 1 })).toMatchObject({ next_offset: 1, entries: [{ key: 'b' }] });
    expect((await q({ action: 'report', limit: 1, offset: 1 })).entries.map((e: any) => e.key)).toEqual(['a']);
    expect((await q({ action: 'report', user_id: 'bob' })).entries).toMatchObject([{ entry_id: bob.entry_id, useful: 0, not_useful: 1, importance: 0.45 }]);
    expect((await q({ action: 'report', layer: 'agent' })).total).toBe(0);
  });
});
