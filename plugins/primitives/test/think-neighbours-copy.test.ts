import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, start, type TestServer } from './helpers.js';

/**
 * think finds the previous thoughts in the stores' in-memory copy of each scope's newest L1 items,
 * which keeps only their first characters and only for the scopes used last; a scope not in it is
 * read from the table. Answers and stored contexts must not depend on which way they were found.
 */
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const LONG = `${'Ferry times to the island. '.repeat(30)}${'😀島'.repeat(400)}${' tail words beyond the cut'.repeat(200)}`;
const texts = [
  'Short question: when does the ferry leave?',
  LONG,
  `The answer follows the long note. ${'detail '.repeat(150)}`,
  'Remember: the ferry leaves at nine',
  LONG.slice(0, 1_500),
  'A last short thought about the harbour',
];

/** The same calls on a fresh server; with `cold`, another connection commits before each think, so none is answered from the copy. */
async function run(cold: boolean): Promise<{ answers: unknown[]; contexts: unknown[] }> {
  const clock = new ManualClock();
  const s = await start({ clock });
  servers.push(s);
  const other = cold ? new Database(path.join(s.dataDir, 'memory.db')) : null;
  other?.exec('CREATE TABLE IF NOT EXISTS bump (n INTEGER)');
  const answers: unknown[] = [];
  try {
    for (let round = 0; round < texts.length; round++) {
      // Past the 30-minute window once: the previous thoughts are then no context.
      clock.advance(round === 3 ? 31 * 60_000 : 20_000);
      for (let user = 0; user < 5; user++) {
        other?.prepare('INSERT INTO bump VALUES (1)').run();
        const text = texts[(round + user) % texts.length]!;
        answers.push(await s.call('think', { text, layer: user % 2 ? 'agent' : 'user', user_id: `u${user}` }));
      }
    }
  } finally {
    other?.close();
  }
  const contexts = s.kernel.storage.db.prepare('SELECT layer, user_id, summary, context FROM episodes ORDER BY id').all();
  return { answers, contexts };
}

describe('think: the previous thoughts, from the copy or from the table', () => {
  it('gives the same answers and stores the same contexts either way', async () => {
    const warm = await run(false);
    const cold = await run(true);
    expect(warm.answers).toEqual(cold.answers);
    expect(warm.contexts).toEqual(cold.contexts);
    // The contexts hold the cut of long thoughts, so the comparison covered them.
    const withLong = (warm.contexts as { context: string }[]).filter((c) => c.context.startsWith('Ferry times'));
    expect(withLong.length).toBeGreaterThan(0);
    expect(withLong.every((c) => [...c.context].length === 1000)).toBe(true);
  });
});
