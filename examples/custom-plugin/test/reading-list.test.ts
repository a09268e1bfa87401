import fs from 'node:fs';
import primitives from '@memory-service/plugin-primitives';
import { createTestServer, type TestServer } from '@memory-service/testing';
import { afterEach, expect, it } from 'vitest';
import readingList from './reading-list.js';

/** The README's "Use the memory stores" snippet is this file, word for word: the test runs what the README shows. */
const SNIPPET = fs.readFileSync(new URL('./reading-list.ts', import.meta.url), 'utf8').trim();

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

it("the repository README shows this plugin, word for word, as its stores example", () => {
  const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${SNIPPET}\n\`\`\``);
});

it('a third-party plugin writes a core fact through useStores(ctx) that dream finds, and reads the stores', async () => {
  s = await createTestServer({ plugins: [primitives, readingList], expose: 'primitives,reading' });
  const { entry_id } = await s.call('reading_finished', { title: 'The Left Hand of Darkness' });
  expect(entry_id).toMatch(/^fact_\d+$/);
  const recalled = await s.call('dream', { query: 'Left Hand of Darkness', hits: true });
  expect(recalled.hits.map((h: { id: string }) => h.id)).toContain(entry_id);
  const hook = await s.call('memory_hook', { event: 'session_started' });
  expect(hook.results['reading-list-plugin']).toEqual({ books: 1 });
});

it('without the primitives, the plugin brings the stores up itself', async () => {
  s = await createTestServer({ plugins: [readingList], expose: 'reading' });
  expect(await s.listTools()).toEqual(['reading_finished']);
  await s.call('reading_finished', { title: 'Dune', user_id: 'alice' });
  expect(s.kernel.container.resolve<{ facts: { get(scope: object, key: string): { value: string } | null } }>('stores').facts.get({ layer: 'user', user_id: 'alice' }, 'book:Dune')?.value).toBe('finished reading Dune');
});
