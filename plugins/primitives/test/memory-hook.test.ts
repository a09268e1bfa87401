import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, Storage } from '@memory-service/kernel';
import { count, dreamIds, hook, ManualClock, primitives, snapshot, start, toolError, type TestServer } from './helpers.js';

/** memory_hook: the seven lifecycle events, their errors, and another plugin's session_inject block. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('session_started and session_ended', () => {
  it('session_started returns an inject and a session id', async () => {
    s = await start();
    await s.call('think', { text: 'Remember: my name is Alice', layer: 'user' });
    const r = await hook(s, 'session_started', { text: 'Alice' });
    expect(r.session_id).toMatch(/^sess_/);
    expect(r.inject).toContain('Remember: my name is Alice');
    expect(r.blocks.map((b: { source: string }) => b.source)).toEqual(expect.arrayContaining(['retrieval', 'l4', 'l1']));
    expect((await hook(s, 'session_started')).session_id).toBe(r.session_id);
  });

  it('session_started answers on an empty store', async () => {
    s = await start();
    const r = await hook(s, 'session_started', {}, { layer: 'agent' });
    expect(r.session_id).toMatch(/^sess_/);
    expect(r.inject).toBe('');
    expect(r.truncated).toBe(false);
  });

  it('session_started respects payload.budget', async () => {
    s = await start();
    for (let i = 0; i < 8; i++) await s.call('think', { text: `Remember: pier ${i} is important for the ferry crossing`, layer: 'user' });
    const r = await hook(s, 'session_started', { text: 'ferry', budget: 60 });
    expect(r.estimated_tokens).toBeLessThanOrEqual(60);
    expect(r.truncated).toBe(true);
  });

  it("session_ended's summary is an L3 episode tagged session_summary, recallable by dream", async () => {
    s = await start();
    await hook(s, 'session_started');
    const r = await hook(s, 'session_ended', { summary: 'We migrated the billing service to Postgres.' });
    expect(r.saved).toBe(true);
    expect(await dreamIds(s, { query: 'billing Postgres' })).toContain(r.episode_id);
    const row = s.kernel.storage.db.prepare('SELECT tags FROM episodes WHERE id = ?').get(Number(r.episode_id.split('_')[1])) as { tags: string };
    expect(JSON.parse(row.tags)).toContain('session_summary');
  });

  it('session_ended with a blank summary saves nothing; without one, or with one that is not text, it is an error naming payload.summary', async () => {
    s = await start();
    const before = snapshot(s);
    expect((await hook(s, 'session_ended', { summary: '   ' })).saved).toBe(false);
    for (const payload of [{}, { summary: null }, { summary: 12345 }, { summary: { text: 'x' } }]) {
      const err = await toolError(s.call('memory_hook', { event: 'session_ended', payload }));
      expect(err, JSON.stringify(payload)).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'payload.summary' });
    }
    expect(snapshot(s)).toEqual(before);
  });

  it('checks the payload keys the spec names before any handler runs', async () => {
    s = await start();
    const before = snapshot(s);
    const cases: [string, Record<string, unknown>, string][] = [
      ['session_started', { budget: 'lots' }, 'payload.budget'],
      ['session_started', { budget: -5 }, 'payload.budget'],
      ['session_started', { budget: 1.5 }, 'payload.budget'],
      ['session_started', { text: 42 }, 'payload.text'],
      ['new_message', { text: 42 }, 'payload.text'],
      ['auto_save_candidate', {}, 'payload.text'],
      ['post_context_compression', { query: 99 }, 'payload.query'],
      ['post_context_compression', {}, 'payload.query'],
      ['session_ended', { summary: 'x', topics: 'a' }, 'payload.topics'],
      ['session_ended', { summary: 'x', topics: ['a', 2] }, 'payload.topics'],
      ['session_ended', { summary: 'x', topics: { a: 'b' } }, 'payload.topics'],
    ];
    for (const [event, payload, field] of cases) {
      const err = await toolError(s.call('memory_hook', { event, payload }));
      expect(err, `${event} ${JSON.stringify(payload)}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field });
    }
    // A text no handler could store (over think.max_text_chars), or one with an unpaired surrogate, is refused up front.
    for (const [event, key] of [['session_ended', 'summary'], ['new_message', 'text'], ['post_context_compression', 'query']] as const) {
      const long = await toolError(s.call('memory_hook', { event, payload: { [key]: 'x'.repeat(100_001) } }));
      expect(long, event).toMatchObject({ field: `payload.${key}`, accepted: { max: 100_000 } });
      const lone = await toolError(s.call('memory_hook', { event, payload: { [key]: 'a \uDC00 b' } }));
      expect(lone.field, event).toBe(`payload.${key}`);
    }
    await expect(s.kernel.dispatchEvent('session_ended', { summary: 'ok' }, 'user', 'u\uD800')).rejects.toMatchObject({ field: 'user_id' });
    await expect(s.kernel.dispatchEvent('session_ended', { summary: 'ok', notes: { k: ['\uD800'] } })).rejects.toMatchObject({ field: 'payload.notes.k.0' });
    expect(snapshot(s)).toEqual(before);
    const topics = await toolError(s.call('memory_hook', { event: 'session_ended', payload: { summary: 'x', topics: 'a' } }));
    expect(topics).toMatchObject({ field: 'payload.topics', accepted: 'list of strings' });
    expect(topics.message).toMatch(/list of strings/);
    const longTopic = await toolError(s.call('memory_hook', { event: 'session_ended', payload: { summary: 'x', topics: ['ok', 'x'.repeat(100_001)] } }));
    expect(longTopic).toMatchObject({ field: 'payload.topics', accepted: { max: 100_000 } });
    // Keys the spec does not name are another plugin's to read: they pass.
    expect((await hook(s, 'session_ended', { summary: 'Done.', mood: 7 })).saved).toBe(true);
    await hook(s, 'session_started', {});
    expect((await hook(s, 'session_ended', { summary: 'Done again.', topics: ['ferry', 'pier'] })).saved).toBe(true);
    const row = s.kernel.storage.db.prepare('SELECT topics FROM sessions ORDER BY id DESC LIMIT 1').get() as { topics: string };
    expect(JSON.parse(row.topics)).toEqual(['ferry', 'pier']);
  });

  // Regression guard, fixed: session_ended stored any state_deltas it was given, of any type and any size (a 3 MB
  // object went into the session row while every text key is held to think.max_text_chars), and one that was not an
  // object or a list counted for nothing in the quality score while the call answered saved: true.
  it('session_ended takes state_deltas as an object or a list within the text limit; anything else is an error naming payload.state_deltas', async () => {
    s = await start();
    const before = snapshot(s);
    const sessions = () => s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM sessions').get();
    const none = sessions();
    for (const deltas of ['oops', 7, true]) {
      const err = await toolError(s.call('memory_hook', { event: 'session_ended', payload: { summary: 'x', state_deltas: deltas } }));
      expect(err, JSON.stringify(deltas)).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'payload.state_deltas', accepted: 'object or list' });
    }
    const big = await toolError(s.call('memory_hook', { event: 'session_ended', payload: { summary: 'x', state_deltas: { blob: 'y'.repeat(100_000) } } }));
    expect(big).toMatchObject({ field: 'payload.state_deltas', accepted: { max: 100_000 } });
    expect(snapshot(s)).toEqual(before);
    expect(sessions()).toEqual(none);
    expect((await hook(s, 'session_ended', { summary: 'Closed the ferry ticket.', state_deltas: { ticket: 'closed' } })).saved).toBe(true);
    expect((await hook(s, 'session_ended', { summary: 'Closed the pier ticket.', state_deltas: ['pier closed'] })).saved).toBe(true);
    const rows = s.kernel.storage.db.prepare('SELECT state_deltas FROM sessions ORDER BY id').all() as { state_deltas: string }[];
    expect(rows.map((r) => JSON.parse(r.state_deltas))).toEqual([{ ticket: 'closed' }, ['pier closed']]);
  });

  // Regression guard, fixed: a deeply nested payload value (state_deltas within the text limit, or a mistyped key
  // shown in its error) overflowed JSON.stringify's stack in the payload check: a ToolError "Maximum call stack size
  // exceeded" naming no field.
  it('a deeply nested payload value is a validation error naming its key, and nothing is written', async () => {
    s = await start();
    const before = snapshot(s);
    const deep = (n: number): unknown => {
      let v: unknown = 'x';
      for (let i = 0; i < n; i++) v = { a: v };
      return v;
    };
    const cases: [string, Record<string, unknown>, string][] = [
      ['session_ended', { summary: 'x', state_deltas: deep(101) }, 'payload.state_deltas'],
      ['session_ended', { summary: 'x', state_deltas: deep(20_000) }, 'payload.state_deltas'],
      ['session_ended', { summary: deep(20_000) }, 'payload.summary'],
      ['session_ended', { summary: 'x', topics: deep(20_000) }, 'payload.topics'],
      ['new_message', { text: deep(20_000) }, 'payload.text'],
      ['post_context_compression', { query: deep(20_000) }, 'payload.query'],
      ['session_started', { budget: deep(20_000) }, 'payload.budget'],
    ];
    for (const [event, payload, field] of cases) {
      const err = await toolError(s.call('memory_hook', { event, payload }));
      expect(err, `${event} ${field}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field });
    }
    expect(snapshot(s)).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM sessions').get()).toEqual({ n: 0 });
    expect((await hook(s, 'session_ended', { summary: 'Closed the deep ticket.', state_deltas: deep(100) })).saved).toBe(true);
  });

  // Regression guard, fixed: each topic was held to the text limit but the list was not, so 30 topics of 100,000
  // characters (3 MB) went into the session row.
  it('session_ended refuses topics longer than the text limit all together, naming payload.topics', async () => {
    s = await start();
    const before = snapshot(s);
    const err = await toolError(s.call('memory_hook', { event: 'session_ended', payload: { summary: 'x', topics: ['a'.repeat(60_000), 'b'.repeat(60_000)] } }));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'payload.topics', accepted: { max: 100_000 } });
    expect(snapshot(s)).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM sessions').get()).toEqual({ n: 0 });
    expect((await hook(s, 'session_ended', { summary: 'x', topics: ['a'.repeat(40_000), 'b'.repeat(40_000)] })).saved).toBe(true);
  });

  it('session_started takes a budget below the smallest inject budget up to it', async () => {
    s = await start();
    for (let i = 0; i < 8; i++) await s.call('think', { text: `Remember: pier ${i} is important for the ferry crossing`, layer: 'user' });
    const r = await hook(s, 'session_started', { text: 'ferry', budget: 1 });
    expect(r.estimated_tokens).toBeLessThanOrEqual(50);
    expect(r.estimated_tokens).toBeGreaterThan(0);
    expect(r.truncated).toBe(true);
  });
});

describe('new_message and auto_save_candidate', () => {
  for (const event of ['new_message', 'auto_save_candidate']) {
    describe(event, () => {
      it('below 0.5 saves nothing but enters L1', async () => {
        s = await start();
        const r = await hook(s, event, { text: 'The build uses make' });
        expect(r.importance).toBeLessThan(0.5);
        expect(r.saved).toBe(false);
        expect(count(s, 'l1_items')).toBe(1);
        expect(count(s, 'episodes') + count(s, 'graph_nodes') + count(s, 'facts')).toBe(0);
      });

      it('exactly 0.5 saves to L3 and the graph', async () => {
        s = await start();
        const r = await hook(s, event, { text: 'Remember: Bob is my brother' });
        expect(r.importance).toBe(0.5);
        expect(r.saved).toBe(true);
        expect([count(s, 'episodes'), count(s, 'graph_nodes'), count(s, 'facts')]).toEqual([1, 1, 0]);
      });

      it('at or above 0.5 but below 0.8 saves L3 and a graph node, no L4', async () => {
        s = await start();
        const r = await hook(s, event, { text: 'I always deploy on Fridays after the review' });
        expect(r.importance).toBeGreaterThanOrEqual(0.5);
        expect(r.importance).toBeLessThan(0.8);
        expect(r.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph']);
        expect(await dreamIds(s, { query: 'deploy Fridays' })).toContain(r.actions[1].id);
      });

      it('at or above 0.8 also saves to L4', async () => {
        s = await start();
        const r = await hook(s, event, { text: 'My birthday is March 3' });
        expect(r.importance).toBeGreaterThanOrEqual(0.8);
        expect(r.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph', 'l4']);
        expect(count(s, 'facts')).toBe(1);
      });
    });
  }

  // Regression guard, fixed: the same text again (a client retrying, a hook firing twice) made a second episode and node.
  it('the same text again within 10 minutes in the same layer and user answers already saved with the earlier ids, and writes nothing', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const text = 'My birthday is March 3';
    const first = await hook(s, 'new_message', { text });
    expect(first.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph', 'l4']);
    const tables = () => [count(s, 'l1_items'), count(s, 'episodes'), count(s, 'graph_nodes'), count(s, 'facts')];
    expect(tables()).toEqual([1, 1, 1, 1]);
    clock.advance(9 * 60_000);
    // new_message again, or auto_save_candidate (the same pipeline), with the same text as sent or padded.
    for (const [event, sent] of [['new_message', text], ['auto_save_candidate', `  ${text}\n`]] as const) {
      const again = await hook(s, event, { text: sent });
      expect(again).toMatchObject({ saved: true, already_saved: true, importance: first.importance });
      expect(again.reason).toContain(`saved from new_message at 2026-01-01T00:00:00.000Z (${first.actions[1].id})`);
      expect(again.actions).toEqual(first.actions.slice(1));
      expect(tables(), event).toEqual([1, 1, 1, 1]);
    }
    // Another user, another layer, or another text is saved as before.
    expect((await hook(s, 'new_message', { text }, { user_id: 'someone-else' })).already_saved).toBeUndefined();
    expect((await hook(s, 'new_message', { text }, { layer: 'agent' })).already_saved).toBeUndefined();
    expect((await hook(s, 'new_message', { text: 'My birthday is March 4' })).already_saved).toBeUndefined();
    expect(count(s, 'episodes')).toBe(4);
    // Past the window it is a new mention, saved again (its fact keeps its key, as think's do).
    clock.advance(2 * 60_000);
    const later = await hook(s, 'new_message', { text });
    expect(later.already_saved).toBeUndefined();
    expect(later.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph', 'l4']);
    expect(later.actions[1].id).not.toBe(first.actions[1].id);
    expect(later.actions[3]).toEqual(first.actions[3]);
  });

  // The repeat window ends at now: an episode saved while the clock ran ahead (or imported with a
  // future date) was the "recent" save of its text, and every repeat was skipped until the clock
  // passed its time plus 10 minutes.
  it('the same text after the clock stepped back is saved again, and a repeat of that save is not', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 29, 1, 30));
    s = await start({ clock });
    const text = 'My birthday is March 3';
    const first = await hook(s, 'new_message', { text });
    clock.set(Date.UTC(2026, 2, 29, 0, 30)); // an NTP correction: back by an hour
    const again = await hook(s, 'new_message', { text });
    expect(again.already_saved).toBeUndefined();
    expect(again.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph', 'l4']);
    expect(again.actions[1].id).not.toBe(first.actions[1].id);
    clock.advance(60_000);
    const third = await hook(s, 'auto_save_candidate', { text });
    expect(third).toMatchObject({ already_saved: true, actions: again.actions.slice(1) });
    expect(count(s, 'episodes')).toBe(2);
  });

  it('a repeat after the first save was forgotten saves the text again', async () => {
    s = await start();
    const text = 'I always deploy on Fridays after the review';
    const first = await hook(s, 'new_message', { text });
    await s.call('forget', { key: 'deploy on Fridays', scope: 'fuzzy', layer: 'user' });
    expect([count(s, 'episodes'), count(s, 'graph_nodes')]).toEqual([0, 0]);
    const again = await hook(s, 'new_message', { text });
    expect(again.already_saved).toBeUndefined();
    expect(again.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph']);
    expect(again.actions[1].id).not.toBe(first.actions[1].id);
  });

  // Regression guard, fixed: think indexes the previous L1 item as the neighbouring `context` of its episode, so a
  // message the hook refused to save (below the threshold) is persisted in L3 by the next think.
  it('a message below the threshold is not made recallable by a later think', async () => {
    s = await start();
    expect((await hook(s, 'new_message', { text: 'the wifi code is zebra-crossing-42' })).saved).toBe(false);
    await s.call('think', { text: 'The build uses make', layer: 'user' });
    expect(await dreamIds(s, { query: 'zebra crossing wifi' })).toEqual([]);
  });

  // Regression guard, fixed: the thresholds were read at each new_message, so a server with a bad one started, and every
  // message then answered an {error} under the plugin's name in a call that succeeded: the text was not even kept in L1.
  it('a hooks threshold outside [0, 1] or not a number stops the start with an error naming it', async () => {
    for (const [hooks, field] of [
      [{ auto_save_threshold: 1.5 }, 'hooks.auto_save_threshold'],
      [{ auto_save_threshold: 'high' }, 'hooks.auto_save_threshold'],
      [{ l4_threshold: -0.1 }, 'hooks.l4_threshold'],
    ] as const) {
      const err = await start({ config: { hooks } }).then(
        async (server) => (await server.close(), null),
        (e: Error) => e,
      );
      expect(err, JSON.stringify(hooks)).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field });
      expect(err!.message).toContain(`${field} must be a number from 0 to 1`);
    }
  });

  it('hooks.auto_save_threshold moves the threshold', async () => {
    s = await start({ config: { hooks: { auto_save_threshold: 0.9 } } });
    const r = await hook(s, 'new_message', { text: 'My birthday is March 3' });
    expect(r.saved).toBe(false);
    expect(count(s, 'episodes')).toBe(0);
  });
});

describe('advice events', () => {
  it('post_context_compression returns rehydrate candidates', async () => {
    s = await start();
    const t = await s.call('think', { text: 'The ferry to the island leaves from the north pier every morning.', layer: 'user' });
    const r = await hook(s, 'post_context_compression', { query: 'ferry island' });
    expect(r.candidates.map((c: { id: string }) => c.id)).toContain(t.actions[1].id);
    expect((await hook(s, 'post_context_compression', { query: '' })).candidates).toEqual([]);
  });

  it('context_threshold returns the oldest L1 items beyond half the ring as eviction candidates', async () => {
    s = await start({ config: { l1: { size: 4 } } });
    for (const text of ['first item', 'second item', 'third item', 'fourth item']) await hook(s, 'new_message', { text });
    const r = await hook(s, 'context_threshold');
    expect(r).toMatchObject({ l1_count: 4, capacity: 4 });
    expect(r.candidates.map((c: { excerpt: string }) => c.excerpt)).toEqual(['first item', 'second item']);
    expect(typeof r.advice).toBe('string');
    expect(count(s, 'l1_items')).toBe(4);
  });

  it('memory_pressure returns the ring size and a compression hint', async () => {
    s = await start({ config: { l1: { size: 4 } } });
    expect(await hook(s, 'memory_pressure')).toMatchObject({ l1_count: 0, capacity: 4, hint: 'none' });
    for (const text of ['a one', 'b two', 'c three', 'd four']) await hook(s, 'new_message', { text });
    const r = await hook(s, 'memory_pressure');
    expect(r).toMatchObject({ l1_count: 4, capacity: 4, fill_ratio: 1 });
    expect(r.hint).toMatch(/^compress/);
  });
});

describe('errors', () => {
  it('an unknown event is a ValueError', async () => {
    s = await start();
    const err = await toolError(s.call('memory_hook', { event: 'session_paused', payload: {} }));
    expect(err.type).toBe('ValueError');
    expect(err.field).toBe('event');
  });

  it('an empty or a long event name is an unknown event too (a ValueError, as over HTTP), its name cut in the message', async () => {
    s = await start();
    for (const event of ['', 'x'.repeat(101), `session_started${'x'.repeat(5000)}`]) {
      const err = await toolError(s.call('memory_hook', { event, payload: {} }));
      expect(err, `${event.length} characters`).toMatchObject({ type: 'ValueError', code: 'KERNEL_ERR_UNKNOWN_EVENT', field: 'event' });
      expect(err.message!.length).toBeLessThan(300);
    }
  });

  it('a user_id is counted in characters as its schema says: 101 emoji are one user every handler takes, 201 are a tool error naming user_id before any handler runs', async () => {
    s = await start();
    const user_id = '\u{1F600}'.repeat(101);
    const r = await s.call('memory_hook', { event: 'new_message', user_id, payload: { text: 'Important: my PIN is 4421, critical!' } });
    expect(r.results[primitives.name]).not.toHaveProperty('error');
    expect(r.results[primitives.name].saved).toBe(true);
    expect(count(s, 'l1_items', { layer: 'user', user_id })).toBe(1);
    expect((await s.call('wake_up', { user_id })).brief).toContain('4421');
    const before = snapshot(s);
    const err = await toolError(s.call('memory_hook', { event: 'new_message', user_id: '\u{1F600}'.repeat(201), payload: { text: 'Important: my PIN is 4421, critical!' } }));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id', accepted: { max: 200 } });
    expect(snapshot(s)).toEqual(before);
  });

  for (const payload of ['text', ['a'], null, 42]) {
    it(`payload ${JSON.stringify(payload)} is an error naming payload`, async () => {
      s = await start();
      const err = await toolError(s.call('memory_hook', { event: 'new_message', payload }));
      // Named as POST /api/hooks/:event names it: an object, not zod's "record".
      expect(err).toMatchObject({ field: 'payload', accepted: 'object', message: 'Invalid input: field "payload" must be object' });
      expect(count(s, 'l1_items')).toBe(0);
    });
  }
});

describe('session_inject from another plugin', () => {
  it("adds its block to session_started's inject", async () => {
    const extra = definePlugin({
      name: 'test-extra-inject',
      version: '0.0.1',
      tier: 'extra',
      kernel: '^1.0.0',
      setup(ctx) {
        ctx.hooks.session_inject.tapPromise('extra', async (blocks, c) => [
          ...blocks,
          { source: 'extra', title: 'Standing orders', text: `Greet ${c.user_id} on ${c.layer}`, score: 0.95 },
        ]);
      },
    });
    s = await start({ plugins: [extra] });
    const r = await hook(s, 'session_started', {}, { user_id: 'carol' });
    expect(r.inject).toContain('## Standing orders\nGreet carol on user');
    expect(r.blocks).toContainEqual({ source: 'extra', title: 'Standing orders', score: 0.95 });
  });
});

describe('the write lock', () => {
  it('an event that only reads answers while another process holds the write lock, and the events that write go on once it is free', async () => {
    s = await start();
    await s.call('think', { text: 'The lighthouse keeper repaints the lamp room every spring.', layer: 'user' });
    const other = new Storage(s.dataDir);
    other.db.exec('BEGIN IMMEDIATE');
    try {
      // In a transaction of the call, this waited for the lock (busy_timeout) and failed with "database is locked".
      const r = await hook(s, 'post_context_compression', { query: 'lighthouse lamp room' });
      expect(JSON.stringify(r)).toContain('lighthouse');
    } finally {
      other.db.exec('ROLLBACK');
      other.close();
    }
    expect((await hook(s, 'session_started', { text: 'lighthouse' })).session_id).toBeTruthy();
  });
});
