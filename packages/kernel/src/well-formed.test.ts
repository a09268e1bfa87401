import { describe, expect, it } from 'vitest';
import { checkWellFormed, isWellFormed } from './well-formed.js';

/** The validation error checkWellFormed throws for the field at `field`. */
const naming = (field: string) => expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field });

describe('well-formed tool arguments', () => {
  it('tells unpaired surrogates from pairs and plain text', () => {
    for (const ok of ['', 'plain', 'café ☕', '𝄞 music', '👩‍👩‍👧', '\u0000nul', '\uFFFD']) expect(isWellFormed(ok), ok).toBe(true);
    for (const bad of ['\uD800', 'a\uDC00', 'x\uD83D', '\uDE00y', '\uDC00\uD800']) expect(isWellFormed(bad), JSON.stringify(bad)).toBe(false);
  });

  it('names the first ill-formed string or key by its path, at any depth', () => {
    expect(() => checkWellFormed({ text: 'ok', user_id: 'u\uD800x' })).toThrow(naming('user_id'));
    expect(() => checkWellFormed({ payload: { summary: 'a', tags: ['b', '\uDC00'] } })).toThrow(naming('payload.tags.1'));
    expect(() => checkWellFormed({ payload: { ['k\uD800']: 1 } })).toThrow(naming('payload (a key)'));
    expect(() => checkWellFormed([{ a: '\uD800' }])).toThrow(naming('0.a'));
    let deep: unknown = 'end\uD800';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect(() => checkWellFormed(deep)).toThrow(expect.objectContaining({ field: expect.stringMatching(/^(d\.){99999}d$/) }));
    expect(() => checkWellFormed({ text: 'fine 𝄞', n: 3, nested: [{ a: null }] })).not.toThrow();
  });
});
