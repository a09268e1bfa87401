import { describe, expect, it } from 'vitest';
import { matchedEntities, renderSideBySide } from './side-by-side.js';
import { parseSideBySideArgs } from './side-by-side-args.js';
import { madeUpWord, MAX_VOCABULARY, workload, zipfRank } from './workloads.js';
import { Prng } from './prng.js';

describe('side-by-side arguments', () => {
  it('defaults to N = 10,000, 300 rounds, the benchmark workload', () => {
    expect(parseSideBySideArgs([])).toMatchObject({ n: 10_000, samples: 300, workload: 'bench', json: false });
  });

  it('reads flags and refuses what it cannot use, naming the flag', () => {
    expect(parseSideBySideArgs(['--n', '200', '--samples', '5', '--workload', 'zipf:300', '--json', '--seed', '0'])).toEqual({
      n: 200,
      samples: 5,
      workload: 'zipf:300',
      seed: 0,
      json: true,
    });
    expect(() => parseSideBySideArgs(['--n', '0'])).toThrow(/--n/);
    expect(() => parseSideBySideArgs(['--samples', '1.5'])).toThrow(/--samples/);
    expect(() => parseSideBySideArgs(['--workload', 'zipf'])).toThrow(/--workload must be bench, uniform:<V> or zipf:<V>/);
    expect(() => parseSideBySideArgs(['--workload', `uniform:${MAX_VOCABULARY + 1}`])).toThrow(/--workload/);
    expect(() => parseSideBySideArgs(['--workload'])).toThrow(/needs a value/);
    expect(() => parseSideBySideArgs(['--bogus', '1'])).toThrow(/unknown option --bogus/);
  });
});

describe('workloads', () => {
  it('are the same texts and queries for the same name and seed, and others for another seed', () => {
    for (const name of ['bench', 'uniform:26', 'zipf:2000']) {
      const a = workload(name, 7);
      const b = workload(name, 7);
      const c = workload(name, 8);
      const take = (w: ReturnType<typeof workload>) => [w.nextText(), w.nextQuery(), w.nextText(), w.nextQuery()];
      const ta = take(a);
      expect(take(b)).toEqual(ta);
      expect(take(c)).not.toEqual(ta);
    }
  });

  it('made-up words are distinct, of two syllables or more, and of letters only', () => {
    const words = Array.from({ length: 5000 }, (_, i) => madeUpWord(i));
    expect(new Set(words).size).toBe(words.length);
    for (const w of words) expect(w).toMatch(/^([bdfgklmnprstvz][aiou]){2,}$/);
  });

  it('a uniform workload of V words uses only those words: texts of 12 to 21, queries of 1 or 2', () => {
    const vocabulary = new Set(Array.from({ length: 26 }, (_, i) => madeUpWord(i)));
    const w = workload('uniform:26', 1);
    for (let i = 0; i < 200; i++) {
      const words = w.nextText().toLowerCase().replace(/\.$/, '').split(' ');
      expect(words.length).toBeGreaterThanOrEqual(12);
      expect(words.length).toBeLessThanOrEqual(21);
      for (const x of words) expect(vocabulary.has(x)).toBe(true);
      const q = w.nextQuery().split(' ');
      expect(q.length === 1 || q.length === 2).toBe(true);
      expect(new Set(q).size).toBe(q.length);
    }
  });

  it('zipf ranks stay in range and favour the first ranks', () => {
    const r = new Prng(3);
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 20_000; i++) {
      const k = zipfRank(r, 100);
      expect(k).toBeGreaterThanOrEqual(0);
      expect(k).toBeLessThan(100);
      counts[k]!++;
    }
    expect(counts[0]!).toBeGreaterThan(counts[9]! * 5);
    expect(counts[9]!).toBeGreaterThan(counts[99]! * 5);
  });
});

describe('side-by-side report', () => {
  it('counts the entities of a search_nodes answer, and 0 for text that is not one', () => {
    expect(matchedEntities(JSON.stringify({ entities: [{ name: 'a' }, { name: 'b' }], relations: [] }))).toBe(2);
    expect(matchedEntities('not json')).toBe(0);
    expect(matchedEntities(undefined)).toBe(0);
  });

  it('prints p50s and ratios', () => {
    const out = renderSideBySide({
      workload: 'zipf:300',
      n: 200,
      samples: 5,
      write: { reference_p50_ms: 10, ours_p50_ms: 0.5, ratio: 20 },
      search: { reference_p50_ms: 30.25, ours_p50_ms: 1, ratio: 30.25, reference_matches_p50: 12 },
    });
    expect(out).toContain('workload zipf:300, N = 200, 5 rounds');
    expect(out).toContain('| write (create_entities / think) | 10.0 | 0.500 | 20.0x |');
    expect(out).toContain('| search (search_nodes / dream, limit 10) | 30.3 | 1.000 | 30.3x |');
    expect(out).toContain('search_nodes returned 12 entities (p50) of 200.');
  });
});
