import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '@memory-service/kernel';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, primitives, write, type TestServer } from './helpers.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** What the README's plugin section says fires `hook`: the text in parentheses after its name. */
function firedBy(hook: string): string {
  const text = fs.readFileSync(README, 'utf8').replace(/\s+/g, ' ');
  const para = text.slice(text.indexOf('The hooks a plugin can tap, and what fires them:'));
  const at = para.indexOf(`\`${hook}\` (`);
  expect(at, `README names ${hook} with what fires it`).toBeGreaterThan(-1);
  let depth = 0;
  const start = at + hook.length + 4;
  for (let i = start; i < para.length; i++) {
    if (para[i] === '(') depth++;
    if (para[i] === ')' && depth-- === 0) return para.slice(start, i);
  }
  throw new Error(`unclosed parenthesis after ${hook}`);
}

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('README: the hooks the built tools fire', () => {
  it('graph_domain, importance_gate and session_consolidation fire from the tools the README names for them, and it no longer says none fires', async () => {
    const seen: Record<string, string[]> = { graph_domain: [], importance_gate: [], session_consolidation: [] };
    const spy = definePlugin({
      name: 'readme-hook-spy',
      version: '1.0.0',
      tier: 'spy',
      kernel: '^1.0.0',
      setup(ctx) {
        ctx.hooks.graph_domain.tapPromise('readme-hook-spy', async (n) => void seen.graph_domain!.push(n.node_type));
        ctx.hooks.importance_gate.tap('readme-hook-spy', (importance, fact) => {
          seen.importance_gate!.push(fact.key);
          return importance;
        });
        ctx.hooks.session_consolidation.tapPromise('readme-hook-spy', async (x) => void seen.session_consolidation!.push(x.summary));
      },
    });
    s = await createTestServer({ plugins: [primitives, write, spy], expose: 'write', clock: new ManualClock() });
    for (const node_type of ['error', 'decision', 'personality', 'emotion', 'concept', 'person']) await s.call('memory_graph_add', { content: `a ${node_type} node`, node_type });
    await s.call('memory_remember', { key: 'editor', value: 'Vim' });
    await s.call('memory_session_start', {});
    await s.call('memory_session_end', { summary: 'ended by the tool' });
    await s.call('memory_hook', { event: 'session_ended', payload: { summary: 'ended by the event' } });
    expect(seen).toEqual({
      graph_domain: ['error', 'decision', 'personality', 'emotion'],
      importance_gate: ['editor'],
      session_consolidation: ['ended by the tool', 'ended by the event'],
    });

    const domain = firedBy('graph_domain');
    expect(domain).toContain('`memory_graph_add`');
    for (const t of seen.graph_domain!) expect(domain).toContain(`\`${t}\``);
    expect(firedBy('importance_gate')).toContain('`memory_remember`');
    const consolidation = firedBy('session_consolidation');
    expect(consolidation).toContain('`memory_session_end`');
    expect(consolidation).toContain('`session_ended`');
    expect(fs.readFileSync(README, 'utf8').replace(/\s+/g, ' ')).not.toMatch(/no built tool fires them/);
  });
});
