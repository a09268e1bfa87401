import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkNewName, checkNoHiddenFormat, describeHiddenAt, hiddenFormatAt, HIDDEN_FORMAT_ACCEPTED, toNfc } from './identity.js';
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

  // Regression guard, fixed (audit-s F1): "alice" followed by a Hangul filler, a variation selector or another
  // default-ignorable mark that is not Cf, or by a Braille blank, was a name of its own that showed as "alice".
  it('finds the Hangul fillers anywhere, and the marks that show nothing first, after ASCII or after white space', () => {
    const found: Record<string, number> = {
      'alice\u3164': 5, 'alice\uffa0': 5, 'al\u115fice': 2, 'a\u1160b': 1, '\u3164': 0, '한\u3164글': 1,
      'alice\u034f': 5, 'alice\u17b4': 5, 'alice\u17b5': 5, 'alice\u180b': 5, 'alice\u180f': 5, 'alice\ufe00': 5, 'alice\ufe0f': 5, 'alice\u{e0100}': 5, 'alice\u{e01ef}': 5,
      '\ufe0f\u2764': 0, '\u034fabc': 0, '\u{e0100}日': 0, '1\ufe0f': 1, 'a \ufe00b': 2, '日\ufe00\ufe01': 2, 'a\u00a0\u034fb': 2,
      'alice\u2800': 5, '\u2800alice': 0, 'alice\u{e0061}': 5, '\u{e0067}x': 0,
    };
    for (const [text, at] of Object.entries(found)) expect(hiddenFormatAt(text), JSON.stringify(text)).toBe(at);
  });

  it('keeps a selector after the emoji, ideograph or letter it modifies, the keycap selector, a flag\'s tags and an inner Braille blank', () => {
    for (const ok of ['\u2764\ufe0f', 'I \u2764\ufe0f tea', '\u845b\u{e0100}', '\u8fbb\u{e0101}', '1\ufe0f\u20e3', '#\ufe0f\u20e3 tags', '\u263a\ufe0e', '\u1822\u180b', 'ᠮᠣᠩᠭᠣᠯ\u180eᠠ', 'בְ\u034fּ', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', 'a\u2800b', '\u1100\u1161']) {
      expect(hiddenFormatAt(ok), JSON.stringify(ok)).toBe(-1);
    }
  });

  it('describes the character as a code point with its index, astral ones whole', () => {
    expect(describeHiddenAt('alice\u3164', 5)).toBe('U+3164 at index 5, which shows nothing or reorders what is shown');
    expect(describeHiddenAt('alice\u{e0100}', 5)).toBe('U+E0100 at index 5, which shows nothing after the character before it');
    expect(describeHiddenAt('alice\u2800', 5)).toBe('U+2800 at index 5, a blank, which may not come first or last');
    expect(describeHiddenAt('\ufe0fx', 0)).toBe('U+FE0F at index 0, which shows nothing first in a name');
    expect(() => checkNoHiddenFormat('key', 'alice\ufe00')).toThrow(
      expect.objectContaining({ field: 'key', accepted: HIDDEN_FORMAT_ACCEPTED, message: expect.stringMatching(/U\+FE00 at index 5/) }),
    );
  });

  it('checkNoHiddenFormat names the field, the character and where it is, and what is accepted', () => {
    expect(() => checkNoHiddenFormat('title', 'invoice\u202efdp.exe')).toThrow(
      expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'title', accepted: HIDDEN_FORMAT_ACCEPTED, message: expect.stringMatching(/U\+202E at index 7/) }),
    );
    expect(() => checkNoHiddenFormat('key', 'ab')).not.toThrow();
  });

  it('checkNewName refuses a control character or a hidden one, naming the field, the character and its index', () => {
    expect(() => checkNewName('name', 'deploys\nnow')).toThrow(
      expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'name', message: expect.stringMatching(/U\+000A at index 7/) }),
    );
    expect(() => checkNewName('name', 'line\u2028break')).toThrow(expect.objectContaining({ field: 'name', message: expect.stringMatching(/U\+2028 at index 4/) }));
    expect(() => checkNewName('name', 'deploys\u3164')).toThrow(
      expect.objectContaining({ field: 'name', accepted: HIDDEN_FORMAT_ACCEPTED, message: expect.stringMatching(/U\+3164 at index 7/) }),
    );
    expect(() => checkNewName('name', '\u2800deploys')).toThrow(expect.objectContaining({ field: 'name', message: expect.stringMatching(/U\+2800 at index 0/) }));
    for (const ok of ['deploys', 'Caf\u00e9', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645', '\u2764\ufe0f', 'a b']) expect(() => checkNewName('name', ok), JSON.stringify(ok)).not.toThrow();
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

  // Regression guard, fixed (audit-s F1): "alice\u3164" and the like were users of their own that showed as alice.
  it('refuses a user_id holding a character that shows nothing where it stands, naming user_id, the character and its index, on the fast path too', async () => {
    const k = await kernelSeeing();
    const fast = fastArgs(z.object({ user_id: userIdSchema }))!;
    const cases: Record<string, string> = {
      'alice\u3164': 'U+3164 at index 5', 'alice\u115f': 'U+115F at index 5', 'alice\u1160': 'U+1160 at index 5', 'ali\uffa0ce': 'U+FFA0 at index 3',
      'alice\u034f': 'U+034F at index 5', 'alice\u17b4': 'U+17B4 at index 5', 'alice\u180b': 'U+180B at index 5', 'alice\ufe00': 'U+FE00 at index 5',
      'alice\u{e0100}': 'U+E0100 at index 5', 'alice\u2800': 'U+2800 at index 5', '\u2800alice': 'U+2800 at index 0',
    };
    for (const [user_id, where] of Object.entries(cases)) {
      await expect(k.call({ user_id }), JSON.stringify(user_id)).rejects.toMatchObject({
        code: 'KERNEL_ERR_VALIDATION',
        field: 'user_id',
        accepted: USER_ID_ACCEPTED,
        message: expect.stringContaining(where),
      });
      expect(fast({ user_id }), JSON.stringify(user_id)).toBeUndefined();
    }
    await expect(k.event('alice\u3164')).rejects.toMatchObject({ field: 'user_id', accepted: USER_ID_ACCEPTED });
    for (const user_id of ['\u2764\ufe0f', '\u845b\u{e0100}\u7530', '1\ufe0f\u20e3 team']) await expect(k.call({ user_id })).resolves.toEqual({ user_id });
    expect(USER_ID_ACCEPTED).toMatch(/Hangul filler/);
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
