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
      ['memory_saga', { action: 'run', saga: 'consolidate', run_id: 'r1' }, 'run_id', 'action list'],
      ['memory_saga', { saga: 'backup', limit: 5 }, 'limit', 'action list'],
      ['memory_data', { action: 'export', mode: 'replace' }, 'mode', 'action import'],
      ['memory_data', { action: 'import', to_file: true, data: {} }, 'to_file', 'action export'],
      ['memory_api_key', { action: 'list', name: 'ci' }, 'name', 'action create'],
      ['memory_backup', { action: 'list', name: 'x.db' }, 'name', 'action restore'],
    ];
    // Left out, the action is the schema's default (memory_saga: run).
    expect(await actionFieldProblems(s, cases)).toEqual([]);
  });

  it('the fields an action takes, and the defaults the schema fills in, still pass', async () => {
    s = await start({ expose: 'all' });
    const cases: [string, Record<string, unknown>][] = [
      ['memory_saga', { action: 'list', saga: 'backup', status: 'completed', limit: 5 }],
      ['memory_data', { action: 'export', to_file: false }],
    ];
    for (const [tool, args] of cases) await expect(s.call(tool, args), tool).resolves.toBeDefined();
  });
});
