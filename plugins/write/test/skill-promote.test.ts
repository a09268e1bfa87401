import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const A = { layer: 'agent' as const, user_id: 'default' };
const U = { layer: 'user' as const, user_id: 'default' };
const promote = (args: Record<string, unknown>) => s.call('memory_skill_promote', args);

describe('memory_skill_promote from episodes', () => {
  it('promotes agent episodes verbatim to skill pages with a provenance footer, once (skill_promoted)', async () => {
    s = await start();
    const a: any = await s.call('memory_episode_save', { summary: 'Bisect flaky tests\nRun git bisect with the test as the script.', tags: ['dream_skill'], layer: 'agent' });
    const b: any = await s.call('memory_episode_save', { summary: 'Pin the toolchain version in CI.', layer: 'agent' });
    const r: any = await promote({ episode_ids: [a.episode.id, b.episode.id] });
    expect(r.mode).toBe('episodes');
    expect(r.promotions.map((p: any) => [p.episode_id, p.status])).toEqual([[a.episode.id, 'promoted'], [b.episode.id, 'promoted']]);
    expect(r.promotions[0].page).toMatchObject({ title: 'Bisect flaky tests', wiki_type: 'skill', tags: ['skill_promoted', `episode:${a.episode.id}`] });
    const page = storesOf(s).wiki.getByTitle(A, 'Bisect flaky tests')!;
    expect(page.content.startsWith('Bisect flaky tests\nRun git bisect with the test as the script.\n\n---\n')).toBe(true);
    expect(page.content).toContain(`promoted verbatim from episode ${a.episode.id}`);
    expect(storesOf(s).episodes.get(A, a.episode.id)?.tags).toEqual(['dream_skill', 'skill_promoted']);
    const again: any = await promote({ episode_ids: [a.episode.id] });
    expect(again.promotions).toEqual([expect.objectContaining({ episode_id: a.episode.id, status: 'already_promoted', page: expect.objectContaining({ title: 'Bisect flaky tests' }) })]);
    expect(storesOf(s).wiki.count(A, 'skill')).toBe(2);
    // The user layer saw nothing.
    expect(storesOf(s).wiki.count(U)).toBe(0);
  });

  it('names episode_ids for a malformed, unknown, other-layer or over-4 KB episode, and writes no page', async () => {
    s = await start();
    const ok: any = await s.call('memory_episode_save', { summary: 'small', layer: 'agent' });
    const big: any = await s.call('memory_episode_save', { summary: 'y'.repeat(4050), layer: 'agent' });
    const user: any = await s.call('memory_episode_save', { summary: 'a user episode' });
    for (const bad of ['ep_999', 'episode', big.episode.id, user.episode.id]) {
      const e = await toolError(promote({ episode_ids: [ok.episode.id, bad] }));
      expect(e.field, bad).toBe('episode_ids');
    }
    expect((await toolError(promote({ episode_ids: [] }))).field).toBe('episode_ids');
    expect(storesOf(s).wiki.count(A)).toBe(0);
    expect(storesOf(s).episodes.get(A, ok.episode.id)?.tags).toEqual([]);
    // On the user layer, asked for, the user's episode is promoted into the user's wiki.
    const r: any = await promote({ episode_ids: [user.episode.id], layer: 'user' });
    expect(r.promotions[0].status).toBe('promoted');
    expect(storesOf(s).wiki.count(U, 'skill')).toBe(1);
  });
});

describe('memory_skill_promote direct', () => {
  it('writes an agent-distilled skill page, updates it by title, and refuses a page over 4 KB', async () => {
    s = await start();
    const r: any = await promote({ title: 'Review checklist', content: '- tests\n- docs', tags: ['area:review'] });
    expect(r).toMatchObject({ mode: 'direct', status: 'created', page: { title: 'Review checklist', wiki_type: 'skill', tags: ['agent_distilled', 'area:review'] } });
    const up: any = await promote({ title: 'Review checklist', content: '- tests\n- docs\n- changeset' });
    expect(up.status).toBe('updated');
    expect(storesOf(s).wiki.getByTitle(A, 'Review checklist')?.content).toBe('- tests\n- docs\n- changeset');
    const e = await toolError(promote({ title: 'Too big', content: 'z'.repeat(4097) }));
    expect(e.field).toBe('content');
    expect(e.message).toContain('4096');
    expect(((await promote({ title: 'Just fits', content: 'z'.repeat(4096) })) as any).page.size).toBe(4096);
    expect(storesOf(s).wiki.getByTitle(A, 'Too big')).toBeNull();
  });

  it('names the field of bad input', async () => {
    s = await start();
    storesOf(s).wiki.save(A, { title: 'Why Postgres', content: 'because', wiki_type: 'decision_log' });
    expect((await toolError(promote({}))).field).toBe('episode_ids');
    expect((await toolError(promote({ title: 'Only a title' }))).field).toBe('content');
    expect((await toolError(promote({ content: 'only content' }))).field).toBe('title');
    expect((await toolError(promote({ episode_ids: ['ep_1'], title: 'x', content: 'y' }))).field).toBe('title');
    expect((await toolError(promote({ episode_ids: ['ep_1'], tags: ['x'] }))).field).toBe('tags');
    expect((await toolError(promote({ title: 'Why Postgres', content: 'a skill' }))).field).toBe('title');
    expect((await toolError(promote({ title: 'T', content: 'c', tags: ['area:'] }))).field).toBe('tags');
    expect(storesOf(s).wiki.getByTitle(A, 'Why Postgres')?.wiki_type).toBe('decision_log');
    expect(storesOf(s).wiki.count(A, 'skill')).toBe(0);
  });
});
