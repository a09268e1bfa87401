import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const A = { layer: 'agent' as const, user_id: 'default' };

function seed(t: TestServer) {
  const facts = storesOf(t).facts;
  facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6 });
  facts.upsert(U, { key: 'pet', value: 'cat', importance: 0.5 });
  facts.upsert(U, { key: 'job', value: 'baker', importance: 0.5 });
}

describe('memory_branch', () => {
  it('creates a copy, edits it without touching live memory, diffs, merges in one go and deletes the branch', async () => {
    s = await start();
    seed(s);
    const created = await s.call('memory_branch', { action: 'create', name: 'Move Abroad' });
    expect(created).toMatchObject({ action: 'create', branch: { name: 'move-abroad', facts: 3, changes: 0 } });
    await s.call('memory_branch', { action: 'set', name: 'move-abroad', key: 'city', value: 'Berlin' });
    await s.call('memory_branch', { action: 'set', name: 'move-abroad', key: 'lang', value: 'German', importance: 0.8 });
    const unset = await s.call('memory_branch', { action: 'unset', name: 'move-abroad', key: 'pet' });
    expect(unset.branch).toMatchObject({ facts: 3, changes: 3 });
    expect(storesOf(s).facts.get(U, 'city')?.value).toBe('Paris');
    expect(storesOf(s).facts.get(U, 'lang')).toBeNull();
    expect(storesOf(s).facts.get(U, 'pet')?.value).toBe('cat');
    const d = await s.call('memory_branch', { action: 'diff', name: 'Move Abroad' });
    expect(d).toMatchObject({ action: 'diff', name: 'move-abroad' });
    expect(d.diff).toEqual({
      added: [{ key: 'lang', value: 'German', importance: 0.8, live_value: null }],
      changed: [{ key: 'city', base_value: 'Paris', base_importance: 0.6, value: 'Berlin', importance: 0.6, live_value: 'Paris' }],
      removed: [{ key: 'pet', base_value: 'cat', live_value: 'cat' }],
      conflicts: [],
    });
    const listed = await s.call('memory_branch', { action: 'list' });
    expect(listed.branches.map((b: any) => b.name)).toEqual(['move-abroad']);
    const m = await s.call('memory_branch', { action: 'merge', name: 'move-abroad' });
    expect(m).toMatchObject({ action: 'merge', name: 'move-abroad', merged: { added: ['lang'], changed: ['city'], removed: ['pet'], overwritten: [] } });
    const facts = storesOf(s).facts;
    expect(facts.get(U, 'city')?.value).toBe('Berlin');
    expect(facts.get(U, 'lang')).toMatchObject({ value: 'German', importance: 0.8 });
    expect(facts.get(U, 'pet')).toBeNull();
    expect(facts.get(U, 'job')?.value).toBe('baker');
    const h = await s.call('memory_history', { key: 'city' });
    expect(h.versions[0]).toMatchObject({ value: 'Berlin', reason: 'branch_merge:move-abroad' });
    expect((await s.call('memory_branch', { action: 'list' })).branches).toEqual([]);
  });

  it('refuses a merge over keys live memory changed since, naming force, writing nothing; force overwrites', async () => {
    s = await start();
    seed(s);
    await s.call('memory_branch', { action: 'create', name: 'b' });
    await s.call('memory_branch', { action: 'set', name: 'b', key: 'city', value: 'Berlin' });
    await s.call('memory_branch', { action: 'set', name: 'b', key: 'hobby', value: 'chess' });
    storesOf(s).facts.upsert(U, { key: 'city', value: 'Rome', importance: 0.6 });
    expect((await s.call('memory_branch', { action: 'diff', name: 'b' })).diff.conflicts).toEqual(['city']);
    const err = await toolError(s.call('memory_branch', { action: 'merge', name: 'b' }));
    expect(err).toMatchObject({ field: 'force', type: 'ConflictError' });
    expect(err.message).toContain('city');
    expect(storesOf(s).facts.get(U, 'city')?.value).toBe('Rome');
    expect(storesOf(s).facts.get(U, 'hobby')).toBeNull();
    const m = await s.call('memory_branch', { action: 'merge', name: 'b', force: true });
    expect(m.merged).toMatchObject({ changed: ['city'], added: ['hobby'], overwritten: ['city'] });
    expect(storesOf(s).facts.get(U, 'city')?.value).toBe('Berlin');
  });

  it('deletes a branch leaving live memory as it was', async () => {
    s = await start();
    seed(s);
    await s.call('memory_branch', { action: 'create', name: 'b' });
    await s.call('memory_branch', { action: 'unset', name: 'b', key: 'job' });
    expect((await s.call('memory_branch', { action: 'delete', name: 'b' })).branch).toMatchObject({ name: 'b', changes: 1 });
    expect(storesOf(s).facts.get(U, 'job')?.value).toBe('baker');
    expect((await toolError(s.call('memory_branch', { action: 'diff', name: 'b' }))).field).toBe('name');
  });

  it('refuses a blank value when set, naming value, so a merge stores no blank fact', async () => {
    s = await start();
    await s.call('memory_branch', { action: 'create', name: 'br' });
    for (const value of ['', '   ', '\u200b']) {
      expect(await toolError(s.call('memory_branch', { action: 'set', name: 'br', key: 'c', value })), JSON.stringify(value)).toMatchObject({
        code: 'KERNEL_ERR_VALIDATION',
        field: 'value',
        accepted: 'text with a visible character',
      });
    }
    expect((await s.call('memory_branch', { action: 'merge', name: 'br' })).merged.added).toEqual([]);
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'c')).toBeNull();
  });

  it('names the field of every bad input', async () => {
    s = await start();
    seed(s);
    expect((await toolError(s.call('memory_branch', { action: 'create' }))).field).toBe('name');
    expect((await toolError(s.call('memory_branch', { action: 'create', name: '../..' }))).field).toBe('name');
    expect((await toolError(s.call('memory_branch', { action: 'create', name: 'x'.repeat(81) }))).field).toBe('name');
    await s.call('memory_branch', { action: 'create', name: 'b' });
    expect(await toolError(s.call('memory_branch', { action: 'create', name: 'B' }))).toMatchObject({ field: 'name', type: 'ConflictError' });
    expect((await toolError(s.call('memory_branch', { action: 'set', name: 'b', value: 'v' }))).field).toBe('key');
    expect((await toolError(s.call('memory_branch', { action: 'set', name: 'b', key: 'k' }))).field).toBe('value');
    expect((await toolError(s.call('memory_branch', { action: 'set', name: 'b', key: 'k', value: 'v', importance: 2 }))).field).toBe('importance');
    expect((await toolError(s.call('memory_branch', { action: 'unset', name: 'b', key: 'nope' }))).field).toBe('key');
    expect((await toolError(s.call('memory_branch', { action: 'merge', name: 'nope' }))).field).toBe('name');
    expect((await toolError(s.call('memory_branch', { action: 'rebase', name: 'b' }))).field).toBe('action');
  });

  it('keeps layers and user_ids apart: a branch copies and merges only its own scope', async () => {
    s = await start();
    seed(s);
    storesOf(s).facts.upsert(A, { key: 'tone', value: 'dry' });
    const agent = await s.call('memory_branch', { action: 'create', name: 'b', ...A });
    expect(agent.branch.facts).toBe(1);
    expect((await s.call('memory_branch', { action: 'list' })).branches).toEqual([]);
    expect((await toolError(s.call('memory_branch', { action: 'diff', name: 'b', user_id: 'bob', layer: 'agent' }))).field).toBe('name');
    await s.call('memory_branch', { action: 'set', name: 'b', key: 'city', value: 'Oslo', ...A });
    await s.call('memory_branch', { action: 'merge', name: 'b', ...A });
    expect(storesOf(s).facts.get(A, 'city')?.value).toBe('Oslo');
    expect(storesOf(s).facts.get(U, 'city')?.value).toBe('Paris');
  });
});
