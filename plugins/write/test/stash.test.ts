import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const U = { layer: 'user' as const, user_id: 'default' };
const A = { layer: 'agent' as const, user_id: 'default' };

describe('memory_stash', () => {
  it('push empties the pad into a stash; pop restores its entries, dates and order, newest stash by default', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const pad = storesOf(s).scratchpad;
    pad.write(U, 'plan', 'step 1');
    clock.advance(1000);
    pad.write(U, 'todo', 'call Ann');
    const before = pad.read(U);
    const pushed = await s.call('memory_stash', { action: 'push', note: 'switching to the bug' });
    expect(pushed).toMatchObject({ action: 'push', stash: { name: 'stash-1', note: 'switching to the bug', keys: ['plan', 'todo'] }, pad_count: 0 });
    expect(pushed.entries.map((e: any) => e.content)).toEqual(['step 1', 'call Ann']);
    expect(pad.count(U)).toBe(0);
    pad.write(U, 'bug', 'null deref');
    await s.call('memory_stash', { action: 'push', name: 'Bug Hunt' });
    const list = await s.call('memory_stash', { action: 'list' });
    expect(list.stashes.map((x: any) => [x.name, x.keys])).toEqual([
      ['bug-hunt', ['bug']],
      ['stash-1', ['plan', 'todo']],
    ]);
    expect((await s.call('memory_stash', { action: 'show', name: 'stash-1' })).entries).toEqual(before);
    const popped = await s.call('memory_stash', { action: 'pop', name: 'stash-1' });
    expect(popped).toMatchObject({ action: 'pop', stash: { name: 'stash-1' }, pad_count: 2 });
    expect(pad.read(U)).toEqual(before);
    expect((await s.call('memory_stash', { action: 'pop' })).stash.name).toBe('bug-hunt');
    expect(pad.read(U).map((e) => e.key)).toEqual(['plan', 'todo', 'bug']);
    expect((await s.call('memory_stash', { action: 'list' })).stashes).toEqual([]);
  });

  it('refuses a pop past the 20-entry scratchpad limit or over a key in the pad again, naming name, losing nothing', async () => {
    s = await start();
    const pad = storesOf(s).scratchpad;
    pad.write(U, 'a', 'stashed a');
    pad.write(U, 'b', 'stashed b');
    await s.call('memory_stash', { action: 'push', name: 'work' });
    for (let i = 0; i < 19; i++) pad.write(U, `k${i}`, 'x');
    const over = await toolError(s.call('memory_stash', { action: 'pop', name: 'work' }));
    expect(over).toMatchObject({ field: 'name', accepted: { max_entries: 20 } });
    expect(over.message).toContain('20');
    expect(pad.count(U)).toBe(19);
    pad.clear(U);
    pad.write(U, 'a', 'new a');
    const clash = await toolError(s.call('memory_stash', { action: 'pop', name: 'work' }));
    expect(clash).toMatchObject({ field: 'name', type: 'ConflictError' });
    expect(pad.get(U, 'a')?.content).toBe('new a');
    expect((await s.call('memory_stash', { action: 'show', name: 'work' })).stash.keys).toEqual(['a', 'b']);
  });

  it('drops a stash, and names the field of every bad input', async () => {
    s = await start();
    const pad = storesOf(s).scratchpad;
    expect((await toolError(s.call('memory_stash', { action: 'push' }))).field).toBe('action');
    expect((await toolError(s.call('memory_stash', { action: 'pop' }))).field).toBe('name');
    pad.write(U, 'a', '1');
    expect((await toolError(s.call('memory_stash', { action: 'push', name: '***' }))).field).toBe('name');
    expect((await toolError(s.call('memory_stash', { action: 'push', note: 'n'.repeat(501) }))).field).toBe('note');
    await s.call('memory_stash', { action: 'push', name: 's' });
    pad.write(U, 'b', '2');
    expect(await toolError(s.call('memory_stash', { action: 'push', name: 'S' }))).toMatchObject({ field: 'name', type: 'ConflictError' });
    expect(pad.count(U)).toBe(1);
    expect((await toolError(s.call('memory_stash', { action: 'drop' }))).field).toBe('name');
    expect((await s.call('memory_stash', { action: 'drop', name: 's' })).stash).toMatchObject({ name: 's', keys: ['a'] });
    expect((await toolError(s.call('memory_stash', { action: 'drop', name: 's' }))).field).toBe('name');
    expect((await toolError(s.call('memory_stash', { action: 'show', name: 's' }))).field).toBe('name');
    expect(pad.read(U).map((e) => e.key)).toEqual(['b']);
  });

  it('keeps stash names in every script apart: "Идея 1" and "Мысль 1" are two stashes', async () => {
    s = await start();
    const pad = storesOf(s).scratchpad;
    pad.write(U, 'a', 'stash A content');
    expect((await s.call('memory_stash', { action: 'push', name: 'Идея 1' })).stash.name).toBe('идея-1');
    pad.write(U, 'b', 'stash B content');
    expect((await s.call('memory_stash', { action: 'push', name: 'Мысль 1' })).stash.name).toBe('мысль-1');
    expect((await s.call('memory_stash', { action: 'pop', name: 'идея 1' })).entries.map((e: any) => e.content)).toEqual(['stash A content']);
  });

  it('keeps layers and user_ids apart', async () => {
    s = await start();
    const pad = storesOf(s).scratchpad;
    pad.write(U, 'mine', 'user note');
    pad.write(A, 'agent', 'agent note');
    await s.call('memory_stash', { action: 'push', name: 's' });
    expect(pad.count(A)).toBe(1);
    expect((await s.call('memory_stash', { action: 'list', ...A })).stashes).toEqual([]);
    expect((await toolError(s.call('memory_stash', { action: 'pop', name: 's', ...A }))).field).toBe('name');
    expect((await toolError(s.call('memory_stash', { action: 'pop', name: 's', user_id: 'bob' }))).field).toBe('name');
    await s.call('memory_stash', { action: 'pop', name: 's' });
    expect(pad.read(U).map((e) => e.content)).toEqual(['user note']);
    expect(pad.read(A).map((e) => e.content)).toEqual(['agent note']);
  });
});
