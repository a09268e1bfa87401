import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY } from '@memory-service/kernel';
import { FACT_KEY_MAX, WIKI_TITLE_MAX } from '@memory-service/stores';
import { primitives, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const P = (args: Record<string, unknown>) => s.call('memory_proposals', args);
const inject = async (extra: Record<string, unknown> = {}) => (await s.call('memory_hook', { event: 'session_started', payload: {}, ...extra })).results[primitives.name];

describe('memory_proposals core_write importance', () => {
  it('takes 0.05 to 1.0 (a fact\'s importance) and refuses outside naming importance, so the proposal states the write its approval makes', async () => {
    s = await start();
    const { tools } = await s.client.listTools();
    const imp = (tools.find((t) => t.name === 'memory_proposals')!.inputSchema.properties as Record<string, any>).importance;
    expect([imp.minimum, imp.maximum]).toEqual([0.05, 1]);
    for (const importance of [0, 0.04, 1.5]) {
      const err = await toolError(P({ action: 'propose', kind: 'core_write', key: 'p0', value: 'v', importance }));
      expect(err, String(importance)).toMatchObject({ field: 'importance', accepted: expect.objectContaining(importance < 1 ? { min: 0.05 } : { max: 1 }) });
    }
    expect((await P({ action: 'list' })).count).toBe(0);
    const p = (await P({ action: 'propose', kind: 'core_write', key: 'p0', value: 'v', importance: 0.05 })).proposal;
    expect(p.importance).toBe(0.05);
    expect(p.write).toContain('0.05');
    const d = (await P({ action: 'decide', proposal_id: p.proposal_id, approve: true })).proposal;
    expect(d).toMatchObject({ status: 'applied', importance: 0.05 });
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'p0')!.importance).toBe(d.importance);
  });
});

describe('memory_proposals propose and list', () => {
  it('publishes the bounds of key and title the store enforces, and says the text limit of value and content', async () => {
    s = await start();
    const { tools } = await s.client.listTools();
    const p = tools.find((t) => t.name === 'memory_proposals')!.inputSchema.properties as Record<string, any>;
    expect(p.key.maxLength).toBe(FACT_KEY_MAX);
    expect(p.title.maxLength).toBe(WIKI_TITLE_MAX);
    for (const f of ['value', 'content']) expect(p[f].description, f).toContain(`at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT})`);
    expect(await toolError(P({ action: 'propose', kind: 'core_write', key: 'k'.repeat(FACT_KEY_MAX + 1), value: 'v' }))).toMatchObject({ field: 'key', accepted: { max: FACT_KEY_MAX } });
    expect(await toolError(P({ action: 'propose', kind: 'wiki_write', title: 't'.repeat(WIKI_TITLE_MAX + 1), content: 'c' }))).toMatchObject({ field: 'title', accepted: { max: WIKI_TITLE_MAX } });
    expect((await P({ action: 'list' })).count).toBe(0);
  });

  it('refuses a core_write with a blank value, naming value, and stages nothing (so no approval can store one)', async () => {
    s = await start();
    for (const value of ['', '   ', '\u200b\u200b']) {
      expect(await toolError(P({ action: 'propose', kind: 'core_write', key: 'b', value })), JSON.stringify(value)).toMatchObject({
        code: 'KERNEL_ERR_VALIDATION',
        field: 'value',
        accepted: 'text with a visible character',
      });
    }
    expect((await P({ action: 'list' })).count).toBe(0);
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'b')).toBeNull();
  });

  it('refuses a core_write whose new key holds a line break or an escape code, naming key, and stages nothing', async () => {
    s = await start();
    for (const key of ['k\u001b[2J\nx', 'color\n## Recent turns']) {
      expect(await toolError(P({ action: 'propose', kind: 'core_write', key, value: 'v' })), JSON.stringify(key)).toMatchObject({
        code: 'KERNEL_ERR_VALIDATION',
        field: 'key',
        message: expect.stringMatching(/control characters/),
      });
    }
    expect((await P({ action: 'list' })).count).toBe(0);
  });

  it('stages a core_write pending without writing, and lists it', async () => {
    s = await start();
    const r = await P({ action: 'propose', kind: 'core_write', key: 'editor', value: 'helix', importance: 0.7 });
    expect(r.proposal).toMatchObject({ proposal_id: 'prop_1', kind: 'core_write', status: 'pending', key: 'editor', value: 'helix', importance: 0.7, target_id: null });
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'editor')).toBeNull();
    const l = await P({ action: 'list' });
    expect(l.count).toBe(1);
    expect(l.proposals[0].write).toBe('core_write editor = "helix" (importance 0.7)');
  });

  it('defaults a core_write importance to 0.5 and a wiki_write type by layer', async () => {
    s = await start();
    expect((await P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v' })).proposal.importance).toBe(0.5);
    expect((await P({ action: 'propose', kind: 'wiki_write', title: 'T', content: 'c' })).proposal.wiki_type).toBe('diary');
    expect((await P({ action: 'propose', kind: 'wiki_write', title: 'T', content: 'c', layer: 'agent' })).proposal.wiki_type).toBe('decision_log');
  });

  it('refuses a propose with a missing, foreign or bad field, naming it, and stages nothing', async () => {
    s = await start();
    expect((await toolError(P({ action: 'propose' }))).field).toBe('kind');
    expect((await toolError(P({ action: 'propose', kind: 'core_write', value: 'v' }))).field).toBe('key');
    expect((await toolError(P({ action: 'propose', kind: 'core_write', key: 'k' }))).field).toBe('value');
    expect((await toolError(P({ action: 'propose', kind: 'wiki_write', content: 'c' }))).field).toBe('title');
    expect((await toolError(P({ action: 'propose', kind: 'wiki_write', title: 'T' }))).field).toBe('content');
    expect((await toolError(P({ action: 'propose', kind: 'wiki_write', title: 'T', content: 'c', key: 'k' }))).field).toBe('key');
    expect((await toolError(P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v', title: 'T' }))).field).toBe('title');
    expect((await toolError(P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v', importance: 1.5 }))).field).toBe('importance');
    expect((await toolError(P({ action: 'propose', kind: 'wiki_write', title: 'T', content: 'c', wiki_type: 'novel' }))).field).toBe('wiki_type');
    expect((await toolError(P({ action: 'propose', kind: 'wiki_write', title: 'a\nb', content: 'c' }))).field).toBe('title');
    expect((await toolError(P({ action: 'nope' }))).field).toBe('action');
    expect((await P({ action: 'list' })).count).toBe(0);
  });

  it('lists at most limit, oldest first, and refuses a limit out of bounds', async () => {
    s = await start();
    for (let i = 0; i < 3; i++) await P({ action: 'propose', kind: 'core_write', key: `k${i}`, value: 'v' });
    const l = await P({ action: 'list', limit: 2 });
    expect(l.proposals.map((p: any) => p.key)).toEqual(['k0', 'k1']);
    expect((await toolError(P({ action: 'list', limit: 201 }))).field).toBe('limit');
    expect((await toolError(P({ action: 'list', limit: 0 }))).field).toBe('limit');
  });
});

describe('memory_proposals decide', () => {
  it('approve applies the core fact upsert and audit-logs the decision; the proposal leaves the pending list', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'editor', value: 'helix', importance: 0.7 });
    const d = await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    expect(d.proposal.status).toBe('applied');
    const st = storesOf(s);
    const f = st.facts.get({ layer: 'user', user_id: 'default' }, 'editor')!;
    expect(f).toMatchObject({ value: 'helix', importance: 0.7, source: 'staging_promotion' });
    expect(d.proposal.target_id).toBe(f.entry_id);
    expect(st.audit.forTarget('prop_1').map((e) => e.action)).toEqual(['propose', 'approve']);
    expect((await P({ action: 'list' })).count).toBe(0);
  });

  it('approve of a wiki_write saves the page as wiki_add would (file inside the data dir)', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'wiki_write', title: 'Ship checklist', content: '# Steps', wiki_type: 'work_notes' });
    await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    const page = storesOf(s).wiki.getByTitle({ layer: 'user', user_id: 'default' }, 'Ship checklist')!;
    expect(page).toMatchObject({ wiki_type: 'work_notes', content: '# Steps' });
    expect(fs.readFileSync(path.join(s.dataDir, page.path), 'utf8')).toBe('# Steps');
  });

  it('reject writes nothing, is audit-logged, and deciding again is an error naming proposal_id and the state', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v' });
    expect((await P({ action: 'decide', proposal_id: 'prop_1', approve: false })).proposal.status).toBe('rejected');
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'k')).toBeNull();
    expect(storesOf(s).audit.forTarget('prop_1').map((e) => e.action)).toEqual(['propose', 'reject']);
    const e = await toolError(P({ action: 'decide', proposal_id: 'prop_1', approve: true }));
    expect(e.field).toBe('proposal_id');
    expect(e.message).toContain('prop_1 is rejected');
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'k')).toBeNull();
  });

  it('needs proposal_id and approve, and refuses an unknown id', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v' });
    expect((await toolError(P({ action: 'decide', approve: true }))).field).toBe('proposal_id');
    expect((await toolError(P({ action: 'decide', proposal_id: 'prop_1' }))).field).toBe('approve');
    expect((await toolError(P({ action: 'decide', proposal_id: 'prop_9', approve: true }))).field).toBe('proposal_id');
    expect((await toolError(P({ action: 'decide', proposal_id: 'garbage', approve: true }))).field).toBe('proposal_id');
  });

  it('keeps layers and user_ids apart', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v' });
    expect((await P({ action: 'list', layer: 'agent' })).count).toBe(0);
    expect((await P({ action: 'list', user_id: 'bob' })).count).toBe(0);
    const e = await toolError(P({ action: 'decide', proposal_id: 'prop_1', approve: true, user_id: 'bob' }));
    expect(e.field).toBe('proposal_id');
    expect((await P({ action: 'list' })).proposals[0].status).toBe('pending');
  });
});

describe('memory_proposals revert', () => {
  it('reverts an applied core_write (restoring the previous value) and refuses a second revert', async () => {
    s = await start();
    const U = { layer: 'user' as const, user_id: 'default' };
    storesOf(s).facts.upsert(U, { key: 'city', value: 'Paris', importance: 0.6 });
    await P({ action: 'propose', kind: 'core_write', key: 'city', value: 'Lyon' });
    await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    const r = await P({ action: 'revert', proposal_id: 'prop_1' });
    expect(r.proposal).toMatchObject({ status: 'reverted' });
    expect(r.proposal.shadow_id).toMatch(/^bin_/);
    expect(storesOf(s).facts.get(U, 'city')).toMatchObject({ value: 'Paris', importance: 0.6 });
    const e = await toolError(P({ action: 'revert', proposal_id: 'prop_1' }));
    expect(e.field).toBe('proposal_id');
    expect(e.message).toContain('is reverted');
  });

  it('reverting a wiki_write removes the created page and archives it in the Shadow Bin', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'wiki_write', title: 'Draft', content: 'text' });
    await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    const U = { layer: 'user' as const, user_id: 'default' };
    const file = path.join(s.dataDir, storesOf(s).wiki.getByTitle(U, 'Draft')!.path);
    const r = await P({ action: 'revert', proposal_id: 'prop_1' });
    expect(storesOf(s).wiki.getByTitle(U, 'Draft')).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
    expect(storesOf(s).shadowBin.get(r.proposal.shadow_id)).toMatchObject({ origin_store: 'wiki', origin_id: 'Draft' });
    expect(storesOf(s).audit.forTarget('prop_1').map((x) => x.action)).toEqual(['propose', 'approve', 'revert']);
  });

  it('refuses to revert a pending or rejected proposal, or a write changed since, naming proposal_id', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'k', value: 'v1' });
    expect((await toolError(P({ action: 'revert', proposal_id: 'prop_1' }))).message).toContain('prop_1 is pending');
    await P({ action: 'decide', proposal_id: 'prop_1', approve: true });
    storesOf(s).facts.upsert({ layer: 'user', user_id: 'default' }, { key: 'k', value: 'v2' });
    const e = await toolError(P({ action: 'revert', proposal_id: 'prop_1' }));
    expect(e.field).toBe('proposal_id');
    expect(e.message).toContain('was changed');
    expect(storesOf(s).facts.get({ layer: 'user', user_id: 'default' }, 'k')?.value).toBe('v2');
    expect((await toolError(P({ action: 'revert' }))).field).toBe('proposal_id');
  });
});

describe('memory_proposals revert_transition', () => {
  it('removes the promoted L4 fact, keeps the episode, and a second revert is an error naming transition_id', async () => {
    s = await start();
    const st = storesOf(s);
    const U = { layer: 'user' as const, user_id: 'default' };
    const ep = st.episodes.add(U, { summary: 'The staging database is reset every Sunday night', importance: 0.9 });
    const { Consolidator } = await import('@memory-service/stores');
    const c = new Consolidator(st, s.kernel.clock).consolidate(U).consolidated[0]!;
    const r = await P({ action: 'revert_transition', transition_id: c.transition_id });
    expect(r.transition).toMatchObject({ transition_id: c.transition_id, episode_id: ep.id, entry_id: c.entry_id });
    expect(r.transition.reverted).not.toBeNull();
    expect(r.deleted_entry_id).toBe(c.entry_id);
    expect(st.facts.getByEntryId(c.entry_id)).toBeNull();
    expect(st.episodes.get(U, ep.id)).not.toBeNull();
    const e = await toolError(P({ action: 'revert_transition', transition_id: c.transition_id }));
    expect(e.field).toBe('transition_id');
    expect(e.message).toContain('already reverted');
  });

  it('needs a known transition_id of the scope', async () => {
    s = await start();
    expect((await toolError(P({ action: 'revert_transition' }))).field).toBe('transition_id');
    expect((await toolError(P({ action: 'revert_transition', transition_id: 'tr_4' }))).field).toBe('transition_id');
  });
});

describe('pending proposals in the session_started inject', () => {
  it('lists the pending proposals of the scope only, and none once decided', async () => {
    s = await start();
    await P({ action: 'propose', kind: 'core_write', key: 'editor', value: 'helix' });
    await P({ action: 'propose', kind: 'core_write', key: 'secret', value: 'x', user_id: 'bob' });
    const r = await inject();
    expect(r.inject).toContain('## Pending proposals');
    expect(r.inject).toContain('prop_1 core_write editor = "helix"');
    expect(r.inject).not.toContain('secret');
    expect(r.blocks).toContainEqual({ source: 'proposals', title: 'Pending proposals', score: null });
    await P({ action: 'decide', proposal_id: 'prop_1', approve: false });
    expect((await inject()).inject).not.toContain('Pending proposals');
  });

  it('works with the review tools hidden', async () => {
    s = await start({ expose: 'primitives' });
    storesOf(s).proposals.propose({ layer: 'agent', user_id: 'default' }, { kind: 'wiki_write', title: 'Lessons', content: 'c' });
    expect((await inject({ layer: 'agent' })).inject).toContain('wiki_write "Lessons"');
    expect((await inject()).inject).not.toContain('Lessons');
  });
});
