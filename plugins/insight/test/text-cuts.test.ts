import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, USER, type TestServer } from './helpers.js';

/** Texts these tools cut to a length: never through a surrogate pair, which no UTF-8 client can decode. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cut texts keep emoji whole', () => {
  it('memory_search and memory_recall cut a hit text in characters, emoji included', async () => {
    s = await start({ clock: new ManualClock() });
    // 'beach ' is 6 units: the old cut at unit 497 fell inside an emoji's pair.
    storesOf(s).episodes.add(USER, { summary: `beach ${'🌊'.repeat(600)}` });
    const hit = (await s.call('memory_search', { query: 'beach' })).hits[0];
    expect(hit.text.endsWith('...')).toBe(true);
    expect(LONE_SURROGATE.test(hit.text)).toBe(false);
    expect([...hit.text.slice(0, -3)]).toHaveLength(497);
    const recalled = (await s.call('memory_recall', { query: 'beach' })).hits[0];
    expect(LONE_SURROGATE.test(JSON.stringify(recalled))).toBe(false);
  });

  it('memory_reflect cuts its topic and excerpts in characters, in the answer and the stored reflection', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const st = storesOf(s);
    // 'sunsets ' is 8 units: the old cuts (at units 117 and 77) fell inside an emoji's pair.
    st.episodes.add(USER, { summary: `sunsets ${'🌅'.repeat(100)}` });
    await s.call('dream', { query: 'sunsets' });
    st.flush();
    clock.advance(1000);
    const refl = (await s.call('memory_reflect', { action: 'write', period_hours: 1, topic: `sunsets ${'🌅'.repeat(40)}` })).reflection;
    expect(refl.most_recalled.length).toBeGreaterThan(0);
    for (const text of [refl.topic, refl.summary, refl.body ?? '', ...refl.most_recalled.map((m: { text: string }) => m.text)]) {
      expect(LONE_SURROGATE.test(text)).toBe(false);
    }
    const listed = await s.call('memory_reflect', { action: 'list' });
    expect(LONE_SURROGATE.test(JSON.stringify(listed))).toBe(false);
  });
});
