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
    const cases: ActionFieldCase[] = [
      ['memory_quality', { action: 'report', useful: true }, 'useful', 'action feedback'],
      ['memory_quality', { action: 'feedback', entry_id: 'fact_1', useful: true, limit: 5 }, 'limit', 'action report'],
      ['memory_reflect', { action: 'list', period_hours: 24 }, 'period_hours', 'action write'],
      ['memory_reflect', { action: 'write', limit: 5 }, 'limit', 'action list'],
    ];
    expect(await actionFieldProblems(s, cases)).toEqual([]);
  });

  it('the fields an action takes, and the defaults the schema fills in, still pass', async () => {
    s = await start({ expose: 'all' });
    const cases: [string, Record<string, unknown>][] = [
      ['memory_quality', { action: 'report', limit: 5 }],
      ['memory_reflect', { action: 'list', topic: 'x' }],
    ];
    for (const [tool, args] of cases) await expect(s.call(tool, args), tool).resolves.toBeDefined();
  });
});
