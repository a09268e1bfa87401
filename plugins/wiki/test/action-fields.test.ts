import { afterEach, describe, expect, it } from 'vitest';
import { start, type TestServer } from './helpers.js';
import { actionFieldProblems, type ActionFieldCase } from '@memory-service/testing';

/** A field the call's action does not take is refused naming it (kernel actionFields), where it was dropped without a word. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('fields an action does not take', () => {
  it('are refused before the action runs, naming the field, the actions that take it and what this action takes', async () => {
    s = await start({ expose: 'all' });
    await s.call('wiki_add', { title: 'A', content: 'a', wiki_type: 'diary' });
    const cases: ActionFieldCase[] = [
      ['wiki_link', { action: 'list', title: 'A', to_title: 'B' }, 'to_title', 'action add'],
      ['wiki_link', { action: 'list', title: 'A', relation: 'follows' }, 'relation', 'action add'],
    ];
    expect(await actionFieldProblems(s, cases)).toEqual([]);
  });

  it('the fields an action takes, and the defaults the schema fills in, still pass', async () => {
    s = await start({ expose: 'all' });
    await s.call('wiki_add', { title: 'A', content: 'a', wiki_type: 'diary' });
    const cases: [string, Record<string, unknown>][] = [
      ['wiki_link', { action: 'list', title: 'A' }],
    ];
    for (const [tool, args] of cases) await expect(s.call(tool, args), tool).resolves.toBeDefined();
  });
});
