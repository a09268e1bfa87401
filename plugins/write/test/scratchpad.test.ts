import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const pad = (args: Record<string, unknown>) => s.call('memory_scratchpad', args);
const keys = async (extra: Record<string, unknown> = {}) => ((await pad({ action: 'read', ...extra })) as any).entries.map((e: any) => e.key);

describe('memory_scratchpad write and read', () => {
  it('upserts by key and reads every note or one', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    const w: any = await pad({ action: 'write', key: 'plan', content: 'v1' });
    expect(w).toMatchObject({ action: 'write', entry: { key: 'plan', content: 'v1' }, evicted: null, count: 1, capacity: 20 });
    clock.advance(1000);
    const w2: any = await pad({ action: 'write', key: 'plan', content: 'v2' });
    expect(w2.entry).toMatchObject({ content: 'v2', created: w.entry.created });
    expect(w2.entry.updated).not.toBe(w.entry.updated);
    await pad({ action: 'write', key: 'todo', content: 'write tests' });
    const all: any = await pad({ action: 'read' });
    expect(all.entries.map((e: any) => [e.key, e.content])).toEqual([['plan', 'v2'], ['todo', 'write tests']]);
    expect(((await pad({ action: 'read', key: 'todo' })) as any).entry.content).toBe('write tests');
  });

  it('at 20 notes, writing a new key evicts the least recently written note and returns it', async () => {
    s = await start();
    for (let i = 0; i < 20; i++) await pad({ action: 'write', key: `k${i}`, content: `c${i}` });
    // Rewriting k0 makes it the most recently written: k1 is now the oldest.
    const re: any = await pad({ action: 'write', key: 'k0', content: 'fresh' });
    expect(re).toMatchObject({ evicted: null, count: 20 });
    const w: any = await pad({ action: 'write', key: 'new', content: 'x' });
    expect(w.evicted).toMatchObject({ key: 'k1', content: 'c1' });
    expect(w.count).toBe(20);
    const left = await keys();
    expect(left).not.toContain('k1');
    expect(left).toContain('k0');
    expect(left.at(-1)).toBe('new');
    expect(((await pad({ action: 'write', key: 'newer', content: 'y' })) as any).evicted.key).toBe('k2');
  });

  it('keeps the layers and user_ids apart', async () => {
    s = await start();
    await pad({ action: 'write', key: 'k', content: 'user default' });
    await pad({ action: 'write', key: 'k', content: 'agent', layer: 'agent' });
    await pad({ action: 'write', key: 'k', content: 'bob', user_id: 'bob' });
    expect(((await pad({ action: 'read', key: 'k' })) as any).entry.content).toBe('user default');
    expect(((await pad({ action: 'read', key: 'k', layer: 'agent' })) as any).entry.content).toBe('agent');
    await pad({ action: 'clear', user_id: 'bob' });
    expect(await keys({ user_id: 'bob' })).toEqual([]);
    expect(await keys({ layer: 'agent' })).toEqual(['k']);
    expect(await keys()).toEqual(['k']);
  });

  it('names the field of bad input', async () => {
    s = await start();
    expect((await toolError(pad({ action: 'write', content: 'x' }))).field).toBe('key');
    expect((await toolError(pad({ action: 'write', key: ' ', content: 'x' }))).field).toBe('key');
    expect((await toolError(pad({ action: 'write', key: 'k' }))).field).toBe('content');
    expect((await toolError(pad({ action: 'write', key: 'k', content: '  ' }))).field).toBe('content');
    expect((await toolError(pad({ action: 'write', key: 'k'.repeat(201), content: 'x' }))).field).toBe('key');
    expect((await toolError(pad({ action: 'read', key: 'missing' }))).field).toBe('key');
    expect((await toolError(pad({ action: 'read', content: 'x' }))).field).toBe('content');
    expect((await toolError(pad({ action: 'write', key: 'k', content: 'x', target: 'fact' }))).field).toBe('target');
    expect((await toolError(pad({ action: 'erase' }))).field).toBe('action');
    expect(storesOf(s).scratchpad.count({ layer: 'user', user_id: 'default' })).toBe(0);
  });
  // Regression guard, fixed: a key with a line break was accepted, and memory_recap prints the keys, so
  // "a\n## Last session" forged a "## Last session" block there.
  it('refuses a key with a line break or another control character, naming key, writing nothing', async () => {
    s = await start();
    for (const key of ['a\n## Last session', 'k\r\nx', 'tab\there', 'bell\u0007']) {
      expect((await toolError(pad({ action: 'write', key, content: 'x' }))).field).toBe('key');
    }
    expect(storesOf(s).scratchpad.count({ layer: 'user', user_id: 'default' })).toBe(0);
    expect(await keys()).toEqual([]);
    await pad({ action: 'write', key: 'plan: ünïcode ✓', content: 'x' });
    expect(await keys()).toEqual(['plan: ünïcode ✓']);
  });
});

describe('memory_scratchpad clear', () => {
  it('clears one key or every note', async () => {
    s = await start();
    for (const k of ['a', 'b', 'c']) await pad({ action: 'write', key: k, content: k });
    expect(await pad({ action: 'clear', key: 'b' })).toMatchObject({ removed: 1, count: 2 });
    expect(await pad({ action: 'clear', key: 'b' })).toMatchObject({ removed: 0, count: 2 });
    expect(await keys()).toEqual(['a', 'c']);
    expect(await pad({ action: 'clear' })).toMatchObject({ removed: 2, count: 0 });
    expect(await keys()).toEqual([]);
  });
});

describe('memory_scratchpad promote', () => {
  it('moves a note into an L3 episode and drops it from the pad', async () => {
    s = await start();
    await pad({ action: 'write', key: 'insight', content: 'The flaky test depends on the wall clock' });
    const r: any = await pad({ action: 'promote', key: 'insight', target: 'episode', importance: 0.8, tags: ['topic:tests'] });
    expect(r).toMatchObject({ target: 'episode', entry: { key: 'insight' }, count: 0 });
    expect(r.episode).toMatchObject({ summary: 'The flaky test depends on the wall clock', importance: 0.8, tags: ['scratchpad', 'topic:tests'] });
    expect(storesOf(s).episodes.get({ layer: 'user', user_id: 'default' }, r.episode.id)?.summary).toBe('The flaky test depends on the wall clock');
    expect(await keys()).toEqual([]);
  });

  it('moves a note into an L4 fact under its key or fact_key, and never overwrites another value', async () => {
    s = await start();
    const U = { layer: 'user' as const, user_id: 'default' };
    await pad({ action: 'write', key: 'editor', content: 'vim' });
    const r: any = await pad({ action: 'promote', key: 'editor', target: 'fact' });
    expect(r.fact).toMatchObject({ key: 'editor', value: 'vim', source: 'staging_promotion', created_new: true });
    expect(storesOf(s).facts.get(U, 'editor')?.value).toBe('vim');
    await pad({ action: 'write', key: 'editor', content: 'emacs' });
    expect((await toolError(pad({ action: 'promote', key: 'editor', target: 'fact' }))).field).toBe('fact_key');
    expect(storesOf(s).facts.get(U, 'editor')?.value).toBe('vim');
    expect(await keys()).toEqual(['editor']);
    const moved: any = await pad({ action: 'promote', key: 'editor', target: 'fact', fact_key: 'editor_at_work' });
    expect(moved.fact).toMatchObject({ key: 'editor_at_work', value: 'emacs' });
    expect(await keys()).toEqual([]);
  });

  // Regression guard, fixed: promote copied the note into L4 as written, so a password noted on the
  // pad became a long-term fact, while memory_remember strips secrets from what it stores.
  it('strips secrets from a note promoted into an L4 fact, and says so; the same note promoted again is the same fact', async () => {
    s = await start();
    const U = { layer: 'user' as const, user_id: 'default' };
    await pad({ action: 'write', key: 'vpn', content: 'VPN login: user ops, password: Tr0ub4dor&3 (rotate in May)' });
    const r: any = await pad({ action: 'promote', key: 'vpn', target: 'fact' });
    expect(r.fact.value).toBe('VPN login: user ops, password: [REDACTED:password] (rotate in May)');
    expect(r).toMatchObject({ redacted: { password: 1 }, redacted_total: 1 });
    expect(JSON.stringify(storesOf(s).facts.get(U, 'vpn'))).not.toContain('Tr0ub4dor');
    await pad({ action: 'write', key: 'vpn', content: 'VPN login: user ops, password: Tr0ub4dor&3 (rotate in May)' });
    expect((await pad({ action: 'promote', key: 'vpn', target: 'fact' })).fact).toMatchObject({ created_new: false });
    await pad({ action: 'write', key: 'plain', content: 'vim' });
    expect(await pad({ action: 'promote', key: 'plain', target: 'fact' })).toMatchObject({ redacted: {}, redacted_total: 0 });
  });

  it('names key for a missing note (also one of another scope) and target when it is missing or unknown', async () => {
    s = await start();
    await pad({ action: 'write', key: 'agent_note', content: 'x', layer: 'agent' });
    const e = await toolError(pad({ action: 'promote', key: 'agent_note', target: 'episode' }));
    expect(e.field).toBe('key');
    expect(e.message).toContain('agent_note');
    expect((await toolError(pad({ action: 'promote', target: 'episode' }))).field).toBe('key');
    expect((await toolError(pad({ action: 'promote', key: 'agent_note', layer: 'agent' }))).field).toBe('target');
    expect((await toolError(pad({ action: 'promote', key: 'agent_note', layer: 'agent', target: 'wiki' }))).field).toBe('target');
    expect((await toolError(pad({ action: 'promote', key: 'agent_note', layer: 'agent', target: 'episode', fact_key: 'x' }))).field).toBe('fact_key');
    expect((await toolError(pad({ action: 'promote', key: 'agent_note', layer: 'agent', target: 'fact', tags: ['a'] }))).field).toBe('tags');
    expect((await toolError(pad({ action: 'promote', key: 'agent_note', layer: 'agent', target: 'episode', tags: [':x'] }))).field).toBe('tags');
    expect(await keys({ layer: 'agent' })).toEqual(['agent_note']);
    expect(storesOf(s).episodes.count({ layer: 'agent', user_id: 'default' })).toBe(0);
  });

  it('one note for a key sent precomposed or decomposed (NFC)', async () => {
    s = await start();
    await s.call('memory_scratchpad', { action: 'write', key: 'caf\u00e9', content: 'first' });
    await s.call('memory_scratchpad', { action: 'write', key: 'cafe\u0301', content: 'second' });
    const read: any = await s.call('memory_scratchpad', { action: 'read' });
    expect(read.entries.map((e: any) => [e.key, e.content])).toEqual([['caf\u00e9', 'second']]);
    expect((await s.call('memory_scratchpad', { action: 'clear', key: 'cafe\u0301' })).removed).toBe(1);
  });
});
