import { describe, expect, it } from 'vitest';
import { checkFastOutputAgainstZod } from './fast-output.fixture.js';
import { fastOutput } from './fast-output.js';
import { checkOutput, type RegisteredTool } from './tools.js';
import { z } from './zod.js';

const hit = z.object({
  source: z.string(),
  id: z.string(),
  score: z.number(),
  title: z.string().optional(),
  created: z.string(),
  explain: z.object({ bm25: z.number(), access: z.number() }).optional(),
});
const answer = z.object({
  summary: z.string(),
  truncated: z.boolean(),
  count: z.number().int().min(0),
  kind: z.enum(['a', 'b']),
  note: z.string().nullable(),
  hits: z.array(hit),
  tags: z.array(z.string()).max(3),
  meta: z.record(z.string(), z.unknown()),
  extra: z.unknown(),
  later: z.number().default(5),
  events: z.array(z.object({ id: z.string() })).optional(),
});

const good = () => ({
  summary: 'two hits',
  truncated: false,
  count: 2,
  kind: 'a',
  note: null,
  hits: [
    { source: 'l3', id: 'ep_1', score: 0.5, created: '2026-01-01' },
    { source: 'wiki', id: 'wiki_2', score: 0.25, title: 'Page', created: '2026-01-02', explain: { bm25: 0.2, access: 0.05 } },
  ],
  tags: ['x'],
  meta: { any: [1, { deep: true }], other: null },
  extra: null,
  later: 5,
});

describe('fastOutput', () => {
  it('takes an answer that plainly satisfies the schema, which zod gives back with the same JSON', () => {
    const fast = fastOutput(answer)!;
    expect(fast).toBeTypeOf('function');
    const value = good();
    expect(fast(value)).toBe(true);
    expect(JSON.stringify(answer.parse(value))).toBe(JSON.stringify(value));
    expect(fast({ ...good(), events: [{ id: 'e' }] })).toBe(true);
  });

  it('leaves to zod every answer it is not sure of', () => {
    const fast = fastOutput(answer)!;
    const spoilt: Record<string, (v: ReturnType<typeof good> & Record<string, unknown>) => unknown> = {
      'a key the schema lacks': (v) => ({ ...v, unexpected: 1 }),
      'keys in another order': ({ summary, ...rest }) => ({ ...rest, summary }),
      'a required key left out': ({ count: _count, ...rest }) => rest,
      'a defaulted key left out (zod fills it)': ({ later: _later, ...rest }) => rest,
      'a key given as undefined': (v) => ({ ...v, note: undefined }),
      'a number that is not finite': (v) => ({ ...v, count: NaN }),
      'a fraction where an integer goes': (v) => ({ ...v, count: 1.5 }),
      'a value outside the enum': (v) => ({ ...v, kind: 'c' }),
      'null where the schema has no nullable': (v) => ({ ...v, summary: null }),
      'a wrong type deep in an array': (v) => ({ ...v, hits: [{ ...v.hits[0], score: '0.5' }] }),
      'a key the nested schema lacks': (v) => ({ ...v, hits: [{ ...v.hits[0], excerpt: 'x' }] }),
      'an array over its bound': (v) => ({ ...v, tags: ['a', 'b', 'c', 'd'] }),
      'an undefined array element': (v) => ({ ...v, tags: [undefined] }),
      'a class instance for an object': (v) => ({ ...v, meta: new Date(0) }),
      'an array for a record': (v) => ({ ...v, meta: [] }),
      'an absent unknown (zod may add the key)': ({ extra: _extra, ...rest }) => rest,
    };
    for (const [what, make] of Object.entries(spoilt)) expect(fast(make(good()) as never), what).toBe(false);
    for (const value of [null, undefined, [], 'x', 1, new (class Answer {})()]) expect(fast(value)).toBe(false);
  });

  it('sends the values of parts it does not know to zod, and knows no schema that is not an object', () => {
    const schema = z.object({ a: z.string(), u: z.union([z.string(), z.number()]).optional(), t: z.string().trim().optional() });
    const fast = fastOutput(schema)!;
    expect(fast({ a: 'x' })).toBe(true);
    expect(fast({ a: 'x', u: 'y' })).toBe(false);
    // An overwrite (trim) is known: a value it leaves as it is is sent, another goes to zod.
    expect(fast({ a: 'x', t: 'y' })).toBe(true);
    expect(fast({ a: 'x', t: ' y' })).toBe(false);
    expect(fastOutput(z.object({ a: z.string() }).refine(() => true))).toBeNull();
    expect(fastOutput(z.strictObject({ a: z.string() }))).toBeNull();
    expect(fastOutput(z.looseObject({ a: z.string() }))).toBeNull();
  });

  it('never takes what zod refuses, and takes what it does with the same JSON (random answers)', () => {
    expect(checkFastOutputAgainstZod(answer, 20_000, 3)).toBeGreaterThan(500);
    expect(checkFastOutputAgainstZod(z.object({ list: z.array(z.array(z.number().int()).min(1)), m: z.record(z.string().max(2), hit) }), 5_000, 9)).toBeGreaterThan(100);
  });
});

describe('checkOutput', () => {
  const tool = { name: 'recall', plugin: 'test-plugin', output: answer } as unknown as RegisteredTool;

  it('answers a plain answer as it is, and a copy without the keys the schema lacks otherwise', () => {
    const value = good();
    expect(checkOutput(tool, value)).toBe(value);
    const withExtra = { ...good(), unexpected: 1 };
    const checked = checkOutput(tool, withExtra) as Record<string, unknown>;
    expect(checked).not.toBe(withExtra);
    expect(checked).not.toHaveProperty('unexpected');
    expect(checked).toStrictEqual(answer.parse(good()));
  });

  it('still refuses an answer the schema refuses, naming the tool, its plugin and the field', () => {
    expect(() => checkOutput(tool, { ...good(), hits: [{ source: 'l3' }] })).toThrow(/Tool recall \(plugin test-plugin\).*field "hits\.0\.id"/);
  });
});
