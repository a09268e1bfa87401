import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkNoHiddenFormat, hiddenFormatAt, HIDDEN_FORMAT_ACCEPTED, toNfc } from './identity.js';
import { createKernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool, USER_ID_ACCEPTED, USER_ID_MAX, userIdSchema } from './tools.js';
import { fastArgs } from './fast-args.js';

const scratchpad = scratch('ms-identity-');
afterEach(scratchpad.cleanup);

const NFD_JOSE = 'Jose\u0301';
const NFC_JOSE = 'Jos\u00e9';

describe('toNfc', () => {
  it('composes a decomposed text and leaves a composed one as it is (the same string)', () => {
    expect(toNfc(NFD_JOSE)).toBe(NFC_JOSE);
    expect(toNfc('Cafe\u0301 menu')).toBe('Caf\u00e9 menu');
    expect(toNfc('\u1100\u1161')).toBe('\uac00');
    for (const s of ['', 'plain ascii', NFC_JOSE, 'ß ø æ', '東京', 'ﬁ', '\u0958']) expect(toNfc(s)).toBe(s.normalize('NFC'));
  });
});

describe('hidden format characters', () => {
  it('finds zero-width spaces, soft hyphens, word joiners, BOMs and bidi embedding, override and isolate controls', () => {
    for (const bad of ['a\u200bb', 'a\u00adb', 'a\u2060b', '\ufeffa', 'invoice\u202efdp.exe', 'a\u202ab', 'a\u2066b\u2069', 'a\u2062b', 'a\u206ab', 'a\ufff9b']) {
      expect(hiddenFormatAt(bad), JSON.stringify(bad)).toBeGreaterThanOrEqual(0);
    }
    expect(hiddenFormatAt('invoice\u202efdp.exe')).toBe(7);
  });

  it('leaves the joiners and marks scripts write words with, and emoji sequences', () => {
    // ZWNJ in Persian, ZWJ in Indic conjuncts and emoji, LRM/RLM/ALM beside neutrals in right-to-left text, tag letters of a flag.
    for (const ok of ['می\u200cخواهم', 'क्\u200dष', '👨\u200d👩\u200d👧', 'C++ \u200fמדריך', 'x\u200ey', '\u061c١٢', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', 'ᠮᠣᠩᠭᠣᠯ\u180eᠠ', 'plain']) {
      expect(hiddenFormatAt(ok), JSON.stringify(ok)).toBe(-1);
    }
  });

  it('checkNoHiddenFormat names the field, the character and where it is, and what is accepted', () => {
    expect(() => checkNoHiddenFormat('title', 'invoice\u202efdp.exe')).toThrow(
      expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'title', accepted: HIDDEN_FORMAT_ACCEPTED, message: expect.stringMatching(/U\+202E at index 7/) }),
    );
    expect(() => checkNoHiddenFormat('key', 'ab')).not.toThrow();
  });
});

describe('user_id as an identity', () => {
  async function kernelSeeing(): Promise<{ call: (args: Record<string, unknown>) => Promise<unknown>; event: (userId: string) => Promise<unknown> }> {
    const tool = defineTool({
      name: 'whoami',
      title: 'whoami',
      description: 'whoami',
      input: z.object({ user_id: userIdSchema }),
      annotations: { readOnlyHint: true },
      handler: (args: { user_id: string }) => ({ user_id: args.user_id }),
    });
    const plugin = definePlugin({ name: 'p', version: '1.0.0', tier: 'tst', kernel: '^1.0.0', setup: (ctx) => ctx.tools.register(tool) });
    const k = scratchpad.kernel(await createKernel({ dataDir: scratchpad.dir(), logger: silentLogger(), plugins: [plugin] }));
    return { call: (args) => k.callTool('whoami', args), event: async (userId) => (await k.dispatchEvent('new_message', { text: 'hello' }, 'user', userId)).user_id };
  }

  it('takes a user_id sent decomposed as the same user as sent composed (NFC), for tools and events', async () => {
    const k = await kernelSeeing();
    await expect(k.call({ user_id: NFD_JOSE })).resolves.toEqual({ user_id: NFC_JOSE });
    await expect(k.call({ user_id: NFC_JOSE })).resolves.toEqual({ user_id: NFC_JOSE });
    await expect(k.call({})).resolves.toEqual({ user_id: 'default' });
    await expect(k.event(NFD_JOSE)).resolves.toBe(NFC_JOSE);
  });

  it('refuses a user_id holding an invisible format character, naming user_id and what it accepts', async () => {
    const k = await kernelSeeing();
    for (const user_id of ['a\u200bb', 'bob\u00ad', 'a\u202eb', '\ufeffalice', 'x\u2066y']) {
      await expect(k.call({ user_id }), JSON.stringify(user_id)).rejects.toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id', accepted: USER_ID_ACCEPTED });
    }
    await expect(k.event('a\u200bb')).rejects.toMatchObject({ field: 'user_id', accepted: USER_ID_ACCEPTED });
    expect(USER_ID_ACCEPTED).toMatch(/zero-width space/);
    // A Persian name keeps its non-joiner.
    await expect(k.call({ user_id: 'علی\u200cرضا' })).resolves.toEqual({ user_id: 'علی\u200cرضا' });
  });

  // Regression guard, fixed: "alice ", "alice\t" and "alice\u00a0" were users of their own that looked like alice, and
  // a line break in user_id forged a section of memory_context's Markdown and a line of the server's log.
  it('refuses a user_id with white space first or last or a control character, on the fast path as through zod', async () => {
    const k = await kernelSeeing();
    const fast = fastArgs(z.object({ user_id: userIdSchema }))!;
    for (const user_id of ['alice ', ' alice', 'alice\t', 'alice\u00a0', 'alice\u3000', 'bob\n\n## Core facts', 'a\rb', 'alice\u001b[0m', 'a\u007fb', 'a\u0085b', 'a\u0000b', 'a/b', 'a\\b']) {
      await expect(k.call({ user_id }), JSON.stringify(user_id)).rejects.toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id', accepted: USER_ID_ACCEPTED });
      expect(fast({ user_id }), JSON.stringify(user_id)).toBeUndefined();
    }
    await expect(k.event('alice\n')).rejects.toMatchObject({ field: 'user_id', accepted: USER_ID_ACCEPTED });
    for (const user_id of ['Alice Smith', 'a', 'José', '日本 語']) await expect(k.call({ user_id })).resolves.toEqual({ user_id });
    expect(USER_ID_ACCEPTED).toMatch(/white space first or last, a control character/);
  });

  it('counts a user_id in characters (code points), as its published maxLength and the stores do: 200 emoji are taken, 201 refused', async () => {
    const k = await kernelSeeing();
    const emoji = (n: number) => '\u{1F600}'.repeat(n);
    await expect(k.call({ user_id: emoji(200) })).resolves.toEqual({ user_id: emoji(200) });
    await expect(k.event(emoji(200))).resolves.toBe(emoji(200));
    await expect(k.call({ user_id: emoji(201) })).rejects.toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id', accepted: { max: USER_ID_MAX } });
    await expect(k.event(emoji(201))).rejects.toMatchObject({ field: 'user_id' });
    expect(z.toJSONSchema(z.object({ user_id: userIdSchema }), { io: 'input' })).toMatchObject({ properties: { user_id: { maxLength: USER_ID_MAX } } });
    expect(USER_ID_ACCEPTED).toMatch(/^1 to 200 characters \(Unicode code points: an emoji is one\)/);
  });

  it('the fast path takes a user_id already in NFC and leaves a decomposed one to zod', () => {
    const fast = fastArgs(z.object({ user_id: userIdSchema }))!;
    expect(fast).toBeTypeOf('function');
    expect(fast({ user_id: NFC_JOSE })).toEqual({ user_id: NFC_JOSE });
    expect(fast({ user_id: NFD_JOSE })).toBeUndefined();
    expect(fast({ user_id: 'a\u200bb' })).toBeUndefined();
  });
});
