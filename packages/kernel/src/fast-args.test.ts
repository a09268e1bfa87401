import { describe, expect, it } from 'vitest';
import { fastArgs } from './fast-args.js';
import { checkFastArgsAgainstZod } from './fast-args.fixture.js';
import { layerSchema, userIdSchema } from './tools.js';
import { z } from './zod.js';

const plain = z.object({
  query: z.string().min(1).max(40),
  limit: z.number().int().min(1).max(200).nullable().optional(),
  ratio: z.number().gt(0).lt(1).optional(),
  layer: layerSchema.default('user'),
  user_id: userIdSchema,
  intent: z.enum(['recent', 'core', 'balanced']).default('balanced'),
  explain: z.boolean().default(false),
  kind: z.literal('note').optional(),
  title: z.string().max(10).nullable().default(null),
  stamp: z.number().default(() => 7),
});

describe('fastArgs', () => {
  it('takes plain arguments as zod parses them: defaults filled, absent optional keys left out, schema order', () => {
    const fast = fastArgs(plain)!;
    expect(fast).toBeTypeOf('function');
    const got = fast({ explain: true, query: 'hello', limit: null });
    expect(got).toStrictEqual(plain.parse({ explain: true, query: 'hello', limit: null }));
    expect(Object.keys(got!)).toEqual(['query', 'limit', 'layer', 'user_id', 'intent', 'explain', 'title', 'stamp']);
    expect(got).toMatchObject({ layer: 'user', user_id: 'default', intent: 'balanced', title: null, stamp: 7 });
  });

  it('leaves to zod every argument object it is not sure of', () => {
    const fast = fastArgs(plain)!;
    for (const args of [
      null, [], 'x', Object.create(null), { query: '' }, { query: 'x'.repeat(41) }, { query: 'q', limit: 0 }, { query: 'q', limit: 2.5 },
      { query: 'q', limit: Infinity }, { query: 'q', ratio: 0 }, { query: 'q', ratio: 1 }, { query: 'q', ratio: NaN }, { query: 'q', layer: 'robot' },
      { query: 'q', user_id: 'a/b' }, { query: 'q', user_id: '' }, { query: 'q', explain: 'yes' }, { query: 'q', kind: 'other' },
      { query: 'q', layer: null }, { query: 'q', limit: undefined }, { query: 'q', extra: 1 }, {}, { query: 5 },
      { query: 'q', user_id: '\u200b' }, { query: 'q', user_id: ' \u2060\u00ad' },
    ]) {
      expect(fast(args), JSON.stringify(args)).toBeUndefined();
    }
  });

  it('gives no shortcut to a schema with parts it does not know', () => {
    expect(fastArgs(z.object({ tags: z.array(z.string()) }))).toBeNull();
    expect(fastArgs(z.object({ mail: z.email() }))).toBeNull();
    expect(fastArgs(z.object({ n: z.number().refine((v) => v !== 3) }))).toBeNull();
    expect(fastArgs(z.object({ a: z.string() }).refine(() => true))).toBeNull();
    expect(fastArgs(z.strictObject({ a: z.string() }))).toBeNull();
    expect(fastArgs(z.object({ a: z.string().default('x').optional() }))).toBeNull();
    expect(fastArgs(z.object({ a: z.string().transform((s) => s.length) }))).toBeNull();
    expect(fastArgs(z.object({ a: z.coerce.number() }))).toBeNull();
  });

  it('never takes what zod refuses, and takes what it does as zod gives it (random arguments)', () => {
    expect(checkFastArgsAgainstZod(plain, 20_000, 3)).toBeGreaterThan(200);
    const small = z.object({ id: z.string().regex(/^[a-z ]+$/), n: z.number().int().nonnegative().optional() });
    expect(checkFastArgsAgainstZod(small, 5_000, 4)).toBeGreaterThan(0);
  });

  it('takes a string an overwrite leaves as it is, and leaves to zod one it would change', () => {
    const upper = z.object({ id: z.string().overwrite((v) => v.toUpperCase()).max(3) });
    const fast = fastArgs(upper)!;
    expect(fast).toBeTypeOf('function');
    expect(fast({ id: 'AB' })).toStrictEqual({ id: 'AB' });
    expect(fast({ id: 'ab' })).toBeUndefined();
    expect(upper.parse({ id: 'ab' })).toStrictEqual({ id: 'AB' });
    expect(checkFastArgsAgainstZod(upper, 5_000, 6)).toBeGreaterThan(0);
    const nfc = z.object({ id: z.string().overwrite((v) => v.normalize('NFC')) });
    expect(checkFastArgsAgainstZod(nfc, 5_000, 7)).toBeGreaterThan(0);
    expect(fastArgs(nfc)!({ id: 'Jose\u0301' })).toBeUndefined();
    // .trim() is an overwrite too: a text with nothing to trim is taken, another goes to zod.
    const trimmed = fastArgs(z.object({ text: z.string().trim() }))!;
    expect(trimmed({ text: 'x' })).toStrictEqual({ text: 'x' });
    expect(trimmed({ text: ' x' })).toBeUndefined();
  });

  it('takes a string refinement only where its function answers exactly true', () => {
    const even = z.object({ id: z.string().refine((v) => v.length % 2 === 0, 'odd') });
    const fast = fastArgs(even)!;
    expect(fast({ id: 'ab' })).toStrictEqual({ id: 'ab' });
    expect(fast({ id: 'abc' })).toBeUndefined();
    expect(checkFastArgsAgainstZod(even, 5_000, 5)).toBeGreaterThan(0);
    // A truthy answer that is not true, and a promise, are left to zod.
    expect(fastArgs(z.object({ id: z.string().refine((v) => v.length as unknown as boolean) }))!({ id: 'ab' })).toBeUndefined();
    expect(fastArgs(z.object({ id: z.string().refine(async () => true) }))!({ id: 'ab' })).toBeUndefined();
  });
});
