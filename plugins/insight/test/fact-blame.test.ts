import { afterEach, describe, expect, it } from 'vitest';
import { dump, ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const AGENT = { layer: 'agent' };

describe('memory_fact_blame', () => {
  it('returns the fact evolve wrote, its importance history and its audit events, by entry_id or key, recording no access', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const evolved: any = await s.call('evolve', { instruction: 'Always answer in British English.' });
    clock.advance(1000);
    storesOf(s).facts.adjustImportance(evolved.entry_id, -0.05, 'agent_feedback');
    const before = dump(s, 'facts') + dump(s, 'recall_events');
    const r: any = await s.call('memory_fact_blame', { entry_id: evolved.entry_id, ...AGENT });
    expect(r.entry).toMatchObject({ entry_id: evolved.entry_id, key: evolved.key, value: 'Always answer in British English.', importance: 0.95 });
    expect(r.importance_history).toEqual([{ old: 1, new: 0.95, reason: 'agent_feedback', ts: expect.any(String) }]);
    expect(r.audit_events.map((e: any) => e.action)).toEqual(['create', 'importance']);
    expect(r.audit_events[1].detail).toMatchObject({ old: 1, new: 0.95, reason: 'agent_feedback' });
    expect(await s.call('memory_fact_blame', { key: evolved.key, ...AGENT })).toEqual(r);
    expect(dump(s, 'facts') + dump(s, 'recall_events')).toBe(before);
  });

  it('names entry_id or key for a missing, doubled, malformed or unknown lookup', async () => {
    s = await start();
    const evolved: any = await s.call('evolve', { instruction: 'Keep answers short.' });
    expect((await toolError(s.call('memory_fact_blame', AGENT))).field).toBe('entry_id');
    expect((await toolError(s.call('memory_fact_blame', { entry_id: evolved.entry_id, key: evolved.key, ...AGENT }))).field).toBe('key');
    for (const entry_id of ['12', 'fact_', 'fact_x', 'ep_1']) {
      expect((await toolError(s.call('memory_fact_blame', { entry_id, ...AGENT }))).field, entry_id).toBe('entry_id');
    }
    const unknown = await toolError(s.call('memory_fact_blame', { entry_id: 'fact_999', ...AGENT }));
    expect(unknown).toMatchObject({ field: 'entry_id' });
    expect(unknown.message).toContain('fact_999');
    expect((await toolError(s.call('memory_fact_blame', { key: 'no such key', ...AGENT }))).field).toBe('key');
  });

  it("never shows another layer's or user_id's fact", async () => {
    s = await start();
    const evolved: any = await s.call('evolve', { instruction: 'Keep answers short.' });
    expect((await toolError(s.call('memory_fact_blame', { entry_id: evolved.entry_id }))).field).toBe('entry_id');
    expect((await toolError(s.call('memory_fact_blame', { key: evolved.key }))).field).toBe('key');
    const other = await toolError(s.call('memory_fact_blame', { entry_id: evolved.entry_id, ...AGENT, user_id: 'bob' }));
    expect(other.field).toBe('entry_id');
    expect(JSON.stringify(other)).not.toContain('Keep answers short');
  });
});
