import { afterEach, beforeEach, expect, it } from 'vitest';
import { count, dreamIds, snapshot, start, toolError, type TestServer } from './helpers.js';

/** evolve: an agent-layer L4 fact of importance 1.0, a personality_shift event and hook. */
let s: TestServer;
let shifts: { layer: string; user_id: string; instruction: string; entry_id: string }[];
beforeEach(async () => {
  s = await start();
  shifts = [];
  s.kernel.hooks.personality_shift.tapPromise('test', async (e) => {
    shifts.push(e);
  });
});
afterEach(async () => {
  await s.close();
});

const INSTRUCTION = 'Answer in short sentences and prefer TypeScript examples';

function fact(entryId: string) {
  return s.kernel.storage.db.prepare('SELECT layer, user_id, key, value, importance FROM facts WHERE id = ?').get(Number(entryId.split('_')[1])) as
    | { layer: string; user_id: string; key: string; value: string; importance: number }
    | undefined;
}

it('stores an agent-layer L4 fact with importance 1.0', async () => {
  const r = await s.call('evolve', { instruction: INSTRUCTION });
  expect(r.status).toBe('evolved');
  expect(fact(r.entry_id)).toEqual({ layer: 'agent', user_id: 'default', key: r.key, value: INSTRUCTION, importance: 1 });
  expect(count(s, 'facts', { layer: 'user' })).toBe(0);
});

it('is recallable by dream on the agent layer, not on the user layer', async () => {
  const r = await s.call('evolve', { instruction: INSTRUCTION });
  expect(await dreamIds(s, { query: 'TypeScript examples', layer: 'agent' })).toContain(r.entry_id);
  expect(await dreamIds(s, { query: 'TypeScript examples', layer: 'user' })).toEqual([]);
});

it('records a personality_shift timeline event', async () => {
  const r = await s.call('evolve', { instruction: INSTRUCTION, user_id: 'team' });
  const recent = await s.call('dream', { query: 'TypeScript', layer: 'agent', user_id: 'team', intent: 'recent' });
  expect(recent.recent_events).toEqual([expect.objectContaining({ id: r.event_id, type: 'personality_shift', summary: INSTRUCTION })]);
});

it('fires the personality_shift hook with the instruction and entry id', async () => {
  const r = await s.call('evolve', { instruction: `  ${INSTRUCTION}  `, user_id: 'team' });
  expect(shifts).toEqual([{ layer: 'agent', user_id: 'team', instruction: INSTRUCTION, entry_id: r.entry_id }]);
});

it('a second, different instruction never overwrites the first; the same one keeps its key', async () => {
  const a = await s.call('evolve', { instruction: 'Answer in short sentences always' });
  const b = await s.call('evolve', { instruction: 'Answer in short sentences never in lists' });
  const c = await s.call('evolve', { instruction: 'Answer in short sentences always' });
  expect(b.key).not.toBe(a.key);
  expect(c.key).toBe(a.key);
  expect(count(s, 'facts', { layer: 'agent' })).toBe(2);
});

// Regression guard, fixed: an instruction in Cyrillic stored by an older build as personality:untitled (its key rule
// dropped the letters of other scripts) got a second fact under personality:будь-... when given again.
it('the same instruction again keeps the key an older build stored it under', async () => {
  const text = 'Будь вежливым и кратким в ответах';
  s.kernel.storage.db
    .prepare("INSERT INTO facts (layer, user_id, key, value, importance, source, metadata, created, updated) VALUES ('agent', 'default', 'personality:untitled', ?, 1, 'manual', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')")
    .run(text);
  expect((await s.call('evolve', { instruction: text })).key).toBe('personality:untitled');
  expect(count(s, 'facts', { layer: 'agent' })).toBe(1);
});

it('says it is not idempotent: the same instruction again keeps its fact but records another event and fires the hook again', async () => {
  const a = await s.call('evolve', { instruction: INSTRUCTION });
  const b = await s.call('evolve', { instruction: INSTRUCTION });
  expect(b.key).toBe(a.key);
  expect(b.event_id).not.toBe(a.event_id);
  expect(count(s, 'timeline_events', { layer: 'agent' })).toBe(2);
  expect(shifts).toHaveLength(2);
  const listed = (await s.client.listTools()).tools.find((t) => t.name === 'evolve');
  expect(listed?.annotations?.idempotentHint).toBe(false);
});

it('does not touch a user fact with the same wording', async () => {
  await s.call('think', { text: 'Remember: my name is Alice', layer: 'user' });
  await s.call('evolve', { instruction: 'Remember: my name is Alice' });
  expect(count(s, 'facts', { layer: 'user' })).toBe(1);
  expect(count(s, 'facts', { layer: 'agent' })).toBe(1);
});

it('an empty instruction is a tool error naming instruction', async () => {
  const before = snapshot(s);
  const err = await toolError(s.call('evolve', { instruction: '' }));
  expect(err.field).toBe('instruction');
  expect(snapshot(s)).toEqual(before);
  expect(shifts).toEqual([]);
});

// Regression guard, fixed: evolve trims the instruction but never checks it is non-empty: '   ' stores an empty
// agent fact (key personality:note, importance 1.0) and a personality_shift event.
it('a whitespace-only or invisible instruction is a tool error naming instruction and writes nothing', async () => {
  const before = snapshot(s);
  for (const instruction of ['   ', '\u200b\ufe0f']) {
    const err = await toolError(s.call('evolve', { instruction }));
    expect(err.field, JSON.stringify(instruction)).toBe('instruction');
  }
  expect(snapshot(s)).toEqual(before);
});

it('takes layer agent, and refuses layer user naming layer: its write is always the agent layer', async () => {
  const r = await s.call('evolve', { instruction: INSTRUCTION, layer: 'agent' });
  expect(fact(r.entry_id)!.layer).toBe('agent');
  const before = snapshot(s);
  const err = await toolError(s.call('evolve', { instruction: 'Use metric units', layer: 'user' }));
  expect(err).toMatchObject({ field: 'layer', accepted: ['agent'] });
  expect(snapshot(s)).toEqual(before);
});

// Regression guard, fixed: with think.max_text_chars below evolve's own 4000, a longer instruction was refused by the
// fact store naming "value", a field evolve does not take.
it('an instruction over think.max_text_chars is an error naming instruction and the limit, and writes nothing', async () => {
  const small = await start({ config: { think: { max_text_chars: 200 } } });
  try {
    const before = snapshot(small);
    const err = await toolError(small.call('evolve', { instruction: 'Answer briefly. '.repeat(20) }));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'instruction', accepted: { max: 200 } });
    expect(err.message).toMatch(/think\.max_text_chars/);
    expect(snapshot(small)).toEqual(before);
    expect((await small.call('evolve', { instruction: 'Answer briefly.' })).status).toBe('evolved');
  } finally {
    await small.close();
  }
});
