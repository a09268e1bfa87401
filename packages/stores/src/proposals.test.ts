import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, U2, makeEnv, thrownBy as err, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ProposalStore', () => {
  it('stages a core_write pending and applies exactly the fact upsert on approval, audit-logged', () => {
    const p = env.stores.proposals.propose(U, { kind: 'core_write', key: 'editor', value: 'vim', importance: 0.8 });
    expect(p).toMatchObject({ proposal_id: 'prop_1', status: 'pending', kind: 'core_write' });
    expect(env.stores.facts.get(U, 'editor')).toBeNull();
    expect(env.stores.proposals.list(U).map((x) => x.proposal_id)).toEqual(['prop_1']);
    env.clock.advance(1000);
    const d = env.stores.proposals.decide(U, p.proposal_id, true);
    expect(d.status).toBe('applied');
    expect(d.decided).toBe(new Date(env.clock.now()).toISOString());
    const f = env.stores.facts.get(U, 'editor');
    expect(f).toMatchObject({ value: 'vim', importance: 0.8, source: 'staging_promotion', metadata: { proposal_id: 'prop_1' } });
    expect(d.applied).toMatchObject({ target_id: f!.entry_id, created: true });
    expect(env.stores.audit.forTargetInScope(U, 'prop_1').map((e) => e.action)).toEqual(['propose', 'approve']);
    expect(env.stores.proposals.list(U)).toEqual([]);
  });

  it('rejects without writing, and a decided proposal cannot be decided again (error names proposal_id and its state)', () => {
    const p = env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v' });
    expect(env.stores.proposals.decide(U, p.proposal_id, false).status).toBe('rejected');
    expect(env.stores.facts.get(U, 'k')).toBeNull();
    const e = err(() => env.stores.proposals.decide(U, p.proposal_id, true));
    expect(e.code).toBe('STORES_ERR_CONFLICT');
    expect(e.field).toBe('proposal_id');
    expect(e.message).toContain('prop_1 is rejected');
    expect(env.stores.facts.get(U, 'k')).toBeNull();
    expect(env.stores.audit.forTargetInScope(U, p.proposal_id).map((x) => x.action)).toEqual(['propose', 'reject']);
  });

  it('reverts a core_write: deletes a created fact, restores a replaced value; a second revert is refused', () => {
    const created = env.stores.proposals.propose(U, { kind: 'core_write', key: 'new', value: 'x' });
    env.stores.proposals.decide(U, created.proposal_id, true);
    const r = env.stores.proposals.revert(U, created.proposal_id);
    expect(r.status).toBe('reverted');
    expect(env.stores.facts.get(U, 'new')).toBeNull();
    expect(env.stores.shadowBin.get(r.applied.shadow_id!)?.origin_id).toBe('new');
    expect(err(() => env.stores.proposals.revert(U, created.proposal_id)).message).toContain('is reverted');

    env.stores.facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6, source: 'user_explicit', metadata: { from: 'chat' } });
    const upd = env.stores.proposals.propose(U, { kind: 'core_write', key: 'city', value: 'Lyon', importance: 0.9 });
    env.stores.proposals.decide(U, upd.proposal_id, true);
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Lyon');
    env.stores.proposals.revert(U, upd.proposal_id);
    expect(env.stores.facts.get(U, 'city')).toMatchObject({ value: 'Paris', importance: 0.6, source: 'user_explicit', metadata: { from: 'chat' } });
  });

  it('refuses to revert a write changed since, naming proposal_id, and changes nothing', () => {
    const p = env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v1' });
    env.stores.proposals.decide(U, p.proposal_id, true);
    env.stores.facts.upsert(U, { key: 'k', value: 'v2' });
    const e = err(() => env.stores.proposals.revert(U, p.proposal_id));
    expect(e.field).toBe('proposal_id');
    expect(e.message).toContain('was changed');
    expect(env.stores.facts.get(U, 'k')?.value).toBe('v2');
    expect(env.stores.proposals.get(U, p.proposal_id)?.status).toBe('applied');
  });

  it('a pending proposal cannot be reverted', () => {
    const p = env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v' });
    const e = err(() => env.stores.proposals.revert(U, p.proposal_id));
    expect(e.message).toContain('prop_1 is pending');
  });

  it('applies a wiki_write as WikiStore.save (default type by layer) and reverts it: page file removed, archived in the Shadow Bin', () => {
    const p = env.stores.proposals.propose(A, { kind: 'wiki_write', title: 'Retro', content: '# What went well' });
    expect(p.payload).toMatchObject({ wiki_type: 'decision_log' });
    const d = env.stores.proposals.decide(A, p.proposal_id, true);
    const page = env.stores.wiki.getByTitle(A, 'Retro')!;
    expect(page).toMatchObject({ content: '# What went well', wiki_type: 'decision_log' });
    expect(d.applied.target_id).toBe(page.id);
    const file = path.join(env.dir, page.path);
    expect(fs.existsSync(file)).toBe(true);
    const r = env.stores.proposals.revert(A, p.proposal_id);
    expect(env.stores.wiki.getByTitle(A, 'Retro')).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
    const bin = env.stores.shadowBin.get(r.applied.shadow_id!)!;
    expect(bin).toMatchObject({ origin_store: 'wiki', origin_id: 'Retro' });
  });

  it('reverting a wiki_write that replaced a page puts the previous content back', () => {
    env.stores.wiki.save(U, { title: 'Plan', content: 'old', wiki_type: 'work_notes', tags: ['t'] });
    const p = env.stores.proposals.propose(U, { kind: 'wiki_write', title: 'Plan', content: 'new', wiki_type: 'work_notes' });
    env.stores.proposals.decide(U, p.proposal_id, true);
    expect(env.stores.wiki.getByTitle(U, 'Plan')).toMatchObject({ content: 'new', tags: ['t'] });
    env.stores.proposals.revert(U, p.proposal_id);
    expect(env.stores.wiki.getByTitle(U, 'Plan')).toMatchObject({ content: 'old', tags: ['t'], wiki_type: 'work_notes' });
  });

  it('refuses bad input at propose time, naming the field', () => {
    expect(err(() => env.stores.proposals.propose(U, { kind: 'wiki_write', title: 'a\nb', content: 'x' })).field).toBe('title');
    expect(err(() => env.stores.proposals.propose(U, { kind: 'wiki_write', title: 'T', content: 'x', wiki_type: 'novel' })).field).toBe('wiki_type');
    expect(err(() => env.stores.proposals.propose(U, { kind: 'core_write', key: ' ', value: 'x' })).field).toBe('key');
    expect(err(() => env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'x', importance: 2 })).field).toBe('importance');
    for (const value of ['', '   ', '\u200b']) {
      expect(err(() => env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value }))).toMatchObject({ field: 'value', accepted: 'text with a visible character' });
    }
    expect(err(() => env.stores.proposals.propose(U, { kind: 'other' } as never)).field).toBe('kind');
    expect(env.stores.proposals.countByStatus(U)).toEqual({ pending: 0, applied: 0, rejected: 0, reverted: 0 });
  });

  it('a core_write staged before with a blank value is refused on approval, naming value, and stays pending', () => {
    env.db
      .prepare("INSERT INTO proposals (layer, user_id, kind, payload, status, created) VALUES (?, ?, 'core_write', ?, 'pending', ?)")
      .run(U.layer, U.user_id, JSON.stringify({ kind: 'core_write', key: 'b', value: '   ', importance: 0.5 }), '2025-01-01T00:00:00.000Z');
    expect(err(() => env.stores.proposals.decide(U, 'prop_1', true))).toMatchObject({ field: 'value', accepted: 'text with a visible character' });
    expect(env.stores.proposals.get(U, 'prop_1')?.status).toBe('pending');
    expect(env.stores.facts.get(U, 'b')).toBeNull();
  });

  it('keeps scopes apart: another scope neither lists nor decides a proposal', () => {
    const p = env.stores.proposals.propose(U, { kind: 'core_write', key: 'k', value: 'v' });
    expect(env.stores.proposals.list(U2)).toEqual([]);
    expect(env.stores.proposals.list(A)).toEqual([]);
    const e = err(() => env.stores.proposals.decide(U2, p.proposal_id, true));
    expect(e.code).toBe('STORES_ERR_NOT_FOUND');
    expect(e.field).toBe('proposal_id');
    expect(env.stores.facts.get(U2, 'k')).toBeNull();
  });

  it('counts by status and lists the decisions of a period, newest first', () => {
    const ids = ['a', 'b', 'c', 'd'].map((k) => env.stores.proposals.propose(U, { kind: 'core_write', key: k, value: k }).proposal_id);
    env.stores.proposals.decide(U, ids[0]!, true);
    env.clock.advance(3600_000);
    const since = new Date(env.clock.now()).toISOString();
    env.stores.proposals.decide(U, ids[1]!, false);
    env.clock.advance(1000);
    env.stores.proposals.decide(U, ids[2]!, true);
    env.stores.proposals.revert(U, ids[2]!);
    expect(env.stores.proposals.countByStatus(U)).toEqual({ pending: 1, applied: 1, rejected: 1, reverted: 1 });
    expect(env.stores.proposals.decidedSince(U, since).map((p) => p.proposal_id)).toEqual([ids[2], ids[1]]);
  });
});

describe('ProposalStore: export, import, the window purge and forget', () => {
  it('allPending, restorePending keeping the time, clearPending keeping decided ones, deletePendingWhere audit-logged', () => {
    const s = env.stores.proposals;
    const a = s.propose(U, { kind: 'core_write', key: 'k1', value: 'v1' });
    s.propose(U, { kind: 'wiki_write', title: 'T', content: 'secret words' });
    s.decide(U, a.proposal_id, false);
    expect(s.allPending(U).map((p) => p.kind)).toEqual(['wiki_write']);
    const r = s.restorePending(U2, { kind: 'core_write', key: 'k', value: 'v' }, '2020-01-01T00:00:00.000Z');
    expect(r).toMatchObject({ status: 'pending', created: '2020-01-01T00:00:00.000Z', payload: { kind: 'core_write', key: 'k', value: 'v', importance: 0.5 } });
    const gone = s.deletePendingWhere(U, (p) => p.payload.kind === 'wiki_write' && p.payload.content.includes('secret'));
    expect(gone).toHaveLength(1);
    expect(s.allPending(U)).toEqual([]);
    expect(env.stores.audit.forTargetInScope(U, gone[0]!.proposal_id).map((e) => e.action)).toContain('delete');
    expect(s.clearPending(U2)).toBe(1);
    expect(s.countByStatus(U)).toMatchObject({ rejected: 1, pending: 0 });
  });
});
