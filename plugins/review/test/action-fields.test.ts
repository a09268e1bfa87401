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
      ['memory_proposals', { action: 'list', approve: true }, 'approve', 'action decide'],
      ['memory_proposals', { action: 'decide', proposal_id: 'prop_1', approve: true, key: 'k', value: 'v' }, 'key', 'action propose'],
      ['memory_proposals', { action: 'propose', kind: 'core_write', key: 'k', value: 'v', limit: 5 }, 'limit', 'action list'],
      ['memory_proposals', { action: 'revert', proposal_id: 'prop_1', transition_id: 'tr_1' }, 'transition_id', 'action revert_transition'],
      ['memory_watch', { action: 'list', rule_id: 'watch_1' }, 'rule_id', 'actions disable, delete'],
    ];
    expect(await actionFieldProblems(s, cases)).toEqual([]);
  });

  it('the fields an action takes, and the defaults the schema fills in, still pass', async () => {
    s = await start({ expose: 'all' });
    const cases: [string, Record<string, unknown>][] = [
      ['memory_proposals', { action: 'list', limit: 5 }],
      ['memory_watch', { action: 'list' }],
    ];
    for (const [tool, args] of cases) await expect(s.call(tool, args), tool).resolves.toBeDefined();
  });
});
