import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

function rules(text: string, mtimeSec?: number): void {
  const file = path.join(s.dataDir, 'rules.yaml');
  fs.writeFileSync(file, text);
  if (mtimeSec !== undefined) fs.utimesSync(file, mtimeSec, mtimeSec);
}

const U = { layer: 'user' as const, user_id: 'default' };
const LONG = 'The product launch is planned for Monday morning with the whole team on a call';

async function thinkEpisode(text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await s.call('think', { text, layer: 'user', ...extra });
  return r.actions.find((a: any) => a.store === 'l3').id;
}

describe('memory_load_rules', () => {
  it('lists no rules without a file, then the file\'s rules with its path and modification time', async () => {
    s = await start();
    expect(await s.call('memory_load_rules', {})).toEqual({
      action: 'list',
      path: path.join(s.dataDir, 'rules.yaml'),
      exists: false,
      mtime: null,
      in_force: 'none',
      rules: [],
      errors: [],
      boost_cap: 0.3,
    });
    rules('rules:\n  - name: launches\n    when_content_contains: [launch, release]\n    importance_boost: 0.2\n    tags: [milestone]\n', 1_750_000_000);
    const r = await s.call('memory_load_rules', { action: 'list' });
    expect(r).toMatchObject({
      exists: true,
      mtime: new Date(1_750_000_000_000).toISOString(),
      in_force: 'file',
      rules: [{ index: 0, name: 'launches', when_content_contains: ['launch', 'release'], importance_boost: 0.2, tags: ['milestone'] }],
      errors: [],
    });
  });

  it('lists an edit made right after a think, though that think had just looked at the file', async () => {
    s = await start();
    rules('- {when_content_contains: launch, importance_boost: 0.1}\n', 1_750_000_000);
    const first = storesOf(s).episodes.get(U, await thinkEpisode(LONG))!;
    rules('- {when_content_contains: launch, importance_boost: 0.2}\n', 1_750_000_100);
    expect((await s.call('memory_load_rules', { action: 'list' })).rules[0].importance_boost).toBe(0.2);
    // The look of list is the writes' too: the next think takes the edit.
    const second = storesOf(s).episodes.get(U, await thinkEpisode(`${LONG}, again`))!;
    expect(second.importance - first.importance).toBeCloseTo(0.1, 5);
  });

  it('is cached by modification time; reload reads the file again', async () => {
    s = await start();
    rules('- {when_content_contains: launch, importance_boost: 0.1}\n', 1_750_000_000);
    expect((await s.call('memory_load_rules', {})).rules[0].importance_boost).toBe(0.1);
    rules('- {when_content_contains: launch, importance_boost: 0.2}\n', 1_750_000_000);
    expect((await s.call('memory_load_rules', { action: 'list' })).rules[0].importance_boost).toBe(0.1);
    const reloaded = await s.call('memory_load_rules', { action: 'reload' });
    expect(reloaded).toMatchObject({ action: 'reload', rules: [{ importance_boost: 0.2 }] });
    rules('- {when_content_contains: launch, importance_boost: 0.3}\n', 1_750_000_500);
    expect((await s.call('memory_load_rules', {})).rules[0].importance_boost).toBe(0.3);
  });

  it('reports a bad file by rule index and field and keeps the previous good ruleset in force', async () => {
    s = await start();
    rules('- {when_content_contains: launch, importance_boost: 0.2, tags: [milestone]}\n', 1_750_000_000);
    await s.call('memory_load_rules', {});
    rules('- {when_content_contains: launch, importance_boost: 0.2}\n- {when_content_contains: x, importance_boost: 0.9, colour: red}\n', 1_750_000_100);
    const bad = await s.call('memory_load_rules', { action: 'reload' });
    expect(bad).toMatchObject({ in_force: 'previous', rules: [{ tags: ['milestone'] }] });
    expect(bad.errors).toEqual([{ index: 1, field: 'colour', message: expect.stringContaining('colour') }]);
    // The previous ruleset still applies to writes.
    expect((await s.call('memory_remember', { key: 'k', value: 'launch day', importance: 0.5 })).importance).toBe(0.7);
    rules('rules: [', 1_750_000_200);
    expect((await s.call('memory_load_rules', {})).errors).toEqual([{ index: null, field: 'file', message: expect.stringContaining('YAML') }]);
  });

  it('names action for an unknown action', async () => {
    s = await start();
    expect((await toolError(s.call('memory_load_rules', { action: 'write' }))).field).toBe('action');
  });

  it('boosts and tags only the episodes think writes whose text matches, in every layer and user_id, also with the write tier hidden', async () => {
    s = await start({ expose: 'primitives' });
    rules('- {when_content_contains: launch, importance_boost: 0.3, tags: [milestone, work]}\n');
    const plain = await thinkEpisode('A quiet afternoon reading a long novel on the sofa by the window');
    const id = await thinkEpisode(LONG);
    const ep = storesOf(s).episodes.get(U, id)!;
    expect(ep.tags).toEqual(['thought', 'milestone', 'work']);
    expect(storesOf(s).episodes.get(U, plain)!.tags).toEqual(['thought']);
    const history = storesOf(s).audit.history(id);
    expect(history).toEqual([expect.objectContaining({ reason: 'write_gate' })]);
    expect(ep.importance).toBeCloseTo(Math.min(1, history[0]!.old + 0.3), 4);
    const other = await thinkEpisode(LONG, { user_id: 'bob' });
    expect(storesOf(s).episodes.get({ layer: 'user', user_id: 'bob' }, other)!.tags).toEqual(['thought', 'milestone', 'work']);
  });
});
