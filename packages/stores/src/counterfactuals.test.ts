import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('CounterfactualStore', () => {
  it('saves (the same three texts again return the saved one) and lists by anchor, newest first', () => {
    const cf = env.stores.counterfactuals;
    const a = cf.save(U, { anchor: ' decision:postgres ', premise: 'We had kept MySQL', projection: 'Migrations would still be manual' });
    expect(a).toMatchObject({ id: 'cf_1', anchor: 'decision:postgres', created_new: true });
    expect(cf.save(U, { anchor: 'decision:postgres', premise: 'We had kept MySQL', projection: 'Migrations would still be manual' })).toMatchObject({ id: a.id, created_new: false });
    env.clock.advance(1000);
    const b = cf.save(U, { anchor: 'decision:postgres', premise: 'We had used SQLite', projection: 'One file, no server' });
    const c = cf.save(U, { anchor: 'ep_3', premise: 'p', projection: 'q' });
    cf.save(A, { anchor: 'decision:postgres', premise: 'agent', projection: 'agent' });
    cf.save(U2, { anchor: 'decision:postgres', premise: 'bob', projection: 'bob' });
    expect(cf.list(U, { anchor: 'decision:postgres' }).map((x) => x.id)).toEqual([b.id, a.id]);
    expect(cf.list(U).map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(cf.list(U, { limit: 1, offset: 1 }).map((x) => x.id)).toEqual([b.id]);
    expect(cf.count(U, 'decision:postgres')).toBe(2);
    expect(cf.count(A)).toBe(1);
  });

  it('names the field of an empty or over-long text', () => {
    const cf = env.stores.counterfactuals;
    expect(() => cf.save(U, { anchor: ' ', premise: 'p', projection: 'q' })).toThrow(expect.objectContaining({ field: 'anchor' }));
    expect(() => cf.save(U, { anchor: 'a', premise: '', projection: 'q' })).toThrow(expect.objectContaining({ field: 'premise' }));
    expect(() => cf.save(U, { anchor: 'a', premise: 'p', projection: 'x'.repeat(10_001) })).toThrow(expect.objectContaining({ field: 'projection' }));
    expect(cf.count(U)).toBe(0);
  });
});

describe('CounterfactualStore: export, import and the window purge', () => {
  it('all lists oldest first; restore keeps the time and skips an identical one; deleteSince and clear stay in the scope', () => {
    const s = env.stores.counterfactuals;
    s.save(U, { anchor: 'a', premise: 'p1', projection: 'q1' });
    const since = env.stores.ctx.iso();
    env.clock.advance(1000);
    s.save(U, { anchor: 'b', premise: 'p2', projection: 'q2' });
    s.save(U2, { anchor: 'c', premise: 'p3', projection: 'q3' });
    expect(s.all(U).map((c) => c.anchor)).toEqual(['a', 'b']);
    const r = s.restore(A, { anchor: 'x', premise: 'p', projection: 'q', created: '2020-01-02T03:04:05.000Z' });
    expect(r).toMatchObject({ created_new: true, created: '2020-01-02T03:04:05.000Z' });
    expect(s.all(A)[0]!.created).toBe('2020-01-02T03:04:05.000Z');
    expect(s.restore(A, { anchor: 'x', premise: 'p', projection: 'q', created: '2021-01-01T00:00:00.000Z' }).created_new).toBe(false);
    expect(s.deleteSince(U, new Date(Date.parse(since) + 1).toISOString())).toBe(1);
    expect(s.all(U).map((c) => c.anchor)).toEqual(['a']);
    expect(s.clear(U)).toBe(1);
    expect(s.count(U2)).toBe(1);
  });

});

describe('CounterfactualStore: anchors in NFC', () => {
  it('takes the anchor in NFC on save and on list: the decomposed and precomposed spellings are one anchor', () => {
    const cf = env.stores.counterfactuals;
    const a = cf.save(U, { anchor: 'cafe\u0301', premise: 'p', projection: 'q' });
    expect(a.anchor).toBe('caf\u00e9');
    expect(cf.list(U, { anchor: 'caf\u00e9' }).map((c) => c.id)).toEqual([a.id]);
    expect(cf.list(U, { anchor: ' cafe\u0301 ' }).map((c) => c.id)).toEqual([a.id]);
    expect(cf.save(U, { anchor: 'caf\u00e9', premise: 'p', projection: 'q' })).toMatchObject({ id: a.id, created_new: false });
  });
});
