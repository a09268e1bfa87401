import { afterEach, describe, expect, it } from 'vitest';
import { dreamIds, ManualClock, start, type TestServer } from './helpers.js';

/** dream for fewer hits answers the first hits of dream for more, when many memories tie. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar'];

describe('dream limits', () => {
  it('answers limit k as the first k hits of limit 2k over thoughts that tie (same length, same words asked, same time)', async () => {
    // The clock stands still: every thought has the same age, and all but the first the same
    // neighbouring context length, so their scores are equal and only the tie rule orders them.
    s = await start({ clock: new ManualClock() });
    for (const name of [...NAMES, ...NAMES.map((n) => `${n}x`)]) {
      await s.call('think', { text: `Harbour note ${name}: the ferry leaves from the pier at dawn.`, layer: 'user' });
    }
    for (const k of [3, 5, 12]) {
      const fewer = await dreamIds(s, { query: 'ferry pier', limit: k });
      const more = await dreamIds(s, { query: 'ferry pier', limit: 2 * k });
      expect(fewer).toHaveLength(k);
      expect(more.slice(0, k)).toEqual(fewer);
    }
  });
});
