import { describe, expect, it } from 'vitest';
import { checkWellFormed, isWellFormed } from './well-formed.js';

/** The validation error checkWellFormed throws for the field at `field`. */
const naming = (field: string) => expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field });

describe('well-formed tool arguments', () => {
  it('tells unpaired surrogates from pairs and plain text', () => {
    for (const ok of ['', 'plain', 'café ☕', '𝄞 music', '👩‍👩‍👧', '\u0000nul', '\uFFFD']) expect(isWellFormed(ok), ok).toBe(true);
    for (const bad of ['\uD800', 'a\uDC00', 'x\uD83D', '\uDE00y', '\uDC00\uD800']) expect(isWellFormed(bad), JSON.stringify(bad)).toBe(false);
  });

  it('refuses NUL (U+0000) in any string or key, naming its path, and says NUL is not accepted', () => {
    const nul = (field: string) => expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field, message: expect.stringMatching(/NUL \(U\+0000\).*index \d+.*not accepted/) });
    expect(() => checkWellFormed({ text: 'before\u0000Carol' })).toThrow(nul('text'));
    expect(() => checkWellFormed({ instruction: '\u0000' })).toThrow(nul('instruction'));
    expect(() => checkWellFormed({ payload: { summary: 'a', tags: ['b', 'c\u0000'] } })).toThrow(nul('payload.tags.1'));
    expect(() => checkWellFormed({ payload: { ['k\u0000']: 1 } })).toThrow(nul('payload (a key)'));
    expect(() => checkWellFormed({ ['n\u0000ame']: 'x' })).toThrow(nul('(a key)'));
    expect(() => checkWellFormed({ text: 'a\u0000b' })).toThrow(expect.objectContaining({ message: expect.stringContaining('at index 1') }));
    expect(() => checkWellFormed({ text: 'no nul \u2400 here', name: 'null' })).not.toThrow();
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
