import { afterEach, beforeEach, expect, it } from 'vitest';
import { hook, start, toolError, type TestServer } from './helpers.js';

/** wake_up: the start-of-session brief. */
let s: TestServer;
beforeEach(async () => {
  s = await start();
});
afterEach(async () => {
  await s.close();
});

const tokens = (text: string) => Math.ceil(text.length / 4);

async function fill(): Promise<void> {
  await hook(s, 'session_started');
  await hook(s, 'session_ended', { summary: 'We migrated the billing service to Postgres.', topics: ['billing', 'postgres'] });
  await s.call('think', { text: 'Remember: my name is Alice', layer: 'user' });
  await s.call('think', { text: 'My birthday is March 3', layer: 'user' });
  await s.call('think', { text: 'The ferry to the island leaves from the north pier every morning at eight.', layer: 'user' });
}

it('answers with an empty store', async () => {
  const r = await s.call('wake_up', {});
  expect(r.sections).toEqual([]);
  expect(r.counts).toEqual({ facts: 0, pending: 0, recent_items: 0, events: 0, has_last_session: false });
  expect(r.brief).toMatch(/No memories yet/);
  expect(r.truncated).toBe(false);
});

it('contains the last session, important facts and recent items', async () => {
  await fill();
  const r = await s.call('wake_up', {});
  expect(r.counts.has_last_session).toBe(true);
  expect(r.sections).toEqual(expect.arrayContaining(['last_session', 'facts', 'recent']));
  expect(r.sections[0]).toBe('last_session');
  expect(r.brief).toContain('We migrated the billing service to Postgres.');
  expect(r.brief).toContain('Topics: billing, postgres');
  expect(r.brief).toContain('Remember: my name is Alice');
  expect(r.brief).toContain('My birthday is March 3');
  expect(r.brief).toContain('The ferry to the island leaves');
  expect(r.counts.facts).toBe(2);
  expect(r.estimated_tokens).toBeLessThanOrEqual(2000);
  expect(tokens(r.brief)).toBeLessThanOrEqual(2000);
});

it('stays within the budget', async () => {
  await fill();
  for (let i = 0; i < 10; i++) {
    await s.call('think', { text: `Harbour note ${i}: the ferry to the island leaves from pier ${i} in the morning, weather permitting.`, layer: 'user' });
  }
  const full = await s.call('wake_up', { budget: 100_000 });
  expect(full.truncated).toBe(false);
  const r = await s.call('wake_up', { budget: 100 });
  expect(r.truncated).toBe(true);
  expect(r.estimated_tokens).toBeLessThanOrEqual(100);
  expect(tokens(r.brief)).toBeLessThanOrEqual(100);
  expect(r.brief.length).toBeLessThan(full.brief.length);
  expect(r.sections[0]).toBe('last_session');
});

it('adds memories about a query', async () => {
  await fill();
  const r = await s.call('wake_up', { query: 'ferry pier' });
  expect(r.sections).toContain('query');
  expect(r.brief).toContain('About "ferry pier"');
});

it('is scoped to the layer and user_id', async () => {
  await fill();
  const r = await s.call('wake_up', { layer: 'agent' });
  expect(r.counts).toEqual({ facts: 0, pending: 0, recent_items: 0, events: 0, has_last_session: false });
  const other = await s.call('wake_up', { user_id: 'someone-else' });
  expect(other.sections).toEqual([]);
});

it('a budget below 100 is an error naming budget', async () => {
  const err = await toolError(s.call('wake_up', { budget: 10 }));
  expect(err.field).toBe('budget');
});

it("shows the last session's state deltas, as its summary and topics are", async () => {
  await hook(s, 'session_ended', { summary: 'Moved billing.', state_deltas: { db: 'postgres', owner: 'ana' } });
  expect((await s.call('wake_up', {})).brief).toContain('State deltas: {"db":"postgres","owner":"ana"}');
  await hook(s, 'session_ended', { summary: 'Nothing changed.', state_deltas: [] });
  const r = await s.call('wake_up', {});
  expect(r.brief).toContain('Nothing changed.');
  expect(r.brief).not.toContain('State deltas');
});
