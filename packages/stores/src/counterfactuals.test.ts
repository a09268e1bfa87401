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
