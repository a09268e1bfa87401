import { afterEach, describe, expect, it } from 'vitest';
import { start, toolError, type TestServer } from './helpers.js';

/** A field the call's action does not take is refused naming it (kernel actionFields), where it was dropped without a word. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('fields an action does not take', () => {
  it('are refused before the action runs, naming the field, the actions that take it and what this action takes', async () => {
    s = await start({ expose: 'all' });
    await s.call('wiki_add', { title: 'A', content: 'a', wiki_type: 'diary' });
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['wiki_link', { action: 'list', title: 'A', to_title: 'B' }, 'to_title', 'action add'],
      ['wiki_link', { action: 'list', title: 'A', relation: 'follows' }, 'relation', 'action add'],
    ];
    for (const [tool, args, field, takenBy] of cases) {
      const err = await toolError(s.call(tool, args));
      // Left out, the action is the schema's default (memory_saga: run).
      const action = (args.action as string | undefined) ?? 'run';
      expect(err, `${tool} ${JSON.stringify(args)}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field, accepted: `omit it with action ${action}` });
      expect(err.message, tool).toContain(`"${field}" is not used by action ${action}, so it would be dropped; it is taken by ${takenBy}. Action ${action} takes `);
    }
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
