import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const LONG_IMPORTANT = 'Critical decision: we always deploy the payment service on Tuesdays after the security review is complete.';

async function seed(srv: TestServer, layer = 'user', user_id = 'default'): Promise<void> {
  await srv.call('think', { text: 'My name is Ada', layer, user_id });
  await srv.call('think', { text: 'I went hiking in the Alps last weekend with my sister and we saw ibexes near the ridge.', layer, user_id });
  await srv.call('think', { text: LONG_IMPORTANT, layer, user_id });
  await srv.call('memory_hook', { event: 'new_message', payload: { text: 'Remember: the launch deadline is March 3, this is important and urgent' }, layer, user_id });
}

describe('memory_context', () => {
  it('summarises facts, turns, wiki and episodes of the scope only', async () => {
    s = await start();
    await seed(s);
    await s.call('think', { text: 'A private note of the agent about its own tone', layer: 'agent' });
    const r = await s.call('memory_context', {});
    expect(r).toMatchObject({ layer: 'user', user_id: 'default', budget: 2000 });
    expect(r.summary).toMatch(/^# Context: user layer, user default\n/);
    expect(r.summary).toContain('## Recent turns');
    expect(r.summary).toContain('hiking in the Alps');
    expect(r.summary).not.toContain('tone');
    expect(r.counts.turns).toBeGreaterThanOrEqual(3);
    const other = await s.call('memory_context', { user_id: 'bob' });
    expect(other.counts).toEqual({ facts: 0, turns: 0, wiki: 0, episodes: 0 });
    expect(other.summary).not.toContain('Alps');
  });

  it('keeps whole lines within the budget', async () => {
    s = await start();
    for (let i = 0; i < 10; i++) await s.call('think', { text: `Turn number ${i}: ${'words about the garden and the weather '.repeat(5)}` });
    const small = await s.call('memory_context', { budget: 100 });
    expect(Math.ceil(small.summary.length / 4)).toBeLessThanOrEqual(100);
    expect(small.counts.turns).toBeLessThan(10);
    expect(small.summary.endsWith('\n')).toBe(true);
  });

  it('refuses a budget out of bounds, naming it', async () => {
    s = await start();
    const e = await toolError(s.call('memory_context', { budget: 10 }));
    expect(e.field).toBe('budget');
    expect((await toolError(s.call('memory_context', { layer: 'team' }))).field).toBe('layer');
  });
});

describe('memory_context_inject', () => {
  it('consolidates important episodes into facts once, and writes CONTEXT.md inside the data dir', async () => {
    const clock = new ManualClock();
    s = await start({ clock });
    await seed(s);
    const before = (await s.call('memory_context', {})).counts.facts;
    const r = await s.call('memory_context_inject', {});
    expect(r.consolidated_episodes).toBeGreaterThanOrEqual(1);
    expect(r.consolidated.every((c: any) => c.key.startsWith('episode:'))).toBe(true);
    expect(r.last_consolidation_ts).toBe(new Date(clock.now()).toISOString());
    expect(r.counts.facts).toBe(before + r.consolidated_episodes);
    expect(r.summary).toContain('payment service');
    expect(r.estimated_tokens).toBe(Math.ceil(r.summary.length / 4));
    expect(r.was_truncated).toBe(false);
    expect(r.context_md_path).toBe('user/CONTEXT.md');
    const file = path.join(s.dataDir, 'user', 'CONTEXT.md');
    const md = fs.readFileSync(file, 'utf8');
    expect(md.match(/^## /gm)).toEqual(['## ', '## ', '## ']);
    expect(md).toContain('## Core facts');
    expect(md).toContain('## Recent activity');
    expect(md).toContain('## Perspectives');
    // Idempotent: a second run consolidates nothing more.
    clock.advance(60_000);
    const again = await s.call('memory_context_inject', {});
    expect(again.consolidated_episodes).toBe(0);
    expect(again.counts.facts).toBe(r.counts.facts);
    expect(again.last_consolidation_ts).toBe(new Date(clock.now()).toISOString());
  });

  it('counts the perspectives of the layer that have pages', async () => {
    s = await start({ expose: 'context' });
    await s.call('think', { text: 'Chose SQLite over Postgres for the single-node deployment', layer: 'agent', wiki_type: 'decision_log', wiki_title: 'Storage choice' });
    await s.call('think', { text: 'Learned that WAL mode needs a checkpoint policy', layer: 'agent', wiki_type: 'learning_journal', wiki_title: 'WAL' });
    const r = await s.call('memory_context_inject', { layer: 'agent' });
    expect(r.perspectives_count).toBe(2);
    expect(r.context_md_path).toBe('agent/CONTEXT.md');
    const md = fs.readFileSync(path.join(s.dataDir, 'agent', 'CONTEXT.md'), 'utf8');
    expect(md).toContain('- practical (decision_log): Storage choice');
    expect(md).toContain('- epistemic (learning_journal): WAL');
    expect((await s.call('memory_context_inject', {})).perspectives_count).toBe(0);
  });

  it('gives another user_id its own snapshot and its own facts', async () => {
    s = await start();
    await seed(s, 'user', 'Bob Smith');
    const r = await s.call('memory_context_inject', { user_id: 'Bob Smith' });
    expect(r.context_md_path).toMatch(/^user\/users\/bob-smith-[0-9a-f]{10}\/CONTEXT\.md$/);
    expect(fs.existsSync(path.join(s.dataDir, r.context_md_path))).toBe(true);
    expect(fs.existsSync(path.join(s.dataDir, 'user', 'CONTEXT.md'))).toBe(false);
    const mine = await s.call('memory_context_inject', {});
    expect(mine.consolidated_episodes).toBe(0);
    expect(mine.summary).not.toContain('payment service');
  });

  it('answers in full when CONTEXT.md cannot be written', async () => {
    s = await start();
    await seed(s);
    fs.mkdirSync(path.join(s.dataDir, 'user', 'CONTEXT.md'), { recursive: true });
    const r = await s.call('memory_context_inject', {});
    expect(r.context_md_path).toBeNull();
    expect(r.context_md_error).toMatch(/^writing user\/CONTEXT\.md failed: /);
    expect(r.consolidated_episodes).toBeGreaterThanOrEqual(1);
    expect(r.summary).toContain('payment service');
    expect(fs.statSync(path.join(s.dataDir, 'user', 'CONTEXT.md')).isDirectory()).toBe(true);
  });

  it('names the snapshot file by its whole path in the data dir when it cannot be written', async () => {
    s = await start();
    fs.mkdirSync(path.join(s.dataDir, 'user', 'users', 'u', 'CONTEXT.md'), { recursive: true });
    const r = await s.call('memory_context_inject', { user_id: 'u' });
    expect(r.context_md_path).toBeNull();
    expect(r.context_md_error).toMatch(/^writing user\/users\/u\/CONTEXT\.md failed: /);
  });
});
