import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };

/** The spec: a fact's importance is "within 0.05 to 1.0". Every write-tier input that sets one takes exactly that. */
describe('fact importance inputs of the write tier: 0.05 to 1.0, refused outside naming importance', () => {
  it('memory_remember, memory_save_typed and memory_branch set publish 0.05..1 and refuse 0 as memory_branch set does; memory_scratchpad promote to a fact refuses it too', async () => {
    s = await start();
    const { tools } = await s.client.listTools();
    const imp = (name: string) => (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, any>).importance;
    for (const name of ['memory_remember', 'memory_save_typed', 'memory_branch']) expect([imp(name).minimum, imp(name).maximum], name).toEqual([0.05, 1]);
    expect(imp('memory_scratchpad').description).toContain('0.05..1.0');

    await s.call('memory_branch', { action: 'create', name: 'b' });
    await s.call('memory_scratchpad', { action: 'write', key: 'note', content: 'some text' });
    const calls: [string, Record<string, unknown>][] = [
      ['memory_branch', { action: 'set', name: 'b', key: 'bk', value: 'bv' }],
      ['memory_remember', { key: 'r', value: 'v' }],
      ['memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'Use SQLite' } }],
      ['memory_scratchpad', { action: 'promote', key: 'note', target: 'fact' }],
    ];
    for (const [name, args] of calls) {
      for (const importance of [0, 0.04]) {
        const err = await toolError(s.call(name, { ...args, importance }));
        expect(err, `${name} ${importance}`).toMatchObject({ field: 'importance', accepted: expect.objectContaining({ min: 0.05 }) });
      }
    }
    expect(storesOf(s).facts.list(U)).toEqual([]);
    // The lower bound itself is stored as asked.
    expect((await s.call('memory_remember', { key: 'r', value: 'v', importance: 0.05 })).importance).toBe(0.05);
    expect((await s.call('memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'Use SQLite' }, importance: 0.05 })).importance).toBe(0.05);
    expect((await s.call('memory_scratchpad', { action: 'promote', key: 'note', target: 'fact', importance: 0.05 })).fact.importance).toBe(0.05);
    // An episode's importance is 0..1: promoting to an episode still takes 0.
    await s.call('memory_scratchpad', { action: 'write', key: 'ep', content: 'an event' });
    expect((await s.call('memory_scratchpad', { action: 'promote', key: 'ep', target: 'episode', importance: 0 })).episode.importance).toBe(0);
  });
});
