import { describe, expect, it } from 'vitest';
import { queryOut, querySchema } from './memory-standing.js';

describe('memory_standing query records', () => {
  it('carry spec_json (filters plus description, the spec\'s record field) beside the existing fields, and the output schema keeps it', () => {
    const q = { name: 'Prefs', description: 'preferences', filters: { target: 'core' as const, key_like: 'pref:', limit: 5 }, created: '2026-01-01T00:00:00.000Z', updated: '2026-01-02T00:00:00.000Z' };
    const out = queryOut(q);
    expect(out).toEqual({
      name: 'Prefs',
      spec_json: { target: 'core', key_like: 'pref:', limit: 5, description: 'preferences' },
      description: 'preferences',
      filters: { target: 'core', key_like: 'pref:', limit: 5 },
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-02T00:00:00.000Z',
    });
    // Its own copy: changing the answer does not change the record.
    out.spec_json.key_like = 'x';
    expect(q.filters.key_like).toBe('pref:');
    expect(querySchema.parse(queryOut(q))).toEqual(queryOut(q));
    expect(Object.keys(querySchema.shape)).toContain('spec_json');
  });
});
