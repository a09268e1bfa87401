import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('SkillStore', () => {
  it('promotes an episode verbatim to a skill page with a provenance footer, once', () => {
    const ep = env.stores.episodes.add(A, { summary: '# Rebase safely\nFetch, then rebase onto origin/main.', tags: ['dream_skill'] });
    const [r] = env.stores.skills.promoteEpisodes(A, [ep.id]);
    expect(r).toMatchObject({ episode_id: ep.id, status: 'promoted' });
    expect(r!.page).toMatchObject({ title: 'Rebase safely', wiki_type: 'skill', tags: ['skill_promoted', `episode:${ep.id}`] });
    expect(r!.page!.content.startsWith('# Rebase safely\nFetch, then rebase onto origin/main.\n\n---\nProvenance: promoted verbatim from episode ep_1')).toBe(true);
    expect(env.stores.episodes.get(A, ep.id)?.tags).toEqual(['dream_skill', 'skill_promoted']);
    const [again] = env.stores.skills.promoteEpisodes(A, [ep.id]);
    expect(again).toMatchObject({ status: 'already_promoted', page: { title: 'Rebase safely' } });
    expect(env.stores.wiki.count(A, 'skill')).toBe(1);
  });

  it('refuses an unknown, other-scope or over-4 KB episode naming episode_ids, writing nothing', () => {
    const ok = env.stores.episodes.add(A, { summary: 'small skill' });
    const big = env.stores.episodes.add(A, { summary: 'x'.repeat(4090) });
    const user = env.stores.episodes.add(U, { summary: 'user episode' });
    for (const ids of [[ok.id, big.id], [ok.id, 'ep_999'], [ok.id, user.id], ['episode 1']]) {
      expect(() => env.stores.skills.promoteEpisodes(A, ids)).toThrow(expect.objectContaining({ field: 'episode_ids' }));
    }
    expect(env.stores.wiki.count(A)).toBe(0);
    expect(env.stores.episodes.get(A, ok.id)?.tags).toEqual([]);
  });

  it('writes an agent-distilled skill page directly, updates it by title, refuses other types and over 4 KB', () => {
    const p = env.stores.skills.write(A, { title: 'Bisect', content: 'Use git bisect run.', tags: ['git'] });
    expect(p).toMatchObject({ wiki_type: 'skill', tags: ['agent_distilled', 'git'], created_new: true });
    expect(env.stores.skills.write(A, { title: 'Bisect', content: 'Use git bisect run with a script.' })).toMatchObject({ created_new: false, content: 'Use git bisect run with a script.' });
    env.stores.wiki.save(A, { title: 'Why', content: 'because', wiki_type: 'decision_log' });
    expect(() => env.stores.skills.write(A, { title: 'Why', content: 'x' })).toThrow(expect.objectContaining({ field: 'title' }));
    expect(() => env.stores.skills.write(A, { title: 'Huge', content: 'é'.repeat(2049) })).toThrow(expect.objectContaining({ field: 'content' }));
    expect(env.stores.skills.write(A, { title: 'Edge', content: 'a'.repeat(4096) }).size).toBe(4096);
    expect(env.stores.wiki.getByTitle(A, 'Why')?.wiki_type).toBe('decision_log');
  });
});
