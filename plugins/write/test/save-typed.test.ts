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

// Regression guard, fixed: memory_save_typed stored its fields as given, while memory_remember strips
// secrets: a decision record holding an API key or a password kept it in L4.
describe('memory_save_typed strips secrets', () => {
  const KEY = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';
  const GH = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

  it('replaces secrets in every string field, list items and the name included, and says so', async () => {
    s = await start();
    const r = await s.call('memory_save_typed', {
      type: 'decision',
      fields: {
        name: 'deploy',
        decision: `Call the billing API with ${KEY} from the worker`,
        rationale: 'the staging password is hunter2xyz, rotated monthly',
        alternatives: [`a token from the vault (token=${GH})`, 'no key at all'],
      },
    });
    const stored = storesOf(s).facts.get(U, 'decision:deploy')!;
    for (const text of [r.value, JSON.stringify(r.fields), stored.value, JSON.stringify(stored.metadata)]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('hunter2xyz');
      expect(text).not.toContain(GH);
    }
    expect(r.fields).toEqual({
      name: 'deploy',
      decision: 'Call the billing API with [REDACTED:api_key] from the worker',
      rationale: 'the staging password is [REDACTED:password], rotated monthly',
      alternatives: ['a token from the vault (token=[REDACTED:github_token])', 'no key at all'],
    });
    expect(r).toMatchObject({ redacted: { api_key: 1, password: 1, github_token: 1 }, redacted_total: 3, redacted_fields: ['decision', 'rationale', 'alternatives'] });
    expect(stored.metadata.redacted).toEqual({ api_key: 1, password: 1, github_token: 1 });
    // Dream, the L4 search, finds the record without the secret.
    expect((await s.call('dream', { query: 'billing API worker' })).summary).not.toContain(KEY);
  });

  it('takes a field named like a secret as one, as it reads in the stored "field: value" line', async () => {
    s = await start();
    schema('credential.yaml', 'fields:\n  name: { type: string, required: true }\n  password: { type: string }\n  note: { type: string }\n');
    const r = await s.call('memory_save_typed', { type: 'credential', fields: { name: 'router', password: 'correct-horse', note: 'the admin page' } });
    expect(r.fields).toEqual({ name: 'router', password: '[REDACTED:password]', note: 'the admin page' });
    expect(r.value).toBe('name: router\npassword: [REDACTED:password]\nnote: the admin page');
    expect(r).toMatchObject({ redacted_total: 1, redacted_fields: ['password'] });
  });

  it('stores text without secrets unchanged and reports nothing redacted', async () => {
    s = await start();
    const r = await s.call('memory_save_typed', { type: 'decision', fields: { name: 'tokens', decision: 'Count tokens per request; the password policy needs 12 characters' } });
    expect(r.fields.decision).toBe('Count tokens per request; the password policy needs 12 characters');
    expect(r).toMatchObject({ redacted: {}, redacted_total: 0, redacted_fields: [] });
    expect(storesOf(s).facts.get(U, 'decision:tokens')!.metadata.redacted).toBeUndefined();
  });
});
