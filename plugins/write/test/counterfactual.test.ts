import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const cf = (args: Record<string, unknown>) => s.call('memory_counterfactual', args);
const ids = (r: any) => r.counterfactuals.map((c: any) => c.id);

describe('memory_counterfactual', () => {
  it('saves (the same one again is returned, not added) and lists by anchor, newest first, paged', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const a: any = await cf({ action: 'save', anchor: 'decision:postgres', premise: 'We had kept MySQL', projection: 'Migrations would still be manual' });
    expect(a).toMatchObject({ action: 'save', created_new: true, counterfactual: { anchor: 'decision:postgres', premise: 'We had kept MySQL' } });
    expect(a.counterfactual.id).toMatch(/^cf_\d+$/);
    const same: any = await cf({ action: 'save', anchor: ' decision:postgres ', premise: 'We had kept MySQL', projection: 'Migrations would still be manual' });
    expect(same).toMatchObject({ created_new: false, counterfactual: { id: a.counterfactual.id } });
    clock.advance(1000);
    const b: any = await cf({ action: 'save', anchor: 'decision:postgres', premise: 'We had picked SQLite', projection: 'One file to back up' });
    const c: any = await cf({ action: 'save', anchor: 'ep_4', premise: 'p', projection: 'q' });
    const byAnchor: any = await cf({ action: 'list', anchor: 'decision:postgres' });
    expect(ids(byAnchor)).toEqual([b.counterfactual.id, a.counterfactual.id]);
    expect(byAnchor).toMatchObject({ count: 2, next_offset: null });
    expect(ids(await cf({ action: 'list' }))).toEqual([c.counterfactual.id, b.counterfactual.id, a.counterfactual.id]);
    const first: any = await cf({ action: 'list', limit: 2 });
    expect(first).toMatchObject({ count: 2, next_offset: 2 });
    expect(ids(await cf({ action: 'list', limit: 2, offset: 2 }))).toEqual([a.counterfactual.id]);
    expect(ids(await cf({ action: 'list', anchor: 'nothing here' }))).toEqual([]);
  });

  it('keeps the layers and user_ids apart', async () => {
    s = await start();
    await cf({ action: 'save', anchor: 'x', premise: 'user', projection: 'user' });
    await cf({ action: 'save', anchor: 'x', premise: 'agent', projection: 'agent', layer: 'agent' });
    expect(((await cf({ action: 'list', anchor: 'x', layer: 'agent' })) as any).counterfactuals.map((c: any) => c.premise)).toEqual(['agent']);
    expect(((await cf({ action: 'list', anchor: 'x', user_id: 'bob' })) as any).count).toBe(0);
    expect(((await cf({ action: 'list', anchor: 'x' })) as any).counterfactuals.map((c: any) => c.premise)).toEqual(['user']);
  });

  it('names the field of bad input and saves nothing', async () => {
    s = await start();
    expect((await toolError(cf({ action: 'save', premise: 'p', projection: 'q' }))).field).toBe('anchor');
    expect((await toolError(cf({ action: 'save', anchor: 'a', projection: 'q' }))).field).toBe('premise');
    expect((await toolError(cf({ action: 'save', anchor: 'a', premise: 'p', projection: '  ' }))).field).toBe('projection');
    expect((await toolError(cf({ action: 'save', anchor: 'a'.repeat(501), premise: 'p', projection: 'q' }))).field).toBe('anchor');
    expect((await toolError(cf({ action: 'save', anchor: 'a', premise: 'p', projection: 'q', limit: 5 }))).field).toBe('limit');
    expect((await toolError(cf({ action: 'list', premise: 'p' }))).field).toBe('premise');
    expect((await toolError(cf({ action: 'list', anchor: ' ' }))).field).toBe('anchor');
    expect((await toolError(cf({ action: 'list', limit: 201 }))).field).toBe('limit');
    expect((await toolError(cf({ action: 'delete' }))).field).toBe('action');
    expect(storesOf(s).counterfactuals.count({ layer: 'user', user_id: 'default' })).toBe(0);
  });
});
