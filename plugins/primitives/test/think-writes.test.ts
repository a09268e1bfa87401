import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionsIn, count, dreamIds, l1File, ManualClock, snapshot, start, toolError, type TestServer } from './helpers.js';

/** What think writes: the ids it reports, fact keys, timeline events, and nothing on bad input. */
let s: TestServer;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  s = await start({ clock, config: { think: { max_text_chars: 200 } } });
});
afterEach(async () => {
  await s.close();
});

const think = (args: Record<string, unknown>) => s.call('think', args);

describe('ThinkResult.actions', () => {
  it('names each store written, and the ids are real', async () => {
    const r = await think({ text: 'Remember: Alice is related to Bob and Carol', layer: 'user', user_id: 'u1' });
    expect(r.user_id).toBe('u1');
    expect(r.actions.map((a: { store: string }) => a.store)).toEqual(['l1', 'l3', 'graph', 'timeline']);
    const ids = await dreamIds(s, { query: 'Alice Bob Carol', user_id: 'u1', limit: 10 });
    expect(ids).toContain(actionsIn(r, 'l3')[0]!.id);
    const node = actionsIn(r, 'graph')[0]!.id;
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM graph_nodes WHERE id = ?').get(Number(node.split('_')[1]))).toEqual({ n: 1 });
    const event = actionsIn(r, 'timeline')[0]!.id;
    const recent = await s.call('dream', { query: 'Alice', user_id: 'u1', intent: 'recent' });
    expect(recent.recent_events.map((e: { id: string }) => e.id)).toContain(event);
  });

  it('the L4 id is the fact dream finds', async () => {
    const r = await think({ text: 'Remember: my name is Alice', layer: 'user' });
    const [fact] = actionsIn(r, 'l4');
    expect(fact!.key).toMatch(/^note:/);
    expect(await dreamIds(s, { query: 'name Alice' })).toContain(fact!.id);
  });

  it('the L1 ring file of the scope holds the text under the reported id', async () => {
    const r = await think({ text: 'The build uses make', layer: 'agent', user_id: 'bob' });
    const [l1] = actionsIn(r, 'l1');
    const file = l1File(s, 'agent', 'bob');
    expect(file.items).toContainEqual(expect.objectContaining({ id: l1!.id, text: 'The build uses make' }));
  });
});

describe('fact keys', () => {
  it('two different short important facts with the same first words get different keys', async () => {
    const a = await think({ text: 'Remember: my birthday is on March 3', layer: 'user' });
    const b = await think({ text: 'Remember: my birthday is on March 4', layer: 'user' });
    const ka = actionsIn(a, 'l4')[0]!.key;
    const kb = actionsIn(b, 'l4')[0]!.key;
    expect(ka).not.toBe(kb);
    const values = (s.kernel.storage.db.prepare('SELECT value FROM facts ORDER BY id').all() as { value: string }[]).map((r) => r.value);
    expect(values).toEqual(['Remember: my birthday is on March 3', 'Remember: my birthday is on March 4']);
  });

  it('keeps words of any script in the key, and forget exact deletes the fact by that key', async () => {
    const a = await think({ text: 'Remember: my name is Алиса Йоргова', layer: 'user' });
    const b = await think({ text: 'Remember: my name is 山田花子', layer: 'user' });
    expect(actionsIn(a, 'l4')[0]!.key).toBe('note:remember-my-name-is-алиса-йоргова');
    expect(actionsIn(b, 'l4')[0]!.key).toBe('note:remember-my-name-is-山田花子');
    const gone = await s.call('forget', { key: 'note:remember-my-name-is-алиса-йоргова' });
    expect(gone.deleted_l4).toBe(1);
    const keys = (s.kernel.storage.db.prepare('SELECT key FROM facts ORDER BY id').all() as { key: string }[]).map((r) => r.key);
    expect(keys).toEqual(['note:remember-my-name-is-山田花子']);
  });

  it('the same text twice keeps one fact under one key', async () => {
    const a = await think({ text: 'Remember: my name is Alice', layer: 'user' });
    const b = await think({ text: 'Remember: my name is Alice', layer: 'user' });
    expect(actionsIn(b, 'l4')[0]!.key).toBe(actionsIn(a, 'l4')[0]!.key);
    expect(actionsIn(b, 'l4')[0]!.id).toBe(actionsIn(a, 'l4')[0]!.id);
    expect(count(s, 'facts')).toBe(1);
  });
});

describe('thought events on the timeline', () => {
  it('a significant thought becomes a thought event with its training_value', async () => {
    const r = await think({ text: 'Remember: my name is Alice', layer: 'user' });
    expect(r.routing.training_value).toBe('high');
    const dream = await s.call('dream', { query: 'Alice', intent: 'recent' });
    expect(dream.recent_events).toHaveLength(1);
    expect(dream.recent_events[0]).toMatchObject({ type: 'thought', summary: 'Remember: my name is Alice' });
    const row = s.kernel.storage.db.prepare('SELECT metadata FROM timeline_events').get() as { metadata: string };
    expect(JSON.parse(row.metadata).training_value).toBe('high');
  });

  it('a medium thought records training_value medium', async () => {
    const r = await think({ text: 'Remember: Bob is my brother', layer: 'user' });
    expect(r.routing.training_value).toBe('medium');
    const row = s.kernel.storage.db.prepare('SELECT metadata FROM timeline_events').get() as { metadata: string };
    expect(JSON.parse(row.metadata).training_value).toBe('medium');
  });

  it('an insignificant thought makes no event', async () => {
    await think({ text: 'The build uses make', layer: 'user' });
    const dream = await s.call('dream', { query: 'build', intent: 'recent' });
    expect(dream.recent_events).toEqual([]);
    expect(count(s, 'timeline_events')).toBe(0);
  });
});

describe('bad input is a tool error naming the field, and nothing is written', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['empty text', { text: '' }, 'text'],
    ['whitespace text', { text: '   \n\t ' }, 'text'],
    ['text of invisible characters only', { text: ' \u200b\u200d\u2060\u00ad ' }, 'text'],
    ['wiki_title of invisible characters only', { text: 'hello there', wiki_title: '\u200b' }, 'wiki_title'],
    ['wiki_title with a bidi override', { text: 'hello there', wiki_title: 'invoice\u202Efdp.exe' }, 'wiki_title'],
    ['wiki_title with a zero-width space', { text: 'hello there', wiki_title: 'Caf\u200Be' }, 'wiki_title'],
    ['user_id of invisible characters only', { text: 'hello there', user_id: '\u3164\u200b' }, 'user_id'],
    ['text over think.max_text_chars', { text: 'a'.repeat(201) }, 'text'],
    ['text not a string', { text: 42 }, 'text'],
    ['missing text', {}, 'text'],
    ['unknown layer', { text: 'hello there', layer: 'both' }, 'layer'],
    ['user_id not a string', { text: 'hello there', user_id: 7 }, 'user_id'],
    ['wiki_type not a string', { text: 'hello there', wiki_type: 3 }, 'wiki_type'],
  ];
  for (const [name, args, field] of cases) {
    it(name, async () => {
      await think({ text: 'Remember: my name is Alice', layer: 'user' });
      const before = snapshot(s);
      const err = await toolError(think(args));
      expect(err.field).toBe(field);
      expect(snapshot(s)).toEqual(before);
    });
  }

  it('text of exactly think.max_text_chars is accepted', async () => {
    const r = await think({ text: `${'b'.repeat(199)}.`, layer: 'user' });
    expect(r.routing.length).toBe(200);
  });
});

describe('long thoughts', () => {
  it('two different long thoughts in the same second keep both pages (content never dropped)', async () => {
    const s2 = await start({ clock });
    try {
      const one = `First long thought about the harbour. ${'x '.repeat(1100)}end one`;
      const two = `Second long thought about the mountains. ${'y '.repeat(1100)}end two`;
      const a = await s2.call('think', { text: one, layer: 'user' });
      clock.advance(300);
      const b = await s2.call('think', { text: two, layer: 'user' });
      expect(actionsIn(a, 'wiki')[0]!.path).not.toBe(actionsIn(b, 'wiki')[0]!.path);
      const contents = (s2.kernel.storage.db.prepare('SELECT content FROM wiki_pages ORDER BY id').all() as { content: string }[]).map(
        (r) => r.content,
      );
      expect(contents).toEqual([one, two]);
    } finally {
      await s2.close();
    }
  });
});

describe('neighbouring context', () => {
  const context = (id: string) =>
    (s.kernel.storage.db.prepare('SELECT context FROM episodes WHERE id = ?').get(Number(id.slice(3))) as { context: string }).context;
  const episode = async (text: string, layer = 'user') => actionsIn(await think({ text, layer }), 'l3')[0]!.id;
  const TOPIC = 'We watched the Perseid meteor shower from the desert campsite last night.';
  const REPLY = 'That must have been a wonderful night out there under the open sky.';
  const ANSWER = 'I felt tiny and in awe of everything, honestly it was so humbling.';

  it('an episode is found through the two thoughts before it, nearest first in its context', async () => {
    const topic = await episode(TOPIC);
    const reply = await episode(REPLY);
    const answer = await episode(ANSWER);
    const later = await episode('Anyway the kids start school again next Monday morning, busy week ahead.');
    expect(context(topic)).toBe('');
    expect(context(reply)).toBe(TOPIC);
    expect(context(answer)).toBe(`${REPLY}\n${TOPIC}`);
    const ids = await dreamIds(s, { query: 'Perseid meteor shower', limit: 10 });
    expect(ids).toEqual(expect.arrayContaining([topic, reply, answer]));
    // Three thoughts on, the topic is no neighbour any more.
    expect(ids).not.toContain(later);
  });

  it('stops at a thought older than the window, and at an L1 item that is no thought', async () => {
    await episode(TOPIC);
    clock.advance(31 * 60_000);
    await episode(REPLY);
    expect(context(await episode(ANSWER))).toBe(REPLY);
    await s.call('memory_hook', { event: 'new_message', payload: { text: 'ok' }, layer: 'user' });
    expect(context(await episode(TOPIC))).toBe('');
  });

  it('keeps the layers apart', async () => {
    await episode(TOPIC, 'agent');
    await episode(REPLY);
    expect(context(await episode(ANSWER))).toBe(REPLY);
  });
});

describe('a database that refuses writes', () => {
  it('think answers a StorageError naming memory.db, that it is read-only and what to do', async () => {
    // SQLite's own refusal (SQLITE_READONLY), as a read-only memory.db gives; chmod does not stop root.
    s.kernel.storage.db.pragma('query_only = ON');
    try {
      const err = await toolError(think({ text: 'The release train leaves on Thursdays', layer: 'user' }));
      expect(err).toMatchObject({ type: 'StorageError', code: 'KERNEL_ERR_STORAGE' });
      expect(err.message).toContain(`cannot write to the database ${s.kernel.storage.file}: it is read-only`);
      expect(err.message).toMatch(/chmod u\+w .*memory\.db/);
    } finally {
      s.kernel.storage.db.pragma('query_only = OFF');
    }
  });
});
