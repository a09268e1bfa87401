import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer, toolError, type TestServer } from '@memory-service/testing';
import { primitives, write } from './helpers.js';

/** The write tier behind MEMORY_META's dispatcher, as a model calls it. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_tier_write', () => {
  it("refuses a member's argument given beside action, so a clear meant for one key clears nothing", async () => {
    s = await createTestServer({ plugins: [primitives, write], expose: 'primitives,write', meta: true });
    for (const key of ['s1', 's2']) await s.call('memory_tier_write', { action: 'memory_scratchpad', args: { action: 'write', key, content: key } });
    const e = await toolError(s.call('memory_tier_write', { action: 'memory_scratchpad', args: { action: 'clear' }, key: 's2' }));
    expect(e).toMatchObject({ field: 'key', accepted: 'args.key' });
    const read: any = await s.call('memory_tier_write', { action: 'memory_scratchpad', args: { action: 'read' } });
    expect(read.entries.map((x: any) => x.key)).toEqual(['s1', 's2']);
    expect((await s.call('memory_tier_write', { action: 'memory_scratchpad', args: { action: 'clear', key: 's2' } })).removed).toBe(1);
  });

  it("memory_catalog describes a member's result as well as its input", async () => {
    s = await createTestServer({ plugins: [primitives, write], expose: 'primitives,write', meta: true });
    const [tool] = (await s.call('memory_catalog', { tool: 'memory_scratchpad' })).tools;
    expect(tool.input_schema).toMatchObject({ type: 'object' });
    expect(tool.output_schema).toMatchObject({ type: 'object' });
    expect(tool.call_via).toBe('memory_tier_write');
  });

  it("names a member's own field as args.<field>, and the member, so it is not read as the dispatcher's action", async () => {
    s = await createTestServer({ plugins: [primitives, write], expose: 'primitives,write', meta: true });
    const e = await toolError(s.call('memory_tier_write', { action: 'memory_stash', args: { action: 'pusj' } }));
    expect(e).toMatchObject({ field: 'args.action', accepted: ['push', 'list', 'show', 'pop', 'drop'] });
    expect(e.message).toMatch(/^memory_stash: .*"args\.action"/);
    // A store's own refusal too: the key a promote names is inside args.
    const missing = await toolError(s.call('memory_tier_write', { action: 'memory_scratchpad', args: { action: 'promote', key: 'nope', target: 'fact' } }));
    expect(missing.field).toBe('args.key');
  });
});
