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
      ['memory_procedure', { action: 'get', name: 'deploy', steps: ['x'] }, 'steps', 'action save'],
      ['memory_procedure', { action: 'list', name: 'deploy' }, 'name', 'actions save, get, record, delete'],
      ['memory_branch', { action: 'list', name: 'b' }, 'name', 'actions create, set, unset, diff, merge, delete'],
      ['memory_branch', { action: 'create', name: 'b', force: true }, 'force', 'action merge'],
      ['memory_stash', { action: 'show', note: 'why' }, 'note', 'action push'],
      ['memory_disclose', { action: 'list', content: 'c' }, 'content', 'action add'],
      ['memory_counterfactual', { action: 'save', anchor: 'a', premise: 'p', projection: 'q', limit: 5 }, 'limit', 'action list'],
      ['memory_graph_add', { action: 'causal', content: 'deploy', outcome: 'outage', node_type: 'event' }, 'node_type', 'action add'],
      ['memory_history', { action: 'restore', version_id: 'fv_1', key: 'k' }, 'key', 'action list'],
      ['memory_scratchpad', { action: 'read', content: 'x' }, 'content', 'action write'],
    ];
    expect(await actionFieldProblems(s, cases)).toEqual([]);
  });

  it('the fields an action takes, and the defaults the schema fills in, still pass', async () => {
    s = await start({ expose: 'all' });
    const cases: [string, Record<string, unknown>][] = [
      ['memory_procedure', { action: 'list', limit: 5 }],
      ['memory_branch', { action: 'list' }],
      ['memory_scratchpad', { action: 'read' }],
    ];
    for (const [tool, args] of cases) await expect(s.call(tool, args), tool).resolves.toBeDefined();
  });
});
