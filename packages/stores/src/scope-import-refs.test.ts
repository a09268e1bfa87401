import { describe, expect, it } from 'vitest';
import { ImportRefs } from './scope-import-refs.js';

function refs(): ImportRefs {
  const r = new ImportRefs();
  r.nodes.set('node_1', 'node_7');
  r.episodes.set('ep_1', 'ep_9');
  r.facts.set('fact_1', 'fact_4');
  r.sessions.set('sess_1', 'sess_3');
  r.page({ id: 'wiki_1', path: 'wiki/user/alice/diary/t.md', title: 'T' }, { id: 'wiki_5', path: 'wiki/user/bob/diary/t.md' });
  return r;
}

describe('ImportRefs', () => {
  it('maps the ids a record names and drops those it cannot map, the proposal id always', () => {
    const out = refs().record(
      { origin: 'think', derived_nodes: ['node_1', 'node_2', 3], from_episode: 'ep_2', session_id: 'sess_1', proposal_id: 'prop_1', wiki_path: 'wiki/user/alice/diary/t.md', other: 'node_1' },
      'Excerpt [wiki: T (wiki/user/alice/diary/t.md)]',
    );
    expect(out).toEqual({
      meta: { origin: 'think', derived_nodes: ['node_7'], session_id: 'sess_3', wiki_path: 'wiki/user/bob/diary/t.md', other: 'node_1' },
      text: 'Excerpt [wiki: T (wiki/user/bob/diary/t.md)]',
    });
    expect(refs().record({ derived_nodes: ['node_2'], wiki_path: 'wiki/user/alice/diary/gone.md' }, 'x')).toEqual({ meta: {}, text: 'x' });
  });

  it("finds a link's page by the title its text shows when the document gives no page paths", () => {
    const r = new ImportRefs();
    r.page({ title: 'Thought (2)' }, { id: 'wiki_5', path: 'wiki/user/bob/diary/thought-2.md' });
    const out = r.record({ wiki_path: 'wiki/user/alice/diary/thought-2.md' }, 'Text [wiki: x] [wiki: Thought (2) (wiki/user/alice/diary/thought-2.md)]');
    expect(out.text).toBe('Text [wiki: x] [wiki: Thought (2) (wiki/user/bob/diary/thought-2.md)]');
  });

  it("maps a timeline event's refs by store, drops L1 and unknown records' refs, and keeps refs of another form", () => {
    expect(refs().timeline({ refs: ['l1:l1_1', 'l3:ep_1', 'l4:fact_1', 'graph:node_1', 'wiki:wiki_1', 'l3:ep_5', 'custom:x', 7], entry_id: 'fact_2', key: 'k' })).toEqual({
      refs: ['l3:ep_9', 'l4:fact_4', 'graph:node_7', 'wiki:wiki_5', 'custom:x', 7],
      key: 'k',
    });
  });

  it("re-points a skill page's episode tag and provenance, or drops the tag", () => {
    const r = refs();
    expect(r.skillPage(['skill_promoted', 'episode:ep_1'], 'Body\n---\nProvenance: promoted verbatim from episode ep_1 (layer user, created x).')).toEqual({
      tags: ['skill_promoted', 'episode:ep_9'],
      content: 'Body\n---\nProvenance: promoted verbatim from episode ep_9 (layer user, created x).',
    });
    expect(r.skillPage(['episode:ep_2'], 'c').tags).toEqual([]);
    expect(ImportRefs.namesEpisode(['skill_promoted', 'episode:ep_1'])).toBe(true);
    expect(ImportRefs.namesEpisode(['travel'])).toBe(false);
  });

  it("maps a reflection's most recalled by source, dropping rows of records the document does not hold", () => {
    const rows = [
      { source: 'l3' as const, id: 'ep_1', text: 'a', access_count: 2 },
      { source: 'l4' as const, id: 'fact_1', text: 'b', access_count: 1 },
      { source: 'l4' as const, id: 'ep_1', text: 'c', access_count: 1 },
    ];
    expect(refs().mostRecalled(rows).map((m) => m.id)).toEqual(['ep_9', 'fact_4']);
  });
});
