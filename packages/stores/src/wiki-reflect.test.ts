import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTokens } from './retrieval/budget.js';
import { A, U, U2, makeEnv, type Env } from './test-helpers.js';
import { WIKI_REFLECT_LIST_MAX, WIKI_REFLECT_MAX_TOKENS, WIKI_REFLECT_TOP_LINKED, reflectionDigest } from './wiki-reflect.js';
import { SKILL_PAGE_MAX_BYTES, wikiLint, wikiSizeLint } from './wiki-types.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const HOUR = 3_600_000;

describe('wiki lint', () => {
  it('flags a skill page over 4 KB, and a type of the other layer', () => {
    expect(wikiSizeLint({ wiki_type: 'skill', size: SKILL_PAGE_MAX_BYTES })).toBeNull();
    expect(wikiSizeLint({ wiki_type: 'skill', size: SKILL_PAGE_MAX_BYTES + 1 })).toBe('skill page is 4097 bytes, over the 4096-byte skill page cap');
    expect(wikiSizeLint({ wiki_type: 'diary', size: 100_000 })).toBeNull();
    expect(wikiLint('user', { wiki_type: 'decision_log', size: 1 })).toEqual(['decision_log is an agent-layer type, saved on the user layer as asked']);
    expect(wikiLint('agent', { wiki_type: 'skill', size: 5000 })).toEqual(['skill page is 5000 bytes, over the 4096-byte skill page cap']);
    expect(wikiLint('agent', { wiki_type: 'decision_log', size: 5000 })).toEqual([]);
  });
});

describe('WikiStore.reflect', () => {
  it('counts pages created and only updated in the period by type, the boundary included', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Old', content: 'old', wiki_type: 'diary' });
    w.save(U, { title: 'Old untouched', content: 'old', wiki_type: 'diary' });
    env.clock.advance(2 * HOUR);
    w.save(U, { title: 'Old', content: 'edited', wiki_type: 'diary' });
    w.save(U, { title: 'New', content: 'new', wiki_type: 'preferences' });
    w.save(U, { title: 'New diary', content: 'new', wiki_type: 'diary' });
    env.clock.advance(HOUR);
    const r = w.reflect(U, 1);
    expect(r).toMatchObject({ layer: 'user', period_hours: 1, since: '2026-01-01T02:00:00.000Z', until: '2026-01-01T03:00:00.000Z', created: 2, updated: 1 });
    // In WIKI_TYPES order, only types with a change.
    expect(r.by_type).toEqual([
      { wiki_type: 'diary', created: 1, updated: 1 },
      { wiki_type: 'preferences', created: 1, updated: 0 },
    ]);
    // One millisecond later the changes at 02:00 are out.
    env.clock.advance(1);
    expect(w.reflect(U, 1)).toMatchObject({ created: 0, updated: 0, by_type: [], most_linked: [], orphans: [], orphan_count: 0 });
    expect(w.reflect(U, 1).digest).toContain('No pages were created or updated in the period.');
    // A longer period takes in the first saves: Old is created in it now, Old untouched too.
    expect(w.reflect(U, 24)).toMatchObject({ created: 4, updated: 0 });
    // An explicit time reads the period up to it.
    expect(w.reflect(U, 1, Date.UTC(2026, 0, 1, 0, 30))).toMatchObject({ created: 1, updated: 0, by_type: [{ wiki_type: 'diary', created: 1 }] });
  });

  it('lists the most-linked changed pages by in-links, ties by title, and the orphans', () => {
    const w = env.stores.wiki;
    for (const t of ['Hub', 'Beta', 'Alpha', 'Leaf 1', 'Leaf 2', 'Lonely', 'Also lonely']) w.save(U, { title: t, content: t, wiki_type: 'work_notes' });
    w.link(U, 'Leaf 1', 'Hub', 'follows');
    w.link(U, 'Leaf 2', 'Hub', 'follows');
    w.link(U, 'Leaf 2', 'Hub', 'revises');
    w.link(U, 'Leaf 1', 'Beta', 'review_of');
    w.link(U, 'Leaf 2', 'Alpha', 'review_of');
    const r = w.reflect(U);
    expect(r.most_linked.map((p) => [p.title, p.in_links, p.out_links])).toEqual([
      ['Hub', 3, 0],
      ['Alpha', 1, 0],
      ['Beta', 1, 0],
    ]);
    expect(r.orphans.map((p) => p.title)).toEqual(['Also lonely', 'Lonely']);
    expect(r.orphan_count).toBe(2);
    expect(r.orphans[0]).not.toHaveProperty('content');
    // Links from the same pages in another scope count nothing here.
    for (const t of ['Lonely', 'Hub']) w.save(U2, { title: t, content: t, wiki_type: 'work_notes' });
    w.link(U2, 'Lonely', 'Hub', 'follows');
    expect(w.reflect(U).orphans.map((p) => p.title)).toEqual(['Also lonely', 'Lonely']);
    expect(w.reflect(U2).orphans).toEqual([]);
    expect(w.reflect(U2).most_linked.map((p) => p.title)).toEqual(['Hub']);
  });

  it('caps the most-linked list and the orphans list, counting them whole', () => {
    const w = env.stores.wiki;
    w.save(U, { title: 'Source', content: 's', wiki_type: 'diary' });
    for (let i = 0; i < WIKI_REFLECT_TOP_LINKED + 2; i++) {
      w.save(U, { title: `Target ${String(i).padStart(2, '0')}`, content: 't', wiki_type: 'diary' });
      w.link(U, 'Source', `Target ${String(i).padStart(2, '0')}`, 'follows');
    }
    for (let i = 0; i < WIKI_REFLECT_LIST_MAX + 3; i++) w.save(U, { title: `Orphan ${String(i).padStart(2, '0')}`, content: 'o', wiki_type: 'diary' });
    const r = w.reflect(U);
    expect(r.most_linked).toHaveLength(WIKI_REFLECT_TOP_LINKED);
    expect(r.most_linked[0]!.title).toBe('Target 00');
    expect(r.orphans).toHaveLength(WIKI_REFLECT_LIST_MAX);
    expect(r.orphan_count).toBe(WIKI_REFLECT_LIST_MAX + 3);
    expect(r.orphans[0]!.title).toBe('Orphan 00');
  });

  it('lists the changed pages over their size lint, largest first, with the lint wiki_add reports', () => {
    const w = env.stores.wiki;
    w.save(A, { title: 'Big skill', content: 'x'.repeat(5000), wiki_type: 'skill' });
    w.save(A, { title: 'Bigger skill', content: 'x'.repeat(6000), wiki_type: 'skill' });
    w.save(A, { title: 'Small skill', content: 'x'.repeat(SKILL_PAGE_MAX_BYTES), wiki_type: 'skill' });
    w.save(A, { title: 'Big log', content: 'x'.repeat(9000), wiki_type: 'decision_log' });
    const r = w.reflect(A);
    expect(r.over_size_lint.map((p) => [p.title, p.lint])).toEqual([
      ['Bigger skill', wikiSizeLint({ wiki_type: 'skill', size: 6000 })],
      ['Big skill', wikiSizeLint({ wiki_type: 'skill', size: 5000 })],
    ]);
    expect(r.over_size_lint_count).toBe(2);
    expect(r.digest).toContain('## Over size lint (2)\n- Bigger skill: skill page is 6000 bytes');
    expect(w.reflect(U).over_size_lint_count).toBe(0);
  });

  it('writes a Markdown digest within its token cap, the same for the same pages and time', () => {
    const w = env.stores.wiki;
    for (let i = 0; i < 120; i++) w.save(U, { title: `A rather long page title number ${i} ${'about things '.repeat(10)}`, content: 'c', wiki_type: 'diary' });
    const r = w.reflect(U);
    expect(r.truncated).toBe(true);
    expect(r.estimated_tokens).toBe(estimateTokens(r.digest));
    expect(r.estimated_tokens).toBeLessThanOrEqual(WIKI_REFLECT_MAX_TOKENS);
    expect(r.digest.startsWith('# Wiki reflection: user layer, last 24 hours\n\n_2025-12-31T00:00:00.000Z to 2026-01-01T00:00:00.000Z: 120 pages created, 0 updated._')).toBe(true);
    expect(r.digest).toContain('## Changes by type\n- diary: 120 created, 0 updated');
    expect(w.reflect(U)).toEqual(r);
    const { digest, estimated_tokens, truncated, ...rest } = r;
    expect(reflectionDigest(rest)).toEqual({ digest, estimated_tokens, truncated });
  });

  it('refuses a period that is not a whole number of hours from 1 to 8760', () => {
    const w = env.stores.wiki;
    for (const bad of [0, -1, 1.5, 8761, Number.NaN]) {
      expect(() => w.reflect(U, bad), String(bad)).toThrow(expect.objectContaining({ field: 'period_hours', accepted: '1..8760' }));
    }
    expect(w.reflect(U, 8760).period_hours).toBe(8760);
  });
});
