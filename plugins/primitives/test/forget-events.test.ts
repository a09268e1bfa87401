import { afterEach, describe, expect, it } from 'vitest';
import { actionsIn, count, start, type TestServer } from './helpers.js';

/**
 * The `thought` timeline event of a significant thought keeps the first 200 characters of its text
 * and names the records the thought made (metadata refs). Forget removes the event with the
 * thought, and only with it.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const LONG = `IMPORTANT critical decision: never deploy on Fridays. ${'We learned this the hard way after the outage. '.repeat(45)} The vault word was quokkaberry.`;

function summaries(): string[] {
  return (s.kernel.storage.db.prepare('SELECT summary FROM timeline_events ORDER BY id').all() as { summary: string }[]).map((r) => r.summary);
}

describe('forget fuzzy and the timeline', () => {
  // Regression guard, fixed: the pattern lay past the event's 200-character excerpt, so the page and its link went
  // while the event kept the thought's first lines, still shown by dream with intent recent.
  it('deletes the event of a long thought whose page it deleted by a word past the excerpt', async () => {
    s = await start();
    const r = await s.call('think', { text: LONG, layer: 'user' });
    expect(r.routing.rule).toBe('long_to_wiki');
    expect(actionsIn(r, 'timeline')).toHaveLength(1);
    const other = await s.call('think', { text: 'Remember: my dentist appointment is on Tuesday', layer: 'user' });
    expect(actionsIn(other, 'timeline')).toHaveLength(1);
    const out = await s.call('forget', { key: 'quokkaberry', scope: 'fuzzy', layer: 'user' });
    expect(out).toMatchObject({ deleted_wiki: 1, deleted_timeline: 1 });
    expect(summaries()).toEqual(['Remember: my dentist appointment is on Tuesday']);
    const recent = await s.call('dream', { query: 'deploy Fridays', intent: 'recent', layer: 'user' });
    expect(JSON.stringify(recent)).not.toMatch(/Fridays/);
  });

  it('deletes the event of an episode it deleted by a word past the excerpt', async () => {
    s = await start();
    const text = `Remember: I decided we will always review the release notes with the whole team before shipping. ${'The notes list every change. '.repeat(6)}The codename is marmalade.`;
    const r = await s.call('think', { text, layer: 'user' });
    expect(r.routing.rule).toBe('long_or_emotional_to_l3');
    expect(actionsIn(r, 'timeline')).toHaveLength(1);
    const out = await s.call('forget', { key: 'marmalade', scope: 'fuzzy', layer: 'user' });
    expect(out).toMatchObject({ deleted_l3: 1, deleted_timeline: 1 });
    expect(count(s, 'timeline_events')).toBe(0);
  });
});

describe('forget fuzzy and the ids in an event', () => {
  // Regression guard, fixed: an event's metadata names the records think or evolve wrote (`l1:l1_1`, `wiki:wiki_1`,
  // `fact_1`, `personality:...`), and fuzzy matched those ids as words: forgetting "l1" took every thought's event.
  it('keeps the events whose only match is a record id or generated key the service wrote', async () => {
    s = await start();
    await s.call('think', { text: LONG, layer: 'user' });
    await s.call('evolve', { instruction: 'Answer in short sentences' });
    expect(count(s, 'timeline_events')).toBe(2);
    for (const [key, layer] of [['l1', 'user'], ['wiki', 'user'], ['l4', 'user'], ['fact', 'agent'], ['personality', 'agent']]) {
      const out = await s.call('forget', { key, scope: 'fuzzy', layer });
      expect(out.deleted_timeline, key).toBe(0);
    }
    expect(count(s, 'timeline_events')).toBe(2);
  });
});

describe('forget exact and the timeline', () => {
  // Regression guard, fixed: the events and L1 items holding the value were deleted whoever they belonged to, so
  // forgetting one of two facts that say the same thing (but for case) left the other without its event and L1 item.
  it('keeps the event and L1 item of another fact that holds the same value', async () => {
    s = await start();
    const a = await s.call('think', { text: 'Remember: my name is Alice Smith', layer: 'user' });
    const b = await s.call('think', { text: 'remember: my name is alice smith', layer: 'user' });
    const [keyA, keyB] = [actionsIn(a, 'l4')[0]!.key, actionsIn(b, 'l4')[0]!.key];
    expect(keyA).not.toBe(keyB);
    const out = await s.call('forget', { key: keyA, layer: 'user' });
    expect(out).toMatchObject({ deleted_l4: 1, deleted_l1: 1, deleted_timeline: 1 });
    expect(summaries()).toEqual(['remember: my name is alice smith']);
    const l1 = (s.kernel.storage.db.prepare('SELECT text FROM l1_items').all() as { text: string }[]).map((r) => r.text);
    expect(l1).toEqual(['remember: my name is alice smith']);
  });
});

describe('forget and the neighbouring context of other episodes', () => {
  const THOUGHT = `Remember: I decided we will always review things zxqvorple. ${'The tomatoes grew slowly this season in the garden. '.repeat(45)} The vault word was quokkaberry.`;
  const contexts = () => (s.kernel.storage.db.prepare('SELECT context FROM episodes ORDER BY id').all() as { context: string }[]).map((r) => r.context);

  // Regression guard, fixed: the next thought's episode kept the long thought's first 1000 characters as its context
  // (indexed for dream), as the link's text (an excerpt plus the page name) and the pattern (past the cut) are not in it.
  it.each([['exact'], ['fuzzy']])('%s clears the context holding the start of a long thought it deleted', async (scope) => {
    s = await start();
    const r = await s.call('think', { text: THOUGHT, layer: 'user' });
    await s.call('think', { text: 'Then I went for a walk by the river and saw some herons fishing', layer: 'user' });
    expect(contexts()[0]).toMatch(/zxqvorple/);
    const key = scope === 'exact' ? actionsIn(r, 'l4')[0]!.key : 'quokkaberry';
    const out = await s.call('forget', { key, scope, layer: 'user' });
    expect(out).toMatchObject({ deleted_wiki: 1, scrubbed_context: 1 });
    expect(contexts()).toEqual(['']);
    const found = await s.call('dream', { query: 'zxqvorple', layer: 'user' });
    expect(found.result_count).toBe(0);
  });
});
