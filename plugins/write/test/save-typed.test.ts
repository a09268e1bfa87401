import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

function schema(name: string, text: string): void {
  fs.mkdirSync(path.join(s.dataDir, 'schemas'), { recursive: true });
  fs.writeFileSync(path.join(s.dataDir, 'schemas', name), text);
}

const U = { layer: 'user' as const, user_id: 'default' };

describe('memory_save_typed', () => {
  it('stores each built-in type as <type>:<name> with metadata.typed, and updates it when saved again', async () => {
    s = await start();
    const d = await s.call('memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'Use SQLite', rationale: 'one file', alternatives: ['Postgres'] } });
    expect(d).toMatchObject({
      key: 'decision:db',
      type: 'decision',
      value: 'name: db\ndecision: Use SQLite\nrationale: one file\nalternatives: Postgres',
      fields: { name: 'db', decision: 'Use SQLite', rationale: 'one file', alternatives: ['Postgres'] },
      created_new: true,
      schema_source: 'builtin',
      warnings: [],
    });
    expect(storesOf(s).facts.get(U, 'decision:db')).toMatchObject({ source: 'user_explicit', metadata: { typed: 'decision' } });
    const e = await s.call('memory_save_typed', { type: 'error_pattern', fields: { name: 'eaddrinuse', symptom: 'EADDRINUSE on start', fix: 'kill the old server' } });
    expect(e.key).toBe('error_pattern:eaddrinuse');
    const r = await s.call('memory_save_typed', { type: 'relationship', fields: { name: 'ann', person: 'Ann', relation: 'sister' }, importance: 0.8 });
    expect(r).toMatchObject({ key: 'relationship:ann', importance: 0.8 });
    const again = await s.call('memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'Use Postgres', outcome: 'migrated' } });
    expect(again).toMatchObject({ entry_id: d.entry_id, created_new: false, value: 'name: db\ndecision: Use Postgres\noutcome: migrated' });
  });

  it('refuses an unknown type naming type and listing the accepted ones, and bad fields naming the field', async () => {
    s = await start();
    const unknown = await toolError(s.call('memory_save_typed', { type: 'recipe', fields: { name: 'x' } }));
    expect(unknown.field).toBe('type');
    expect(unknown.accepted).toEqual(['decision', 'error_pattern', 'relationship']);
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { name: 'x' } }))).field).toBe('fields.decision');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { decision: 'x' } }))).field).toBe('fields.name');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { name: 'x', decision: 42 } }))).field).toBe('fields.decision');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { name: 'x', decision: 'y', alternatives: 5 } }))).field).toBe('fields.alternatives');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { name: 'x', decision: 'y', mood: 'ok' } }))).field).toBe('fields.mood');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: 'x' }))).field).toBe('fields');
    expect((await toolError(s.call('memory_save_typed', { type: 'decision', fields: { name: 'x', decision: 'y' }, importance: -1 }))).field).toBe('importance');
    expect(storesOf(s).facts.list(U)).toEqual([]);
  });

  it('uses custom schemas from <data_dir>/schemas, a file named like a built-in replacing it', async () => {
    s = await start();
    schema('recipe.yaml', 'description: A dish\nfields:\n  name: {type: string, required: true}\n  serves: {type: number, required: true}\n  vegan: boolean\n');
    schema('relationship.yaml', 'fields:\n  name: {type: string, required: true}\n  since: {type: number, required: true}\n');
    const r = await s.call('memory_save_typed', { type: 'recipe', fields: { name: 'dal', serves: 4, vegan: true } });
    expect(r).toMatchObject({ key: 'recipe:dal', schema_source: 'custom', value: 'name: dal\nserves: 4\nvegan: true' });
    expect(storesOf(s).facts.get(U, 'recipe:dal')!.metadata.typed).toBe('recipe');
    expect((await toolError(s.call('memory_save_typed', { type: 'recipe', fields: { name: 'dal', serves: 'four' } }))).field).toBe('fields.serves');
    expect((await toolError(s.call('memory_save_typed', { type: 'relationship', fields: { name: 'ann', person: 'Ann', relation: 'sister' } }))).field).toBe('fields.person');
    expect((await s.call('memory_save_typed', { type: 'relationship', fields: { name: 'ann', since: 2019 } })).schema_source).toBe('custom');
    const accepted = (await toolError(s.call('memory_save_typed', { type: 'nope', fields: {} }))).accepted;
    expect(accepted).toEqual(['decision', 'error_pattern', 'recipe', 'relationship']);
  });

  it('skips a malformed schema file with a warning on the logger (stderr in a server), reports it and still saves', async () => {
    s = await start();
    const warn = vi.spyOn(storesOf(s).ctx.logger, 'warn');
    schema('broken.yaml', 'fields: [');
    schema('no_name.yaml', 'fields:\n  title: string\n');
    schema('../escape.yaml', 'fields:\n  name: {type: string, required: true}\n');
    const r = await s.call('memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'Use SQLite' } });
    expect(r.warnings.map((w: any) => w.file)).toEqual(['schemas/broken.yaml', 'schemas/no_name.yaml']);
    expect(warn.mock.calls.map((c) => String(c[0])).join('\n')).toContain('schemas/broken.yaml');
    expect((await toolError(s.call('memory_save_typed', { type: 'escape', fields: { name: 'x' } }))).field).toBe('type');
    expect((await toolError(s.call('memory_save_typed', { type: 'broken', fields: { name: 'x' } }))).field).toBe('type');
  });

  it('keeps typed facts in their layer and user_id', async () => {
    s = await start();
    await s.call('memory_save_typed', { type: 'decision', fields: { name: 'db', decision: 'SQLite' }, layer: 'agent' });
    expect(storesOf(s).facts.get(U, 'decision:db')).toBeNull();
    expect(storesOf(s).facts.get({ layer: 'agent', user_id: 'bob' }, 'decision:db')).toBeNull();
    expect(storesOf(s).facts.get({ layer: 'agent', user_id: 'default' }, 'decision:db')).not.toBeNull();
  });
});
