import { afterEach, describe, expect, it } from 'vitest';
import { actionsIn, count, dreamIds, hook, keyOf, ManualClock, shadowRows, start, type TestServer } from './helpers.js';

/** forget and the Shadow Bin: what exact archives, which older copies it purges, and shadow_bin false. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const FACT = 'My birthday is March 3';
const CARRIER = 'At dinner the whole family agreed, again, that my birthday is March 3 as every year.';
/** Past the window in which think indexes the previous thought as an episode's neighbouring context. */
const HOUR = 3600_000;

describe('scope exact and the Shadow Bin', () => {
  it('purges older Shadow Bin copies of the key', async () => {
    s = await start();
    const key = await keyOf(s, FACT);
    await s.call('forget', { key, layer: 'user' });
    expect(await keyOf(s, FACT)).toBe(key);
    const r = await s.call('forget', { key, layer: 'user' });
    expect(r.purged_shadow).toBeGreaterThanOrEqual(1);
    expect(shadowRows(s).filter((row) => row.origin_store === 'l4' && row.origin_id === key)).toHaveLength(1);
  });

  // Regression guard, fixed: the second forget, with shadow_bin false, purged the fact's older copy from the Shadow Bin
  // but kept the copy of the relation node the first forget archived with it, so "My name is Alice" stayed in the bin.
  it('shadow_bin false after an earlier forget of the same thought leaves nothing of it in the Shadow Bin', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const U = { layer: 'user' as const, user_id: 'default' };
    const bin = () => s.kernel.container.resolve<{ shadowBin: { list(scope: object): unknown[] } }>('stores').shadowBin.list(U);
    const key = await keyOf(s, 'My name is Alice.');
    expect(key).toBe('note:my-name-is-alice');
    const first = await s.call('forget', { key, layer: 'user' });
    expect(first.deleted_graph).toBeGreaterThanOrEqual(1);
    expect(shadowRows(s).map((r) => r.origin_store)).toContain('graph');
    expect(JSON.stringify(bin())).toContain('My name is Alice');
    clock.advance(HOUR);
    expect(await keyOf(s, 'My name is Alice.')).toBe(key);
    const second = await s.call('forget', { key, layer: 'user', shadow_bin: false });
    expect(second).toMatchObject({ deleted_l4: 1, archived: 0 });
    expect(JSON.stringify(bin())).not.toMatch(/my name is alice/i);
    expect(shadowRows(s).filter((r) => r.layer === 'user')).toEqual([]);
    expect(await dreamIds(s, { query: 'name Alice' })).toEqual([]);
  });

  it('shadow_bin false archives nothing', async () => {
    s = await start();
    const key = await keyOf(s, FACT);
    await s.call('think', { text: CARRIER, layer: 'user' });
    const r = await s.call('forget', { key, layer: 'user', shadow_bin: false });
    expect(r).toMatchObject({ deleted_l4: 1, deleted_l3: 1, deleted_graph: 2, archived: 0 });
    expect(count(s, 'shadow_bin')).toBe(0);
  });

});

// Regression guard, fixed: the second forget, with shadow_bin false, purged the fact's older copy but kept the copy
// of the episode the first forget archived with it (new_message saves the text as an episode and a fact).
it('exact with shadow_bin false after an earlier forget of the same save leaves no archived episode of it', async () => {
  const clock = new ManualClock();
  s = await start({ clock });
  const text = 'Important: always remember that my home address is 12 Elm Street, Springfield, and my deadline is 3 March.';
  const save = async () => {
    const res = await hook(s, 'new_message', { text }, { layer: 'user' });
    expect(actionsIn(res, 'l3'), 'an episode').toHaveLength(1);
    return (res.actions as { store: string; key?: string }[]).find((a) => a.store === 'l4')!.key!;
  };
  const bin = () => s.kernel.storage.db.prepare("SELECT origin_store, content FROM shadow_bin WHERE layer = 'user'").all() as { origin_store: string; content: string }[];
  const key = await save();
  const first = await s.call('forget', { key, layer: 'user' });
  expect(first).toMatchObject({ deleted_l4: 1, deleted_l3: 1 });
  expect(bin().map((r) => r.origin_store)).toContain('l3');
  clock.advance(HOUR);
  expect(await save()).toBe(key);
  const second = await s.call('forget', { key, layer: 'user', shadow_bin: false });
  expect(second).toMatchObject({ deleted_l4: 1, deleted_l3: 1, archived: 0 });
  expect(bin().filter((r) => r.content.includes('Elm Street'))).toEqual([]);
});

// Regression guard, fixed: exact purged every archived copy under the key, including that of an earlier, different fact.
it('exact keeps the archived copy of an earlier fact that held the same key', async () => {
  s = await start();
  const key = await keyOf(s, 'Remember: my name is Alice Smith');
  await s.call('forget', { key, layer: 'user' });
  expect(await keyOf(s, 'Remember: my name is Alice Smith-Jones')).toBe(key);
  const r = await s.call('forget', { key, layer: 'user' });
  expect(r.purged_shadow).toBe(0);
  const values = s.kernel.storage.db
    .prepare("SELECT json_extract(content, '$.value') AS v FROM shadow_bin WHERE origin_store = 'l4' ORDER BY id")
    .all()
    .map((row) => (row as { v: string }).v);
  expect(values).toEqual(['Remember: my name is Alice Smith', 'Remember: my name is Alice Smith-Jones']);
});
