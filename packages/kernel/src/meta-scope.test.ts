import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveExposure } from './exposure.js';
import { scratch } from './scratch.fixture.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { buildSurface, surfaceCallStats } from './surface.js';
import { defineTool, layerSchema, userIdSchema } from './tools.js';

const scratchpad = scratch('ms-meta-scope-');
afterEach(scratchpad.cleanup);

interface Note {
  layer: string;
  user_id: string;
  text: string;
}

/**
 * A kernel with one non-primitive tier `notes`: note_add takes the scope arguments as every memory
 * tool does and records what it was asked to write; note_count takes none.
 */
async function notesKernel() {
  const written: Note[] = [];
  const kernel = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));
  await kernel.register(
    definePlugin({
      name: 'fake-notes',
      version: '1.0.0',
      tier: 'notes',
      kernel: '^1.0.0',
      setup(ctx) {
        ctx.tools.register(
          defineTool({
            name: 'note_add',
            title: 'Add a note',
            description: 'Add a note',
            input: z.object({ text: z.string(), layer: layerSchema.default('user'), user_id: userIdSchema }),
            annotations: { readOnlyHint: false },
            handler: (args) => {
              written.push({ layer: args.layer, user_id: args.user_id, text: args.text });
              return { ok: true };
            },
          }),
        );
        ctx.tools.register(
          defineTool({
            name: 'note_count',
            title: 'Count notes',
            description: 'Count notes',
            input: z.object({ verbose: z.boolean().optional() }),
            annotations: { readOnlyHint: true },
            handler: () => ({ count: written.length }),
          }),
        );
      },
    }),
  );
  await kernel.ready();
  const surface = buildSurface(kernel, resolveExposure('all', kernel.tiers), true);
  const notes = surface.get('memory_tier_notes')!;
  const calls = (name: string) => kernel.tools().find((t) => t.name === name)!.calls;
  const refusedByDispatcher = () => surfaceCallStats(kernel).find((s) => s.name === 'memory_tier_notes')?.calls.error ?? 0;
  return { kernel, notes, written, calls, refusedByDispatcher };
}

describe('MEMORY_META dispatchers take the scope arguments', () => {
  it('publishes layer and user_id beside action and args, and says so in its description', async () => {
    const { notes } = await notesKernel();
    const schema = notes.inputSchema as { properties: Record<string, { enum?: unknown; type?: unknown; description?: string }>; required?: string[] };
    expect(Object.keys(schema.properties)).toEqual(['action', 'args', 'layer', 'user_id']);
    expect(schema.properties.layer).toMatchObject({ enum: ['user', 'agent'], description: expect.stringMatching(/layer/) });
    expect(schema.properties.user_id).toMatchObject({ type: 'string', description: expect.stringMatching(/user_id/) });
    // No default published: left out, the member's own default applies.
    expect(schema.properties.user_id).not.toHaveProperty('default');
    expect(schema.required ?? []).not.toContain('user_id');
    expect(notes.description).toMatch(/"layer".*"user_id"/);
  });

  it('passes a top-level layer and user_id to the member when its args leave them out', async () => {
    const { notes, written } = await notesKernel();
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a' }, layer: 'agent', user_id: 'bob' })).resolves.toEqual({ ok: true });
    await notes.invoke({ action: 'note_add', args: { text: 'b' }, user_id: 'carol' });
    await notes.invoke({ action: 'note_add', args: { text: 'c' }, layer: 'agent' });
    await notes.invoke({ action: 'note_add', args: { text: 'd' } });
    expect(written).toEqual([
      { layer: 'agent', user_id: 'bob', text: 'a' },
      { layer: 'user', user_id: 'carol', text: 'b' },
      { layer: 'agent', user_id: 'default', text: 'c' },
      { layer: 'user', user_id: 'default', text: 'd' },
    ]);
  });

  it('accepts the same value at the top level and in args', async () => {
    const { notes, written } = await notesKernel();
    await expect(
      notes.invoke({ action: 'note_add', args: { text: 'a', layer: 'agent', user_id: 'bob' }, layer: 'agent', user_id: 'bob' }),
    ).resolves.toEqual({ ok: true });
    // args alone still work, the top level giving the other scope argument.
    await notes.invoke({ action: 'note_add', args: { text: 'b', user_id: 'bob' }, layer: 'agent' });
    // A user_id given in both places, composed in one and decomposed in the other, is one user (NFC).
    await notes.invoke({ action: 'note_add', args: { text: 'c', user_id: 'Jose\u0301' }, user_id: 'Jos\u00e9' });
    await notes.invoke({ action: 'note_add', args: { text: 'd', user_id: 'Jose\u0301' }, user_id: 'Jose\u0301' });
    expect(written).toEqual([
      { layer: 'agent', user_id: 'bob', text: 'a' },
      { layer: 'agent', user_id: 'bob', text: 'b' },
      { layer: 'user', user_id: 'Jos\u00e9', text: 'c' },
      { layer: 'user', user_id: 'Jos\u00e9', text: 'd' },
    ]);
  });

  it('refuses a top-level value that differs from the one in args, naming the field, and writes nothing', async () => {
    const { notes, written, calls, refusedByDispatcher } = await notesKernel();
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a', user_id: 'alice' }, user_id: 'bob' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      type: 'ValidationError',
      field: 'user_id',
      accepted: ['alice'],
      message: expect.stringMatching(/^Invalid input: field "user_id" differs between the dispatcher's and args' values \("bob" and "alice"\)/),
    });
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a', layer: 'user' }, layer: 'agent', user_id: 'bob' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'layer',
    });
    expect(written).toEqual([]);
    // Refused by the dispatcher itself: the member was never called.
    expect(calls('note_add').count).toBe(0);
    expect(refusedByDispatcher()).toBe(2);
  });

  it('refuses a top-level scope argument the member does not take, naming it, instead of dropping it', async () => {
    const { notes, calls } = await notesKernel();
    await expect(notes.invoke({ action: 'note_count', args: {}, user_id: 'bob' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'user_id',
      accepted: ['verbose'],
      message: expect.stringMatching(/^Invalid input: field "user_id" is not taken by note_count/),
    });
    await expect(notes.invoke({ action: 'note_count', layer: 'agent' })).rejects.toMatchObject({ field: 'layer' });
    expect(calls('note_count').count).toBe(0);
    await expect(notes.invoke({ action: 'note_count' })).resolves.toEqual({ count: 0 });
  });

  it('refuses a bad top-level scope value, and a usual other name or misspelling of one, instead of dropping it', async () => {
    const { notes, written } = await notesKernel();
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a' }, layer: 'both' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'layer',
      accepted: ['user', 'agent'],
    });
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a' }, user_id: 'a/b' })).rejects.toMatchObject({ field: 'user_id', accepted: 'string' });
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a' }, user: 'bob' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'user',
      message: expect.stringMatching(/did you mean "user_id"/),
    });
    await expect(notes.invoke({ action: 'note_add', args: { text: 'a' }, layr: 'agent' })).rejects.toMatchObject({ field: 'layr' });
    expect(written).toEqual([]);
    // With user_id given (at the top level or in args), an extra `user` is dropped like any other extra key.
    await notes.invoke({ action: 'note_add', args: { text: 'b', user_id: 'bob' }, user: 'bob' });
    expect(written).toEqual([{ layer: 'user', user_id: 'bob', text: 'b' }]);
  });
});

describe('MEMORY_META dispatchers and member arguments beside action', () => {
  it("refuses a member's own argument given beside action instead of inside args, naming it, and runs nothing", async () => {
    const { notes, written } = await notesKernel();
    await expect(notes.invoke({ action: 'note_add', args: {}, text: 'beside' })).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'text',
      accepted: 'args.text',
      message: expect.stringContaining('give it inside args'),
    });
    await expect(notes.invoke({ action: 'note_count', verbose: true })).rejects.toMatchObject({ field: 'verbose' });
    expect(written).toEqual([]);
    // Inside args it runs; a key that is no member's argument is still left to the misspelling check.
    await expect(notes.invoke({ action: 'note_add', args: { text: 'inside' } })).resolves.toEqual({ ok: true });
    await expect(notes.invoke({ action: 'note_add', args: { text: 'x' }, unrelated: 1 })).resolves.toEqual({ ok: true });
  });
});
