import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

function dump(table: string): string {
  storesOf(s).flush();
  return JSON.stringify(s.kernel.storage.db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all());
}

function rules(text: string): void {
  fs.writeFileSync(path.join(s.dataDir, 'rules.yaml'), text);
}

describe('memory_remember', () => {
  it('stores a user_explicit fact and a graph node, with secrets replaced by markers and counted', async () => {
    s = await start();
    const r = await s.call('memory_remember', {
      key: 'deploy',
      value: 'Deploy with Authorization: Bearer abcdefghijk12345 and AKIAIOSFODNN7EXAMPLE, password=hunter22',
      importance: 0.6,
    });
    expect(r).toMatchObject({
      key: 'deploy',
      value: 'Deploy with Authorization: Bearer [REDACTED:bearer_token] and [REDACTED:aws_access_key], password=[REDACTED:password]',
      importance: 0.6,
      requested_importance: 0.6,
      source: 'user_explicit',
      deduplicated: false,
      updated: false,
      redacted: { bearer_token: 1, aws_access_key: 1, password: 1 },
      redacted_total: 3,
      dedup_ttl_minutes: 30,
    });
    const fact = storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'deploy');
    expect(fact).toMatchObject({ entry_id: r.entry_id, value: r.value, metadata: { origin: 'memory_remember', derived_nodes: [r.node_id] } });
    expect(storesOf(s).graph.getNode({ layer: 'user', user_id: 'default' }, r.node_id)).toMatchObject({ node_type: 'fact', tags: ['remember'] });
    for (const t of ['facts', 'graph_nodes', 'audit_log']) expect(dump(t)).not.toMatch(/hunter22|AKIAIOSFODNN7EXAMPLE|abcdefghijk12345/);
  });

  it('answers deduplicated and writes nothing for the same key and value within 30 minutes, then writes again', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const first = await s.call('memory_remember', { key: 'editor', value: 'Helix' });
    expect(first.importance).toBe(0.7);
    clock.advance(29 * 60_000);
    const before = dump('facts') + dump('graph_nodes') + dump('audit_log');
    const again = await s.call('memory_remember', { key: 'editor', value: 'Helix' });
    expect(again).toMatchObject({ deduplicated: true, entry_id: first.entry_id, node_id: first.node_id });
    expect(dump('facts') + dump('graph_nodes') + dump('audit_log')).toBe(before);
    clock.advance(2 * 60_000);
    const later = await s.call('memory_remember', { key: 'editor', value: 'Helix' });
    expect(later).toMatchObject({ deduplicated: false, entry_id: first.entry_id, updated: false });
    const changed = await s.call('memory_remember', { key: 'editor', value: 'Zed' });
    expect(changed).toMatchObject({ deduplicated: false, updated: true, entry_id: first.entry_id, value: 'Zed' });
  });

  it('writes again after the clock stepped back: a fact last written after now is not within the 30 minutes', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 29, 1, 30));
    s = await start({ clock });
    const first = await s.call('memory_remember', { key: 'editor', value: 'Helix', importance: 0.5 });
    clock.set(Date.UTC(2026, 2, 29, 0, 30)); // an NTP correction: back by an hour
    const again = await s.call('memory_remember', { key: 'editor', value: 'Helix', importance: 0.9 });
    expect(again).toMatchObject({ deduplicated: false, updated: false, entry_id: first.entry_id, importance: 0.9 });
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'editor')!.updated).toBe('2026-03-29T00:30:00.000Z');
    clock.advance(60_000);
    expect((await s.call('memory_remember', { key: 'editor', value: 'Helix' })).deduplicated).toBe(true);
  });

  it('runs the importance gate: the write-gate boost (sum capped at 0.3), clamped to 0.05..1.0, and the rules\' tags on the node', async () => {
    s = await start();
    rules('- {when_content_contains: allergy, importance_boost: 0.2, tags: [health]}\n- {when_content_contains: [peanut, nuts], importance_boost: 0.25, tags: [food]}\n');
    const r = await s.call('memory_remember', { key: 'allergy', value: 'Peanut allergy', importance: 0.3 });
    expect(r).toMatchObject({ importance: 0.6, requested_importance: 0.3, gate_tags: ['health', 'food'] });
    expect(storesOf(s).graph.getNode({ layer: 'user', user_id: 'default' }, r.node_id)!.tags).toEqual(['remember', 'health', 'food']);
    expect((await s.call('memory_remember', { key: 'a2', value: 'nuts allergy', importance: 0.9 })).importance).toBe(1);
    expect((await s.call('memory_remember', { key: 'plain', value: 'likes tea', importance: 0.05 })).importance).toBe(0.05);
    expect((await s.call('memory_remember', { key: 'plain2', value: 'likes coffee', importance: 0.45 })).importance).toBe(0.45);
  });

  it('the write-gate rules match phrases folded (NFC and NFD, case, accents, \u0130, \u00df), as watch keywords do', async () => {
    s = await start();
    rules('- {when_content_contains: "caf\u00e9", importance_boost: 0.1, tags: [food]}\n- {when_content_contains: istanbul, importance_boost: 0.2, tags: [trip]}\n');
    const cafe = await s.call('memory_remember', { key: 'spot', value: 'The CAFE\u0301 on the corner', importance: 0.5 });
    expect(cafe).toMatchObject({ importance: 0.6, gate_tags: ['food'] });
    const trip = await s.call('memory_remember', { key: 'trip', value: 'Flying to \u0130STANBUL in May', importance: 0.5 });
    expect(trip).toMatchObject({ importance: 0.7, gate_tags: ['trip'] });
    expect(await s.call('memory_remember', { key: 'other', value: 'Flying to Ankara', importance: 0.5 })).toMatchObject({ importance: 0.5, gate_tags: [] });
  });

  it('names the field of a bad key, value, importance or layer, and writes nothing', async () => {
    s = await start();
    const before = dump('facts');
    expect((await toolError(s.call('memory_remember', { key: '', value: 'x' }))).field).toBe('key');
    expect((await toolError(s.call('memory_remember', { key: '   ', value: 'x' }))).field).toBe('key');
    expect((await toolError(s.call('memory_remember', { key: 'k', value: ' \n ' }))).field).toBe('value');
    expect((await toolError(s.call('memory_remember', { key: 'k' }))).field).toBe('value');
    expect((await toolError(s.call('memory_remember', { key: 'k', value: 'v', importance: 1.5 }))).field).toBe('importance');
    // A fact's importance is 0.05 to 1.0: below is refused, not clamped.
    for (const importance of [0, 0.04]) expect(await toolError(s.call('memory_remember', { key: 'k', value: 'v', importance }))).toMatchObject({ field: 'importance', accepted: { min: 0.05 } });
    expect((await toolError(s.call('memory_remember', { key: 'k', value: 'v', layer: 'auto' }))).field).toBe('layer');
    expect(dump('facts')).toBe(before);
  });

  it('keeps layers and user_ids apart: the same key in each scope is its own fact, and no dedup crosses scopes', async () => {
    s = await start();
    const u = await s.call('memory_remember', { key: 'name', value: 'Ann' });
    const a = await s.call('memory_remember', { key: 'name', value: 'Ann', layer: 'agent' });
    const b = await s.call('memory_remember', { key: 'name', value: 'Ann', user_id: 'bob' });
    expect(new Set([u.entry_id, a.entry_id, b.entry_id]).size).toBe(3);
    expect([u, a, b].map((x) => x.deduplicated)).toEqual([false, false, false]);
    expect(storesOf(s).facts.get({ layer: 'agent', user_id: 'default' }, 'name')!.entry_id).toBe(a.entry_id);
  });

  // Regression guard, fixed: a new value for a key made a second graph node and the fact named only it, so the old
  // value's node stayed (dream "Springfield Oregon" still found it) and forget, going by the fact's nodes, left it.
  it('a new value for a key replaces the old value\'s graph node, and forget leaves no node of either value', async () => {
    s = await start();
    const U = { layer: 'user' as const, user_id: 'default' };
    const first = await s.call('memory_remember', { key: 'home_city', value: 'I live in Springfield Oregon' });
    const second = await s.call('memory_remember', { key: 'home_city', value: 'I live in Shelbyville Kentucky' });
    expect(second).toMatchObject({ updated: true, entry_id: first.entry_id });
    expect(storesOf(s).graph.getNode(U, first.node_id)).toBeNull();
    expect(storesOf(s).graph.nodes(U).map((n) => n.content)).toEqual(['home_city: I live in Shelbyville Kentucky']);
    const before: any = await s.call('dream', { query: 'Springfield Oregon' });
    expect(before.result_count).toBe(0);
    expect(before.summary).not.toContain('I live in Springfield');

    await s.call('forget', { key: 'home_city' });
    const after: any = await s.call('dream', { query: 'Springfield Oregon' });
    expect(after.result_count).toBe(0);
    expect(after.summary).not.toContain('I live in Springfield');
    expect((await s.call('dream', { query: 'Shelbyville Kentucky' })).summary).not.toContain('I live in Shelbyville');
    expect(storesOf(s).graph.nodes(U).filter((n) => /Springfield|Shelbyville/.test(n.content))).toEqual([]);
    expect(dump('graph_nodes')).not.toMatch(/Springfield|Shelbyville/);
  });
});
