import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { purgeRecordsSince } from './lucidity-purge.js';
import { cleanForgottenLinks } from './forget-links.js';
import { SCOPE_DOC_EXTRA_KINDS, type DocStandingQuery } from './scope-doc-extra.js';
import type { ScopeDocument } from './scope-doc.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';
import type { Scope } from './types.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const ones = () => Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, 1]));
const zeros = () => Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, 0]));

/** One record of every later kind in the scope (and a decided proposal, which is not exported). */
function seedExtras(scope: Scope = U) {
  const s = env.stores;
  s.counterfactuals.save(scope, { anchor: 'move', premise: 'if we had moved to Lyon', projection: 'more sun' });
  s.procedures.save(scope, 'Deploy', { steps: ['build', 'ship'], description: 'ship it', trigger: 'release day' });
  s.procedures.record(scope, 'deploy', 'success', 'smooth');
  s.procedures.record(scope, 'deploy', 'failure');
  s.scratchpad.write(scope, 'draft', 'half a plan');
  s.scratchpad.write(scope, 'idea', 'a second note');
  s.stashes.push(scope, 'plan-a', 'for later');
  s.facts.upsert(scope, { key: 'city', value: 'Lyon' });
  s.branches.create(scope, 'what-if');
  s.branches.set(scope, 'what-if', 'city', 'Paris', 0.9);
  s.branches.set(scope, 'what-if', 'pet', 'cat');
  s.reflections.write(scope, { period_hours: 24 });
  const rule = s.disclosure.add(scope, { name: 'Allergy', trigger_keywords: ['food', 'dinner'], content: 'Allergic to nuts' });
  s.disclosure.setEnabled(scope, rule.rule_id, false);
  s.watchRules.add(scope, { name: 'Big', trigger: 'message_received', predicate: { min_importance: 0.8, keywords: ['deadline'] }, action: 'log' });
  s.standing.save(scope, 'Important', { target: 'core', importance_min: 0.7, description: 'key facts' });
  s.proposals.propose(scope, { kind: 'core_write', key: 'pet', value: 'cat', importance: 0.6 });
  const decided = s.proposals.propose(scope, { kind: 'wiki_write', title: 'Decided', content: 'applied already' });
  s.proposals.decide(scope, decided.proposal_id, true);
  env.clock.advance(60_000);
}

const extrasOf = (doc: ScopeDocument) => Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, doc[k]]));

describe('ScopeData: the later kinds', () => {
  it('round trip: every later kind, with its times, into another user_id; a second import adds nothing', () => {
    seedExtras();
    const doc = env.stores.scopeData.exportScope(U);
    expect(doc.proposals).toEqual([{ kind: 'core_write', payload: { kind: 'core_write', key: 'pet', value: 'cat', importance: 0.6 }, created: expect.any(String) }]);
    expect(doc.procedures[0]).toMatchObject({ name: 'deploy', steps: ['build', 'ship'], successes: 1, failures: 1, last_outcome: 'failure' });
    expect(doc.stashes[0]!.entries.map((e) => e.key)).toEqual(['draft', 'idea']);
    expect(doc.branches[0]!.entries).toContainEqual(expect.objectContaining({ key: 'pet', base_value: null, value: 'cat' }));
    env.clock.advance(3_600_000);
    const r = env.stores.scopeData.importScope(U2, JSON.parse(JSON.stringify(doc)), 'merge');
    expect(r.imported).toMatchObject(ones());
    expect(extrasOf(env.stores.scopeData.exportScope(U2))).toEqual(extrasOf(doc));
    // Each through its own store: the rule is disabled as it was, the branch diffs as it did, the query runs.
    expect(env.stores.disclosure.list(U2)[0]).toMatchObject({ name: 'Allergy', enabled: false });
    expect(env.stores.branches.diff(U2, 'what-if').added.map((a) => a.key)).toEqual(['pet']);
    expect(env.stores.standing.run(U2, 'Important').target).toBe('core');
    expect(env.stores.stashes.pop(U2, 'plan-a').pad_count).toBe(2);
    const twice = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(twice.imported).toMatchObject({ ...zeros(), stashes: 1 });
    // The stash popped in U2 is imported again (its name is free), everything else is held.
    expect(twice.skipped).toMatchObject({ ...ones(), stashes: 0 });
  });

  it('a version 1 document written before the later kinds imports as it is', () => {
    env.stores.facts.upsert(U, { key: 'k', value: 'v' });
    const doc = env.stores.scopeData.exportScope(U) as unknown as Record<string, unknown>;
    for (const k of SCOPE_DOC_EXTRA_KINDS) delete doc[k];
    const r = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(r.imported).toMatchObject({ facts: 1, ...zeros() });
  });

  it('merge keeps what the target holds under the same name', () => {
    seedExtras();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.procedures.save(U2, 'deploy', { steps: ['mine'] });
    env.stores.standing.save(U2, 'important', { target: 'episodes' });
    const r = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(r.skipped).toMatchObject({ procedures: 1, standing_queries: 1 });
    expect(env.stores.procedures.get(U2, 'deploy')?.steps).toEqual(['mine']);
    expect(env.stores.standing.get(U2, 'important')?.filters.target).toBe('episodes');
  });

  it('replace clears the later kinds of the target (pending proposals only) and writes the document', () => {
    seedExtras();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.counterfactuals.save(U2, { anchor: 'old', premise: 'p', projection: 'q' });
    env.stores.standing.save(U2, 'gone', { target: 'core' });
    env.stores.proposals.propose(U2, { kind: 'core_write', key: 'x', value: 'y' });
    const r = env.stores.scopeData.importScope(U2, doc, 'replace');
    expect(r.cleared).toMatchObject({ counterfactuals: 1, standing_queries: 1, proposals: 1 });
    expect(env.stores.counterfactuals.all(U2).map((c) => c.anchor)).toEqual(['move']);
    expect(env.stores.standing.list(U2).map((q) => q.name)).toEqual(['Important']);
    expect(env.stores.proposals.allPending(U2).map((p) => p.payload)).toEqual([doc.proposals[0]!.payload]);
  });

  it('a bad record of a later kind names its path and nothing is written, no standing query file either', () => {
    seedExtras();
    const doc = env.stores.scopeData.exportScope(U);
    const bad = (mutate: (d: any) => void) => {
      const d = JSON.parse(JSON.stringify(doc));
      mutate(d);
      return d;
    };
    const cases: [(d: any) => void, string][] = [
      [(d) => (d.counterfactuals[0].premise = ' '), 'data.counterfactuals[0].premise'],
      [(d) => (d.procedures[0].steps = []), 'data.procedures[0].steps'],
      [(d) => (d.procedures[0].name = '!!!'), 'data.procedures[0].name'],
      [(d) => (d.stashes[0].entries[1].key = 5), 'data.stashes[0].entries[1].key'],
      [(d) => (d.branches[0].entries[0].importance = null), 'data.branches[0].entries[0].importance'],
      [(d) => (d.reflections[0].period_start = 'soon'), 'data.reflections[0].period_start'],
      [(d) => (d.reflections[0].counts.facts = 'many'), 'data.reflections[0].counts.facts'],
      [(d) => (d.reflections[0].recurring_terms = [{ term: 'x' }]), 'data.reflections[0].recurring_terms[0].records'],
      [(d) => (d.disclosure_rules[0].trigger_keywords = []), 'data.disclosure_rules[0].trigger_keywords'],
      [(d) => (d.watch_rules[0].trigger = 'never'), 'data.watch_rules[0].trigger'],
      [(d) => (d.watch_rules[0].predicate = { color: 1 }), 'data.watch_rules[0].predicate'],
      [(d) => (d.standing_queries[0].filters = { bogus: 1 }), 'data.standing_queries[0].filters'],
      [(d) => (d.standing_queries[0].filters = { importance_min: 7 }), 'data.standing_queries[0].filters.importance_min'],
      [(d) => (d.standing_queries[0].name = '../x'), 'data.standing_queries[0].name'],
      [(d) => (d.proposals[0].payload.importance = 3), 'data.proposals[0].payload.importance'],
      [(d) => (d.proposals[0].kind = 'delete'), 'data.proposals[0].kind'],
      [(d) => (d.proposals[0].payload.kind = 'wiki_write'), 'data.proposals[0].payload.kind'],
      // A core_write's value is a fact's value: never blank.
      [(d) => d.proposals.push({ kind: 'core_write', payload: { key: 'b', value: '   ' } }), 'data.proposals[1].payload.value'],
      // Refused by the store during the write (a control character in a title), after the standing query was queued.
      [(d) => d.proposals.push({ kind: 'wiki_write', payload: { kind: 'wiki_write', title: 'a\u0007b', content: 'x' } }), 'data.proposals[1].title'],
    ];
    for (const [mutate, field] of cases) {
      for (const mode of ['merge', 'replace'] as const) {
        expect(() => env.stores.scopeData.importScope(U2, bad(mutate), mode), `${mode} ${field}`).toThrow(expect.objectContaining({ field }));
      }
    }
    expect(env.stores.scopeData.exportScope(U2)).toMatchObject({ facts: [], scratchpad: [], ...Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, []])) });
    expect(fs.existsSync(env.stores.standing.dir(U2))).toBe(false);
  });

  it('refuses stashes or branches that would take the target past its cap, before any write', () => {
    seedExtras();
    const doc = env.stores.scopeData.exportScope(U);
    env.stores.facts.upsert(A, { key: 'k', value: 'v' });
    for (let i = 0; i < 20; i++) env.stores.branches.create(A, `b${i}`);
    expect(() => env.stores.scopeData.importScope(A, doc, 'merge')).toThrow(expect.objectContaining({ field: 'data.branches' }));
    expect(env.stores.counterfactuals.all(A)).toEqual([]);
    const many = JSON.parse(JSON.stringify(doc));
    many.stashes = Array.from({ length: 21 }, (_, i) => ({ ...doc.stashes[0], name: `s${i}` }));
    expect(() => env.stores.scopeData.importScope(U2, many, 'merge')).toThrow(expect.objectContaining({ field: 'data.stashes' }));
  });
});

describe('purgeRecordsSince (forget recent, memory_lucidity_purge)', () => {
  it('deletes the records of each later kind created in the window, keeps older ones and other scopes', () => {
    seedExtras(U);
    seedExtras(U2);
    const since = env.stores.ctx.iso();
    env.clock.advance(1000);
    const s = env.stores;
    s.counterfactuals.save(U, { anchor: 'new', premise: 'p', projection: 'q' });
    s.procedures.save(U, 'new', { steps: ['x'] });
    s.procedures.record(U, 'deploy', 'success'); // an older one used in the window stays
    s.scratchpad.write(U, 'n', 'x');
    s.stashes.push(U, 'new');
    s.branches.create(U, 'new');
    s.reflections.write(U, {});
    s.disclosure.add(U, { name: 'new', trigger_keywords: ['x'], content: 'y' });
    s.watchRules.add(U, { name: 'new', trigger: 'remember', predicate: {}, action: 'log' });
    s.standing.save(U, 'new', { target: 'core' });
    s.standing.save(U, 'Important', { target: 'episodes' }); // rewritten in the window: first saved before it, stays
    s.proposals.propose(U, { kind: 'core_write', key: 'n', value: 'v' });
    const ep = s.episodes.add(U, { summary: 'promoted' });
    const f = s.facts.upsert(U, { key: 'episode:promoted', value: 'promoted' });
    s.transitions.record(U, { episode_id: ep.id, entry_id: f.entry_id, key: f.key, value: f.value });
    const purged = s.transaction(() => purgeRecordsSince(s, U, since));
    expect(purged).toEqual({ ...ones(), transitions: 1 });
    expect(s.procedures.get(U, 'deploy')?.successes).toBe(2);
    expect(s.standing.list(U).map((q) => q.name)).toEqual(['Important']);
    expect(s.stashes.list(U).map((x) => x.name)).toEqual(['plan-a']);
    expect(s.branches.list(U).map((b) => b.name)).toEqual(['what-if']);
    expect(s.counterfactuals.all(U).map((c) => c.anchor)).toEqual(['move']);
    expect(s.proposals.allPending(U).map((p) => p.payload)).toEqual([{ kind: 'core_write', key: 'pet', value: 'cat', importance: 0.6 }]);
    expect(s.transitions.list(U)).toEqual([]);
    // The other user_id keeps all of its own.
    expect(s.scopeData.exportScope(U2)).toMatchObject(Object.fromEntries(SCOPE_DOC_EXTRA_KINDS.map((k) => [k, [expect.anything()]])));
  });
});

describe('purgeRecordsSince after the clock stepped back', () => {
  it('deletes no record dated after now: the window ends at now, whatever its size', () => {
    const s = env.stores;
    env.clock.advance(3_600_000);
    seedExtras(U);
    const ep = s.episodes.add(U, { summary: 'promoted ahead' });
    const f = s.facts.upsert(U, { key: 'episode:promoted-ahead', value: 'promoted ahead' });
    s.transitions.record(U, { episode_id: ep.id, entry_id: f.entry_id, key: f.key, value: f.value });
    const before = s.scopeData.exportScope(U);
    env.clock.t -= 3_600_000; // the clock corrected back by an hour
    const purged = s.transaction(() => purgeRecordsSince(s, U, s.ctx.iso()));
    expect(purged).toEqual({ ...zeros(), transitions: 0 });
    const after = s.scopeData.exportScope(U);
    for (const k of SCOPE_DOC_EXTRA_KINDS) expect(after[k], k).toEqual(before[k]);
    expect(s.transitions.list(U)).toHaveLength(1);
  });
});

describe('cleanForgottenLinks (forget exact, fuzzy)', () => {
  it('drops branch copies, pending proposals, most-recalled rows and promotion values of what forget deleted', () => {
    const s = env.stores;
    const fact = s.facts.upsert(U, { key: 'addr', value: '12 Main Street Springfield' });
    s.facts.upsert(U, { key: 'keep', value: 'other' });
    s.branches.create(U, 'copy');
    s.branches.create(U, 'edit');
    s.branches.set(U, 'edit', 'addr', '9 Elm Road');
    s.proposals.propose(U, { kind: 'core_write', key: 'again', value: 'I live at 12 Main Street Springfield' });
    s.proposals.propose(U, { kind: 'core_write', key: 'other', value: 'unrelated' });
    s.ctx.bumpAccess('facts', 'fact', [fact.entry_id]);
    const refl = s.reflections.write(U, {});
    expect(refl.most_recalled.map((m) => m.id)).toEqual([fact.entry_id]);
    s.transitions.record(U, { episode_id: 'ep_1', entry_id: fact.entry_id, key: 'addr', value: fact.value });
    s.facts.delete(U, 'addr');
    const gone = { facts: [fact], episodeIds: [], holds: (t: string) => t.includes(fact.value), texts: [fact.value] };
    const cleaned = s.transaction(() => cleanForgottenLinks(s, U, gone));
    expect(cleaned).toEqual({ branch_entries: 2, proposals: 1, reflections: 1, transitions: 1 });
    // The copy is gone; the branch's own edit stays as an addition, merged without a conflict.
    expect(s.branches.info(U, 'copy')?.facts).toBe(1);
    expect(s.branches.diff(U, 'edit')).toMatchObject({ added: [{ key: 'addr', value: '9 Elm Road' }], changed: [], conflicts: [] });
    expect(s.proposals.allPending(U).map((p) => p.payload)).toEqual([{ kind: 'core_write', key: 'other', value: 'unrelated', importance: 0.5 }]);
    const after = s.reflections.list(U)[0]!;
    expect(after.most_recalled).toEqual([]);
    expect(after.summary).not.toContain('Main Street');
    expect(s.transitions.list(U)[0]!.value).toBe('');
    expect(JSON.stringify(env.db.prepare('SELECT * FROM fact_branch_entries').all())).not.toContain('Main Street');
  });
});

describe('ScopeData: standing query names an older build exported (with _ or -)', () => {
  const query = (name: string, key_like: string, description = ''): DocStandingQuery => ({ name, description, filters: { target: 'core', key_like }, created: '2025-01-01T00:00:00.000Z', updated: '2025-01-02T00:00:00.000Z' });

  it('imports them renamed as the start renames files, reports each rename, and a second merge adds nothing', () => {
    env.stores.standing.save(U2, 'ab', { key_like: 'held' });
    const doc = env.stores.scopeData.exportScope(U) as ScopeDocument & { standing_queries: unknown[] };
    doc.standing_queries = [query('My_Prefs-1', 'pref:', 'mine'), query('a-b', 'a'), query('ab1', 'doc')];
    const r = env.stores.scopeData.importScope(U2, doc, 'merge');
    // a-b: "ab" is the target's (other filters), "ab1" the document's: ab2.
    expect(r.renamed_standing_queries).toEqual([
      { from: 'My_Prefs-1', to: 'MyPrefs1' },
      { from: 'a-b', to: 'ab2' },
    ]);
    expect(r.imported.standing_queries).toBe(3);
    expect(env.stores.standing.list(U2).map((q) => [q.name, q.filters.key_like])).toEqual([
      ['ab', 'held'],
      ['ab1', 'doc'],
      ['ab2', 'a'],
      ['MyPrefs1', 'pref:'],
    ]);
    expect(env.stores.standing.get(U2, 'myprefs1')).toMatchObject({ name: 'MyPrefs1', description: 'mine', created: '2025-01-01T00:00:00.000Z' });
    // The same document again: each renamed query finds itself under its new name and is skipped, no copy made.
    const again = env.stores.scopeData.importScope(U2, doc, 'merge');
    expect(again.imported.standing_queries).toBe(0);
    expect(again.skipped.standing_queries).toBe(3);
    expect(again.renamed_standing_queries).toEqual([
      { from: 'My_Prefs-1', to: 'MyPrefs1' },
      { from: 'a-b', to: 'ab2' },
    ]);
    expect(env.stores.standing.list(U2)).toHaveLength(4);
  });

  it('replace renames against the document only; a name that is hostile still refuses the import', () => {
    env.stores.standing.save(U2, 'ab', { key_like: 'gone' });
    const doc = env.stores.scopeData.exportScope(U) as ScopeDocument & { standing_queries: unknown[] };
    doc.standing_queries = [query('a-b', 'a')];
    expect(env.stores.scopeData.importScope(U2, doc, 'replace').renamed_standing_queries).toEqual([{ from: 'a-b', to: 'ab' }]);
    expect(env.stores.standing.list(U2).map((q) => [q.name, q.filters.key_like])).toEqual([['ab', 'a']]);
    for (const bad of ['-ab', '../a-b', 'a b', 'x'.repeat(101)]) {
      doc.standing_queries = [query(bad, 'a')];
      expect(() => env.stores.scopeData.importScope(U2, doc, 'merge'), bad).toThrow(expect.objectContaining({ field: 'data.standing_queries[0].name' }));
    }
  });
});
