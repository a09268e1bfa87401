import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkActionFields, type ActionFields } from './action-fields.js';
import { fastArgs } from './fast-args.js';
import { createKernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool, layerSchema, userIdSchema } from './tools.js';

const scratchpad = scratch('kernel-action-fields-');
afterEach(() => scratchpad.cleanup());

const TAKES: ActionFields = { list: ['limit'], add: ['name', 'note'], drop: ['name'], status: [] };

describe('checkActionFields', () => {
  it('takes the fields the action lists, fields no action lists (the scope, action itself) and fields left undefined', () => {
    expect(() => checkActionFields('add', { action: 'add', name: 'n', note: 'x', layer: 'user', user_id: 'u', extra: 1 }, TAKES)).not.toThrow();
    expect(() => checkActionFields('list', { action: 'list', limit: 5, name: undefined }, TAKES)).not.toThrow();
    // An action the map does not know is the schema's to refuse.
    expect(() => checkActionFields('other', { name: 'n' }, TAKES)).not.toThrow();
  });

  it('refuses a field of another action, naming it, the actions that take it and what this action takes', () => {
    expect(() => checkActionFields('list', { action: 'list', name: 'n' }, TAKES)).toThrow(
      expect.objectContaining({
        code: 'KERNEL_ERR_VALIDATION',
        field: 'name',
        accepted: 'omit it with action list',
        message: 'Invalid input: field "name" is not used by action list, so it would be dropped; it is taken by actions add, drop. Action list takes limit',
      }),
    );
    expect(() => checkActionFields('status', { limit: 3 }, TAKES)).toThrow(
      expect.objectContaining({ field: 'limit', message: expect.stringMatching(/taken by action list\. Action status takes no field besides layer and user_id$/) }),
    );
  });
});

describe('a tool declaring actionFields', () => {
  async function call(args: Record<string, unknown>): Promise<unknown> {
    const tool = defineTool({
      name: 'things',
      title: 'things',
      description: 'things',
      input: z.object({
        action: z.enum(['list', 'add', 'drop', 'status']).default('list'),
        name: z.string().optional(),
        note: z.string().optional(),
        limit: z.number().int().default(20),
        layer: layerSchema.default('user'),
        user_id: userIdSchema,
      }),
      actionFields: TAKES,
      annotations: { readOnlyHint: true },
      handler: (a: Record<string, unknown>) => a,
    });
    const plugin = definePlugin({ name: 'p', version: '1.0.0', tier: 'tst', kernel: '^1.0.0', setup: (ctx) => ctx.tools.register(tool) });
    const k = scratchpad.kernel(await createKernel({ dataDir: scratchpad.dir(), logger: silentLogger(), plugins: [plugin] }));
    // The declaration leaves the schema, and so its argument shortcut, as it was.
    expect(fastArgs(k.tools()[0]!.input)).toBeTypeOf('function');
    return k.callTool('things', args);
  }

  it('is refused, before the handler runs, a field its action does not take, on the shortcut and on zod\'s path alike', async () => {
    await expect(call({ action: 'add', name: 'n', limit: 5 })).rejects.toMatchObject({ field: 'limit', accepted: 'omit it with action add' });
    // A key the shortcut does not know sends the call to zod, which drops it; the check is the same there.
    await expect(call({ action: 'add', name: 'n', limit: 5, stray: true })).rejects.toMatchObject({ field: 'limit' });
    // The default action (list) is the call's action.
    await expect(call({ name: 'n' })).rejects.toMatchObject({ field: 'name', message: expect.stringMatching(/not used by action list/) });
  });

  it('takes a default the schema filled in as not given, and the scope with every action', async () => {
    await expect(call({ action: 'add', name: 'n', layer: 'agent', user_id: 'bob' })).resolves.toMatchObject({ action: 'add', name: 'n', limit: 20, layer: 'agent', user_id: 'bob' });
    await expect(call({ action: 'status' })).resolves.toMatchObject({ action: 'status', limit: 20 });
    await expect(call({ limit: 3 })).resolves.toMatchObject({ action: 'list', limit: 3 });
  });

  it('a malformed declaration is refused when the tool is defined, naming actionFields', () => {
    const base = { name: 'bad', title: 'bad', description: 'bad', input: z.object({ action: z.enum(['a']) }), annotations: { readOnlyHint: true }, handler: () => ({}) };
    for (const actionFields of [{ a: 'name' }, { a: [1] }, null]) {
      expect(() => defineTool({ ...base, actionFields } as never), JSON.stringify(actionFields)).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_INVALID', field: 'actionFields' }));
    }
  });
});
