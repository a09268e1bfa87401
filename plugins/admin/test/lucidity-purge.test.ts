import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const HOUR = 3_600_000;
const rows = (table: string, layer = 'user', user_id = 'default') =>
  s.kernel.storage.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE layer = ? AND user_id = ?`).pluck(true).get(layer, user_id) as number;

/** Memories of a scope through the primitives, plus a scratchpad entry (staging). */
async function remember(tag: string, extra: Record<string, unknown> = {}) {
  await s.call('think', { text: `My ${tag} neighbour plays the cello every evening after dinner, loudly and with great passion.`, layer: 'user', ...extra });
  await s.call('think', { text: `Short ${tag} fact`, layer: 'user', ...extra });
  storesOf(s).scratchpad.write({ layer: 'user', user_id: (extra.user_id as string) ?? 'default' }, `pad-${tag}`, `note ${tag}`);
}

describe('memory_lucidity_purge', () => {
  it('purges what the scope wrote in the last hours from every store and returns counts per store', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await remember('older');
    clock.advance(5 * HOUR);
    await remember('newer');
    const l3 = rows('episodes');
    const r = await s.call('memory_lucidity_purge', { hours: 2, confirm: true });
    expect(r).toMatchObject({ layer: 'user', user_id: 'default', hours: 2, deleted_scratchpad: 1 });
    expect(r.since).toBe(new Date(clock.now() - 2 * HOUR).toISOString());
    expect(r.deleted_l3 + r.deleted_l4).toBeGreaterThan(0);
    expect(r.deleted_audit).toBeGreaterThan(0);
    expect(rows('episodes')).toBe(l3 - r.deleted_l3);
    expect(storesOf(s).scratchpad.read({ layer: 'user', user_id: 'default' }).map((e) => e.key)).toEqual(['pad-older']);
    // dream finds the older memory, not the purged one.
    const d = await s.call('dream', { query: 'neighbour cello' });
    expect(d.summary).toContain('older');
    expect(d.summary).not.toContain('newer');
    const audit = s.kernel.storage.db.prepare("SELECT action FROM audit_log WHERE layer = 'user' AND ts >= ?").pluck(true).all(r.since) as string[];
    expect(audit).toContain('lucidity_purge');
    expect(audit).not.toContain('create');
  });

  it('counts the graph edges it deletes, an edge made in the window between two older nodes included', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const g = storesOf(s).graph;
    const U = { layer: 'user' as const, user_id: 'default' };
    const alice = g.addNode(U, { content: 'Alice', node_type: 'person' });
    const bob = g.addNode(U, { content: 'Bob', node_type: 'person' });
    clock.advance(5 * HOUR);
    g.addEdge(U, { from: bob.node_id, to: alice.node_id, relation: 'knows' });
    const r = await s.call('memory_lucidity_purge', { hours: 1, confirm: true });
    expect(r).toMatchObject({ deleted_graph: 0, deleted_graph_edges: 1 });
    expect(rows('graph_edges')).toBe(0);
    expect(rows('graph_nodes')).toBe(2);
    const tools = await s.client.listTools();
    const out = tools.tools.find((x) => x.name === 'memory_lucidity_purge')?.outputSchema as { properties: Record<string, unknown>; required?: string[] };
    expect(out.properties.deleted_graph_edges).toBeDefined();
    expect(out.required).toContain('deleted_graph_edges');
  });

  it('requires confirm true and refuses bad hours, deleting nothing', async () => {
    s = await start();
    await remember('kept');
    const before = rows('episodes') + rows('facts') + rows('scratchpad');
    expect((await toolError(s.call('memory_lucidity_purge', { hours: 1 }))).field).toBe('confirm');
    expect((await toolError(s.call('memory_lucidity_purge', { hours: 1, confirm: false }))).field).toBe('confirm');
    for (const hours of [0, -3, 721, 'ten']) expect((await toolError(s.call('memory_lucidity_purge', { hours, confirm: true }))).field, String(hours)).toBe('hours');
    expect((await toolError(s.call('memory_lucidity_purge', { confirm: true }))).field).toBe('hours');
    expect((await toolError(s.call('memory_lucidity_purge', { hours: 1, confirm: true, layer: 'both' }))).field).toBe('layer');
    expect(rows('episodes') + rows('facts') + rows('scratchpad')).toBe(before);
  });

  it('leaves other user_ids and the other layer alone', async () => {
    s = await start();
    await remember('alice');
    await remember('bob', { user_id: 'bob' });
    await s.call('evolve', { instruction: 'Answer briefly.' });
    const r = await s.call('memory_lucidity_purge', { hours: 1, confirm: true, user_id: 'bob' });
    expect(r.user_id).toBe('bob');
    expect(rows('episodes', 'user', 'bob') + rows('facts', 'user', 'bob') + rows('scratchpad', 'user', 'bob')).toBe(0);
    expect(rows('episodes') + rows('facts')).toBeGreaterThan(0);
    expect(rows('scratchpad')).toBe(1);
    expect(rows('facts', 'agent')).toBe(1);
  });

  it('is listed with its annotations on the admin surface', async () => {
    s = await start();
    const tools = await s.client.listTools();
    const t = tools.tools.find((x) => x.name === 'memory_lucidity_purge');
    expect(t?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  });
});
