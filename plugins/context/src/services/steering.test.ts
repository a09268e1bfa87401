import { describe, expect, it } from 'vitest';
import { steer, STEERING_MAX_HINTS, STEERING_ROUTES } from './steering.js';

describe('the steering table', () => {
  it('has 8 routes with distinct names, each naming a tool this server serves', () => {
    expect(STEERING_ROUTES).toHaveLength(8);
    expect(new Set(STEERING_ROUTES.map((r) => r.route)).size).toBe(8);
    const served = ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up', 'memory_steering', 'memory_compress', 'memory_context', 'memory_context_inject', 'memory_get_smart_context'];
    for (const r of STEERING_ROUTES) expect(served.includes(r.tool) || r.tool.startsWith('wiki_'), r.tool).toBe(true);
  });
});

describe('steer', () => {
  it('matches whole words and phrases, case and accents folded', () => {
    expect(steer('Please REMEMBER that my sister is called Ana').map((h) => h.tool)).toEqual(['think']);
    expect(steer('forgetful')).toEqual([]); // not the word "forget"
    expect(steer('Délete the old address')[0]).toMatchObject({ route: 'delete', tool: 'forget', score: 1, matched_keywords: ['delete'] });
  });

  it('scores a multi-word phrase 2 and ranks by score, ties in table order', () => {
    const hints = steer('where were we? search the log');
    // context: "where were we" (2); recall: "search" (1); compress: "log" (1): recall comes before compress in the table.
    expect(hints.map((h) => [h.route, h.score])).toEqual([
      ['context', 2],
      ['recall', 1],
      ['compress', 1],
    ]);
  });

  it('answers at most 3 hints however many routes match', () => {
    const q = 'remember, search, delete, persona, project, wiki, resume, compress';
    expect(steer(q)).toHaveLength(STEERING_MAX_HINTS);
    expect(steer(q).map((h) => h.route)).toEqual(['store', 'recall', 'delete']);
  });

  it('answers nothing for a query with no keyword', () => {
    expect(steer('the weather is nice')).toEqual([]);
  });
});
