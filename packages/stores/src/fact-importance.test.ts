import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFactImportance } from './facts.js';
import { U, makeEnv, thrownBy, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const RANGE = { min: 0.05, max: 1 };
const BAD = [0, 0.04, -0.1, 1.01, 2, Number.NaN, Number.POSITIVE_INFINITY];

describe('fact importance asked for by a caller: 0.05 to 1.0, refused outside (the spec: "within 0.05 to 1.0")', () => {
  it('checkFactImportance takes 0.05..1.0, bounds included, and refuses the rest naming the field and the range', () => {
    for (const ok of [0.05, 0.5, 1]) expect(checkFactImportance(ok)).toBe(ok);
    for (const bad of [...BAD, '0.5', null]) {
      expect(thrownBy(() => checkFactImportance(bad, 'importance'))).toMatchObject({ field: 'importance', accepted: RANGE, message: expect.stringContaining('0.05 to 1.0') });
    }
  });

  it('a core_write proposal is refused below 0.05, so the proposal states the exact write its approval makes', () => {
    const s = env.stores;
    for (const bad of BAD) {
      expect(thrownBy(() => s.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v', importance: bad }))).toMatchObject({ field: 'importance', accepted: RANGE });
    }
    expect(s.proposals.allPending(U)).toEqual([]);
    const p = s.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v', importance: 0.05 });
    expect(p.payload).toMatchObject({ importance: 0.05 });
    const d = s.proposals.decide(U, p.proposal_id, true);
    expect(d.payload).toMatchObject({ importance: 0.05 });
    expect(s.facts.get(U, 'k')!.importance).toBe(0.05);
  });

  it('memory_remember, memory_save_typed, memory_scratchpad promote (fact) and memory_branch set refuse it the same way; nothing is written', () => {
    const s = env.stores;
    s.scratchpad.write(U, 'note', 'some text');
    s.branches.create(U, 'b');
    for (const bad of BAD) {
      expect(thrownBy(() => s.rememberer.remember(U, { key: 'r', value: 'v', importance: bad }))).toMatchObject({ field: 'importance', accepted: RANGE });
      expect(thrownBy(() => s.typedSchemas.save(U, { type: 'decision', fields: { name: 'db', decision: 'SQLite' }, importance: bad }))).toMatchObject({ field: 'importance', accepted: RANGE });
      expect(thrownBy(() => s.scratchpad.promote(U, 'note', 'fact', { importance: bad }))).toMatchObject({ field: 'importance', accepted: RANGE });
      expect(thrownBy(() => s.branches.set(U, 'b', 'k', 'v', bad))).toMatchObject({ field: 'importance', accepted: RANGE });
    }
    expect(s.facts.list(U)).toEqual([]);
    expect(s.scratchpad.get(U, 'note')).not.toBeNull();
    // The bounds themselves are written as asked.
    expect(s.rememberer.remember(U, { key: 'r', value: 'v', importance: 0.05 }).fact.importance).toBe(0.05);
    expect(s.typedSchemas.save(U, { type: 'decision', fields: { name: 'db', decision: 'SQLite' }, importance: 1 }).fact.importance).toBe(1);
    expect(s.scratchpad.promote(U, 'note', 'fact', { importance: 0.05 })).toMatchObject({ target: 'fact', fact: { importance: 0.05 } });
    // An episode's importance is 0..1: promoting to an episode still takes 0.
    s.scratchpad.write(U, 'ep', 'an event');
    expect(s.scratchpad.promote(U, 'ep', 'episode', { importance: 0 })).toMatchObject({ target: 'episode', episode: { importance: 0 } });
  });

  it('the importance gate\'s answer (computed, not asked for) is still clamped', () => {
    const r = env.stores.rememberer.remember(U, { key: 'g', value: 'v', importance: 0.5 }, () => 0);
    expect(r).toMatchObject({ requested_importance: 0.5 });
    expect(r.fact.importance).toBe(0.05);
  });

  it('a pending proposal an older version exported with an importance below 0.05 still imports, raised to 0.05', () => {
    const doc = env.stores.scopeData.exportScope(U) as any;
    doc.proposals = [{ kind: 'core_write', payload: { kind: 'core_write', key: 'k', value: 'v', importance: 0 }, created: '2025-01-01T00:00:00.000Z' }];
    env.stores.scopeData.importScope(U, doc, 'merge');
    expect(env.stores.proposals.allPending(U).map((p) => p.payload)).toEqual([{ kind: 'core_write', key: 'k', value: 'v', importance: 0.05 }]);
  });
});
