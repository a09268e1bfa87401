import { afterEach, describe, expect, it } from 'vitest';
import { createTestServer } from '@memory-service/testing';
import { ManualClock, primitives, start, storesOf, toolError, write, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const A = { layer: 'agent' as const, user_id: 'default' };

describe('memory_history list', () => {
  it('lists every value a fact held, newest first, with time, source and reason, by key or entry_id, paged', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const facts = storesOf(s).facts;
    const f = facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6, source: 'user_explicit' });
    clock.advance(60_000);
    facts.upsert(U, { key: 'city', value: 'Lyon', importance: 0.6, source: 'user_explicit' });
    clock.advance(60_000);
    facts.adjustImportance(f.entry_id, 0.05, 'agent_feedback');
    const r = await s.call('memory_history', { key: 'city' });
    expect(r).toMatchObject({ action: 'list', target: 'fact', key: 'city', total: 3, count: 3, offset: 0, next_offset: null });
    expect(r.current).toMatchObject({ entry_id: f.entry_id, value: 'Lyon', importance: 0.65 });
    expect(r.versions.map((v: any) => [v.op, v.value, v.importance, v.source, v.reason])).toEqual([
      ['update', 'Lyon', 0.65, 'user_explicit', 'importance:agent_feedback'],
      ['update', 'Lyon', 0.6, 'user_explicit', 'upsert'],
      ['create', 'Paris', 0.6, 'user_explicit', 'upsert'],
    ]);
    expect(new Date(r.versions[0].ts).getTime() - new Date(r.versions[2].ts).getTime()).toBe(120_000);
    expect(r.versions[0].version_id).toMatch(/^fv_\d+$/);
    expect(await s.call('memory_history', { entry_id: f.entry_id })).toEqual(r);
    const p = await s.call('memory_history', { key: 'city', limit: 2 });
    expect(p).toMatchObject({ count: 2, next_offset: 2 });
    const p2 = await s.call('memory_history', { key: 'city', limit: 2, offset: 2 });
    expect(p2.versions.map((v: any) => v.value)).toEqual(['Paris']);
    expect(p2.next_offset).toBeNull();
  });

  it('lists a wiki page\'s contents by title', async () => {
    s = await start();
    const wiki = storesOf(s).wiki;
    wiki.save(U, { title: 'Plan', content: 'first', wiki_type: 'work_notes' });
    wiki.save(U, { title: 'Plan', content: 'second', wiki_type: 'work_notes', tags: ['q1'] });
    const r = await s.call('memory_history', { title: ' Plan ' });
    expect(r).toMatchObject({ target: 'wiki_page', title: 'Plan', total: 2, current: { content: 'second', tags: ['q1'], wiki_type: 'work_notes' } });
    expect(r.versions.map((v: any) => [v.op, v.content, v.tags])).toEqual([
      ['update', 'second', ['q1']],
      ['create', 'first', []],
    ]);
    expect(r.versions[0].version_id).toMatch(/^wv_\d+$/);
  });

  it('after forget keeps only that the fact was deleted, none of its values', async () => {
    s = await start();
    storesOf(s).facts.upsert(U, { key: 'pin', value: 'old pin 1234' });
    storesOf(s).facts.upsert(U, { key: 'pin', value: 'new pin 9876' });
    await s.call('forget', { key: 'pin' });
    const r = await s.call('memory_history', { key: 'pin' });
    expect(r.current).toBeNull();
    expect(r.versions.map((v: any) => [v.op, v.value])).toEqual([['delete', null]]);
    expect(JSON.stringify(r)).not.toMatch(/1234|9876/);
  });

  it('names the field of a missing, doubled, malformed or unknown lookup', async () => {
    s = await start();
    storesOf(s).facts.upsert(U, { key: 'k', value: 'v' });
    expect((await toolError(s.call('memory_history', {}))).field).toBe('key');
    expect((await toolError(s.call('memory_history', { key: 'k', title: 'T' }))).field).toBe('title');
    for (const entry_id of ['12', 'fact_', 'ep_1', 'fv_1']) expect((await toolError(s.call('memory_history', { entry_id }))).field, entry_id).toBe('entry_id');
    expect(await toolError(s.call('memory_history', { entry_id: 'fact_999' }))).toMatchObject({ field: 'entry_id', type: 'NotFoundError' });
    expect((await toolError(s.call('memory_history', { key: 'nope' }))).field).toBe('key');
    expect((await toolError(s.call('memory_history', { title: 'Nope' }))).field).toBe('title');
    expect((await toolError(s.call('memory_history', { key: 'k', limit: 201 }))).field).toBe('limit');
    expect((await toolError(s.call('memory_history', { action: 'undo', key: 'k' }))).field).toBe('action');
  });

  it("never shows another layer's or user_id's history", async () => {
    s = await start();
    const f = storesOf(s).facts.upsert(A, { key: 'tone', value: 'dry humour' });
    expect((await toolError(s.call('memory_history', { key: 'tone' }))).field).toBe('key');
    expect((await toolError(s.call('memory_history', { entry_id: f.entry_id }))).field).toBe('entry_id');
    const other = await toolError(s.call('memory_history', { key: 'tone', ...A, user_id: 'bob' }));
    expect(other.field).toBe('key');
    expect(JSON.stringify(other)).not.toContain('dry humour');
    expect((await s.call('memory_history', { key: 'tone', ...A })).versions).toHaveLength(1);
  });
});

describe('memory_history restore', () => {
  it('writes an old fact value back as a new version; restoring what it holds already changes nothing', async () => {
    s = await start();
    const facts = storesOf(s).facts;
    facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.7, metadata: { typed: 'place' } });
    facts.upsert(U, { key: 'city', value: 'Lyon', importance: 0.4 });
    const old = (await s.call('memory_history', { key: 'city' })).versions[1];
    const r = await s.call('memory_history', { action: 'restore', version_id: old.version_id });
    expect(r).toMatchObject({ action: 'restore', target: 'fact', key: 'city', restored: { version_id: old.version_id, changed: true }, total: 3 });
    expect(r.versions[0]).toMatchObject({ op: 'update', value: 'Paris', importance: 0.7, reason: `restore:${old.version_id}` });
    expect(facts.get(U, 'city')).toMatchObject({ value: 'Paris', importance: 0.7, metadata: { typed: 'place' } });
    const again = await s.call('memory_history', { action: 'restore', version_id: old.version_id });
    expect(again).toMatchObject({ restored: { changed: false }, total: 3 });
  });

  it('writes an old page content back', async () => {
    s = await start();
    const wiki = storesOf(s).wiki;
    wiki.save(U, { title: 'Plan', content: 'first', wiki_type: 'work_notes' });
    wiki.save(U, { title: 'Plan', content: 'second', wiki_type: 'work_notes' });
    const old = (await s.call('memory_history', { title: 'Plan' })).versions[1];
    const r = await s.call('memory_history', { action: 'restore', version_id: old.version_id });
    expect(r).toMatchObject({ target: 'wiki_page', restored: { changed: true }, current: { content: 'first' } });
    expect(wiki.getByTitle(U, 'Plan')?.content).toBe('first');
  });

  it('names version_id when missing, malformed, unknown, of another scope or a deletion', async () => {
    s = await start();
    const facts = storesOf(s).facts;
    facts.upsert(A, { key: 'k', value: 'agent value' });
    const agentVersion = (await s.call('memory_history', { key: 'k', ...A })).versions[0].version_id;
    expect((await toolError(s.call('memory_history', { action: 'restore' }))).field).toBe('version_id');
    expect((await toolError(s.call('memory_history', { action: 'restore', version_id: 'fact_1' }))).field).toBe('version_id');
    expect((await toolError(s.call('memory_history', { action: 'restore', version_id: 'fv_999' }))).field).toBe('version_id');
    expect((await toolError(s.call('memory_history', { action: 'restore', version_id: agentVersion }))).field).toBe('version_id');
    expect(facts.get(U, 'k')).toBeNull();
    facts.delete(A, 'k');
    const del = (await s.call('memory_history', { key: 'k', ...A })).versions[0];
    expect(del.op).toBe('delete');
    expect((await toolError(s.call('memory_history', { action: 'restore', version_id: del.version_id, ...A }))).field).toBe('version_id');
    expect(facts.get(A, 'k')).toBeNull();
  });

  it('is refused, naming action, where memory_history is exposed through the insight tier only; list works there', async () => {
    s = await start({ expose: 'insight' });
    expect(await s.listTools()).toContain('memory_history');
    const facts = storesOf(s).facts;
    facts.upsert(U, { key: 'k', value: 'one' });
    facts.upsert(U, { key: 'k', value: 'two' });
    const old = (await s.call('memory_history', { key: 'k' })).versions[1];
    const err = await toolError(s.call('memory_history', { action: 'restore', version_id: old.version_id }));
    expect(err).toMatchObject({ field: 'action', type: 'TierError', accepted: ['list'] });
    expect(facts.get(U, 'k')?.value).toBe('two');
  });
});

describe('memory_history behind the MEMORY_META dispatchers', () => {
  it('answers list through the insight dispatcher and restore through the write one', async () => {
    s = await createTestServer({ plugins: [primitives, write], expose: 'agent', meta: true, clock: new ManualClock() });
    const facts = storesOf(s).facts;
    facts.upsert(U, { key: 'k', value: 'one' });
    facts.upsert(U, { key: 'k', value: 'two' });
    const names = await s.listTools();
    expect(names).toEqual(expect.arrayContaining(['memory_tier_insight', 'memory_tier_write']));
    expect(names).not.toContain('memory_history');
    const listed = await s.call('memory_tier_insight', { action: 'memory_history', args: { key: 'k' } });
    expect(listed.versions.map((v: any) => v.value)).toEqual(['two', 'one']);
    const r = await s.call('memory_tier_write', { action: 'memory_history', args: { action: 'restore', version_id: listed.versions[1].version_id } });
    expect(r.restored.changed).toBe(true);
    expect(facts.get(U, 'k')?.value).toBe('one');
  });
});
