import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalid, MemoryError } from './errors.js';
import { createKernel, type Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { openSqlite } from './sqlite-driver.js';
import { buildSurface } from './surface.js';
import { resolveExposure } from './exposure.js';
import { defineTool, USER_ID_ACCEPTED, userIdSchema, type ToolCallContext } from './tools.js';

import { kernelScratch, plugin } from './kernel.fixture.js';
import type { PluginContext } from './plugin.js';

const { scratchpad, tmp, cleanup } = kernelScratch('ms-kernel-tools-');
afterEach(cleanup);

/** A ready kernel (closed after the test) with one read-only tool: the schema and handler given. */
async function kernelWithTool(name: string, input: z.ZodObject, handler: (args: any) => unknown): Promise<Kernel> {
  const tool = defineTool({ name, title: name, description: name, input, annotations: { readOnlyHint: true }, handler });
  const k = await createKernel({ dataDir: tmp(), logger: silentLogger(), plugins: [plugin({ setup: (ctx) => ctx.tools.register(tool) })] });
  scratchpad.kernel(k);
  return k;
}

describe('tools', () => {
  it('validates input and names the field and accepted values', async () => {
    const k = await kernelWithTool('echo', z.object({
      text: z.string().min(1),
      layer: z.enum(['user', 'agent']).default('user'),
      n: z.number().int().min(1).max(200).optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    }), (a) => a);
    await expect(k.callTool('echo', { text: 'hi' })).resolves.toEqual({ text: 'hi', layer: 'user' });
    await expect(k.callTool('echo', { text: 'hi', layer: 'robot' })).rejects.toMatchObject({ field: 'layer', accepted: ['user', 'agent'] });
    await expect(k.callTool('echo', {})).rejects.toMatchObject({ field: 'text', message: expect.stringContaining('required') });
    // A value of the wrong type is named as such, not as missing.
    await expect(k.callTool('echo', { text: 5 })).rejects.toMatchObject({ field: 'text', message: expect.stringContaining('must be string') });
    await expect(k.callTool('missing', {})).rejects.toMatchObject({ code: 'KERNEL_ERR_TOOL_UNKNOWN', field: 'name', accepted: ['echo'] });
    // A number far out of range names the field's own bound, not int()'s safe-integer range.
    await expect(k.callTool('echo', { text: 'hi', n: 1e20 })).rejects.toMatchObject({ field: 'n', accepted: { max: 200 } });
    await expect(k.callTool('echo', { text: 'hi', n: -1e20 })).rejects.toMatchObject({ field: 'n', accepted: { min: 1 } });
    // Text with an unpaired surrogate is refused before the handler, naming the field and the position.
    await expect(k.callTool('echo', { text: 'a\uD800b' })).rejects.toMatchObject({
      field: 'text',
      message: expect.stringContaining('unpaired UTF-16 surrogate (U+D800) at index 1'),
    });
    await expect(k.callTool('echo', { text: 'ok', meta: { note: ['\uDFFF'] } })).rejects.toMatchObject({ field: 'meta.note.0' });
    await expect(k.callTool('echo', { text: 'pair 𝄞' })).resolves.toEqual({ text: 'pair 𝄞', layer: 'user' });
    // A key that misspells an argument the call left out is an error, not a silent default; other extra keys are dropped.
    await expect(k.callTool('echo', { text: 'hi', layr: 'agent' })).rejects.toMatchObject({ field: 'layr', message: expect.stringContaining('did you mean "layer"') });
    await expect(k.callTool('echo', { text: 'hi', Layer: 'agent' })).rejects.toMatchObject({ field: 'Layer' });
    // So is a usual other name for layer; echo has no user_id, so a user_id alias is an extra key.
    await expect(k.callTool('echo', { text: 'hi', lyr: 'agent' })).rejects.toMatchObject({ field: 'lyr', message: expect.stringContaining('did you mean "layer"') });
    await expect(k.callTool('echo', { text: 'hi', user: 'bob' })).resolves.toEqual({ text: 'hi', layer: 'user' });
    await expect(k.callTool('echo', { txt: 'hi' })).rejects.toMatchObject({ field: 'txt', message: expect.stringContaining('did you mean "text"') });
    await expect(k.callTool('echo', { text: 'hi', reason: 'testing', layer: 'agent' })).resolves.toEqual({ text: 'hi', layer: 'agent' });
    await expect(k.callTool('echo', { text: 'hi', layer: 'agent', layr: 'user' })).resolves.toEqual({ text: 'hi', layer: 'agent' });
    expect(k.getTool('echo')!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('says what a refused user_id or a union-typed argument accepts', async () => {
    const k = await kernelWithTool('unions', z.object({
      user_id: userIdSchema,
      deltas: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
      spec: z.union([z.string().max(10), z.record(z.string(), z.unknown())]).optional(),
      tag: z.union([z.string().min(1), z.array(z.string().min(1)).max(3)]).optional(),
      mode: z.union([z.literal('a'), z.literal(3), z.enum(['b', 'c'])]).optional(),
      nested: z.union([z.number(), z.union([z.boolean(), z.null()])]).optional(),
      pair: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]).optional(),
      need: z.union([z.string(), z.array(z.string())]),
    }), () => ({ ok: true }));
    await expect(k.callTool('unions', { need: 'x' })).resolves.toEqual({ ok: true });
    // A user_id refused by its pattern or its refinement says the rule, as the size errors give their bound.
    for (const user_id of ['a/b', 'a\\b', '   ', '\u200b', '\u200b\u2060']) {
      await expect(k.callTool('unions', { need: 'x', user_id })).rejects.toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'user_id', accepted: USER_ID_ACCEPTED });
    }
    await expect(k.callTool('unions', { need: 'x', user_id: '' })).rejects.toMatchObject({ field: 'user_id', accepted: { min: 1 } });
    await expect(k.callTool('unions', { need: 'x', user_id: 'x'.repeat(201) })).rejects.toMatchObject({ field: 'user_id', accepted: { max: 200 } });
    // So does a lifecycle event's user_id (the same schema).
    await expect(k.dispatchEvent('new_message', {}, 'user', 'a/b')).rejects.toMatchObject({ field: 'user_id', accepted: USER_ID_ACCEPTED });
    // A union names its members' kinds, not only "Invalid input".
    await expect(k.callTool('unions', { need: 'x', deltas: 5 })).rejects.toMatchObject({
      field: 'deltas',
      accepted: 'object or array',
      message: 'Invalid input: field "deltas" must be object or array',
    });
    await expect(k.callTool('unions', { need: 'x', spec: 3 })).rejects.toMatchObject({ field: 'spec', accepted: 'string or object' });
    await expect(k.callTool('unions', { need: 'x', tag: { a: 1 } })).rejects.toMatchObject({ field: 'tag', accepted: 'string or array' });
    await expect(k.callTool('unions', { need: 'x', mode: 'z' })).rejects.toMatchObject({ field: 'mode', accepted: '"a" or 3 or "b" or "c"' });
    await expect(k.callTool('unions', { need: 'x', nested: 'z' })).rejects.toMatchObject({ field: 'nested', accepted: 'number or boolean or null' });
    await expect(k.callTool('unions', { need: 'x', pair: {} })).rejects.toMatchObject({ field: 'pair', accepted: 'object' });
    await expect(k.callTool('unions', {})).rejects.toMatchObject({ field: 'need', accepted: 'string or array', message: expect.stringContaining('is required (string or array)') });
    // A member the value reached (its kind is right) reports its own issue, with its bound.
    await expect(k.callTool('unions', { need: 'x', spec: 'x'.repeat(11) })).rejects.toMatchObject({ field: 'spec', accepted: { max: 10 } });
    await expect(k.callTool('unions', { need: 'x', tag: ['a', 'b', 'c', 'd'] })).rejects.toMatchObject({ field: 'tag', accepted: { max: 3 } });
  });

  it('answers a synchronous handler at once and an asynchronous one with a promise, failures coded either way', async () => {
    const tool = (name: string, handler: (a: { n: number }, call: ToolCallContext) => unknown) =>
      defineTool({ name, title: name, description: name, input: z.object({ n: z.number() }), annotations: { readOnlyHint: true }, handler });
    const k = await createKernel({
      dataDir: tmp(),
      logger: silentLogger(),
      plugins: [
        plugin({
          name: 'p-sync',
          setup(ctx) {
            ctx.tools.register(tool('double', (a) => ({ n: a.n * 2 })));
            ctx.tools.register(tool('later', async (a) => ({ n: a.n + 1 })));
            ctx.tools.register(tool('throws', () => { throw new Error('sync boom'); }));
            ctx.tools.register(tool('rejects', async () => { throw new Error('async boom'); }));
            ctx.tools.register(tool('signal', (_a, call) => ({ aborted: call.signal?.aborted ?? null })));
          },
        }),
      ],
    });
    scratchpad.kernel(k);
    expect(k.callToolNow('double', { n: 2 })).toEqual({ n: 4 });
    const later = k.callToolNow('later', { n: 2 });
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toEqual({ n: 3 });
    expect(() => k.callToolNow('double', { n: 'x' })).toThrow(expect.objectContaining({ field: 'n' }));
    expect(() => k.callToolNow('throws', { n: 1 })).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'p-sync' }));
    await expect(k.callToolNow('rejects', { n: 1 })).rejects.toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'p-sync' });
    await expect(k.callTool('throws', { n: 1 })).rejects.toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED' });
    await expect(k.callTool('double', { n: 5 })).resolves.toEqual({ n: 10 });

    // Through a surface: call() is as immediate, and a signal is only made when the handler reads it.
    const surface = buildSurface(k, resolveExposure('all', k.tiers), false);
    const abort = new AbortController();
    let reads = 0;
    const source = {
      get signal() {
        reads++;
        return abort.signal;
      },
    };
    expect(surface.get('double')!.call({ n: 3 }, source)).toEqual({ n: 6 });
    expect(reads).toBe(0);
    expect(surface.get('signal')!.call({ n: 0 }, source)).toEqual({ aborted: false });
    expect(reads).toBe(1);
    await expect(surface.get('double')!.invoke({ n: 4 })).resolves.toEqual({ n: 8 });
  });

  // Regression guard, fixed: a handler's "details is required" for an argument the schema leaves optional (project's
  // decision) said nothing of the keys the call gave instead (`decision`, `rationale`), which had been dropped
  // without a word, where the same error from the schema names them.
  it("a handler's validation error naming an argument the call left out names the keys it gave instead", async () => {
    const required = () => {
      throw invalid('details', 'is required for this action', 'text');
    };
    const tool = (name: string, handler: (a: { details?: string }) => unknown, transaction?: false) =>
      defineTool({ name, title: name, description: name, input: z.object({ details: z.string().optional() }), annotations: { readOnlyHint: false }, transaction, handler });
    const k = await createKernel({
      dataDir: tmp(),
      logger: silentLogger(),
      plugins: [
        plugin({
          setup(ctx) {
            ctx.tools.register(tool('in_tx', required));
            ctx.tools.register(tool('no_tx', required, false));
            ctx.tools.register(tool('later', async () => required()));
          },
        }),
      ],
    });
    for (const name of ['in_tx', 'no_tx', 'later']) {
      const err = (await k.callTool(name, { decision: 'Use X', rationale: 'because' }).catch((e: MemoryError) => e)) as MemoryError;
      expect(err, name).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'details' });
      expect(err.message, name).toContain('field "details" is required for this action; the call gave "decision", "rationale" instead, which this tool does not take (arguments: details)');
    }
    // A field the call gave, or a call that gave no other key, is told only what the handler said.
    const k2 = await createKernel({
      dataDir: tmp(),
      logger: silentLogger(),
      plugins: [
        plugin({
          setup(ctx) {
            ctx.tools.register(
              tool('vague', () => {
                throw invalid('details', 'is too vague');
              }),
            );
            ctx.tools.register(tool('req', required));
          },
        }),
      ],
    });
    expect(((await k2.callTool('vague', { details: 'x', other: 1 }).catch((e: MemoryError) => e)) as MemoryError).message).toBe('Invalid input: field "details" is too vague');
    expect(((await k2.callTool('req', {}).catch((e: MemoryError) => e)) as MemoryError).message).toBe('Invalid input: field "details" is required for this action');
    await k.close();
    await k2.close();
  });
});

type NotesSetup = (
  ctx: PluginContext,
  tool: (name: string, handler: () => unknown, transaction?: boolean) => void,
  write: () => void,
) => void;

/** A kernel whose plugin p-write owns one table of notes (`table`), its write tools registered by `setup`. */
function notesKernel(table: string, tier: string | undefined, setup: NotesSetup): Promise<Kernel> {
  return createKernel({
    dataDir: tmp(),
    logger: silentLogger(),
    plugins: [
      plugin({
        name: 'p-write',
        ...(tier ? { tier } : {}),
        migrations: [{ id: 1, name: 'notes', up: (db) => db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`) }],
        setup(ctx) {
          const write = () => void ctx.db.prepare(`INSERT INTO ${table} (body) VALUES (?)`).run('kept');
          const tool = (name: string, handler: () => unknown, transaction = true) =>
            ctx.tools.register(defineTool({ name, title: name, description: name, input: z.object({}), annotations: { readOnlyHint: false }, transaction, handler }));
          setup(ctx, tool, write);
        },
      }),
    ],
  });
}

describe('a database that refuses writes', () => {
  it('a write refused as read-only is a KERNEL_ERR_STORAGE naming memory.db and what to do, from a tool or an event handler', async () => {
    const k = await notesKernel('notes', 'notes', (ctx, tool, write) => {
      tool('note_now', () => (write(), {}));
      // Outside the call's transaction (whose BEGIN would be refused first), so the write itself is.
      tool('note_later', async () => (write(), {}), false);
      tool('note_wrapped', () => {
        try {
          write();
        } catch (err) {
          throw new Error('could not save the note', { cause: err });
        }
        return {};
      });
      ctx.onEvent('new_message', () => (write(), 'saved'));
    });
    scratchpad.kernel(k);
    expect(k.callToolNow('note_now', {})).toEqual({});
    // SQLite's own refusal (SQLITE_READONLY), as a read-only file gives, even to root.
    k.storage.db.pragma('query_only = ON');
    const file = path.join(k.dataDir, 'memory.db');
    const expected = {
      code: 'KERNEL_ERR_STORAGE',
      type: 'StorageError',
      plugin: 'p-write',
      message: expect.stringContaining(`cannot write to the database ${file}: it is read-only (attempt to write a readonly database); make it writable by this user (chmod u+w ${file}`),
    };
    expect(() => k.callToolNow('note_now', {})).toThrow(expect.objectContaining(expected));
    await expect(k.callToolNow('note_later', {})).rejects.toMatchObject(expected);
    await expect(k.callTool('note_wrapped', {})).rejects.toMatchObject(expected);
    const event = await k.dispatchEvent('new_message', { text: 'hello' });
    expect(event.results['p-write']).toEqual({ error: expect.objectContaining({ ...expected, message: expect.stringContaining(file) }) });
    // Any other failure is still the tool's own.
    k.storage.db.pragma('query_only = OFF');
    k.storage.db.exec('DROP TABLE notes');
    expect(() => k.callToolNow('note_now', {})).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_FAILED' }));
  });

  // Regression guard, fixed (audit-o finding 4): a write waiting on another process's write lock (a long
  // memory_data import there) failed after the busy timeout with a bare KERNEL_ERR_TOOL_FAILED "database is locked".
  it('a write that gives up waiting for another process\'s write lock is a KERNEL_ERR_BUSY saying so, how long it waited and to try again later', async () => {
    const k = await notesKernel('tst_notes', undefined, (_ctx, tool, write) => {
      tool('note_now', () => (write(), {}));
      // Outside the call's transaction: its own statement waits, and the kernel times the call.
      tool('note_bare', () => (write(), {}), false);
    });
    scratchpad.kernel(k);
    const file = path.join(k.dataDir, 'memory.db');
    k.storage.db.pragma('busy_timeout = 150');
    // Another process holds the write lock (a connection of its own on the same file).
    const other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      for (const name of ['note_now', 'note_bare']) {
        // note_now waits for the lock without blocking the event loop (a promise), note_bare in its own statement.
        const err = await (async () => {
          try {
            await k.callToolNow(name, {});
          } catch (e) {
            return e as MemoryError;
          }
          throw new Error(`${name} should have failed`);
        })();
        expect(err, name).toMatchObject({ code: 'KERNEL_ERR_BUSY', type: 'BusyError', plugin: 'p-write' });
        expect(err.message).toContain(`the database ${file} is busy: another process holds its write lock`);
        expect(err.message).toContain('memory_data import');
        expect(err.message).toMatch(/waited 0\.[12] s for it and gave up/);
        expect(err.message).toContain('Try again later');
        expect(err.message).not.toContain('database is locked');
        expect((err.details as { waited_ms: number }).waited_ms).toBeGreaterThanOrEqual(140);
        expect(err.message).toContain(name === 'note_now' ? 'nothing of this call was written' : 'the write that waited was not made');
      }
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // Once the lock is free, the same call works.
    expect(k.callToolNow('note_now', {})).toEqual({});
  });

  // Regression guard, fixed: a damaged page answered "database disk image is malformed", naming neither memory.db nor a way out.
  it('a statement SQLite refuses as damaged (SQLITE_CORRUPT, SQLITE_NOTADB) is a KERNEL_ERR_STORAGE naming memory.db and what to do', async () => {
    const malformed = (code: string) => Object.assign(new Error('database disk image is malformed'), { code });
    const k = await kernelWithTool('damaged', z.object({ code: z.string() }), (a) => {
      throw new Error('could not read', { cause: malformed(a.code) });
    });
    const file = path.join(k.dataDir, 'memory.db');
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB']) {
      expect(() => k.callToolNow('damaged', { code }), code).toThrow(
        expect.objectContaining({
          code: 'KERNEL_ERR_STORAGE',
          message: expect.stringContaining(`the database ${file} is damaged (database disk image is malformed): restore it from a backup (memory_backup list, then restore)`),
        }),
      );
    }
    expect(() => k.callToolNow('damaged', { code: 'SQLITE_ERROR' })).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_TOOL_FAILED' }));
  });

  // Regression guard, fixed: a full disk answered KERNEL_ERR_TOOL_FAILED "database or disk is full", naming neither memory.db nor a way out.
  it('a full disk (SQLITE_FULL) is a KERNEL_ERR_STORAGE naming memory.db, the data dir and to free space, and the call\'s writes are rolled back', async () => {
    const errors: string[] = [];
    const k = await createKernel({
      dataDir: tmp(),
      logger: { ...silentLogger(), error: (m: string) => errors.push(m) },
      plugins: [
        plugin({
          name: 'p-big',
          tier: 'notes',
          migrations: [{ id: 1, name: 'notes', up: (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)') }],
          setup(ctx) {
            const note = (n: number) => {
              // A small row first, then rows that need new pages: the first is rolled back with them.
              ctx.db.prepare('INSERT INTO notes (body) VALUES (?)').run('small');
              for (let i = 0; i < n; i++) ctx.db.prepare('INSERT INTO notes (body) VALUES (?)').run('x'.repeat(8000));
              return {};
            };
            ctx.tools.register(defineTool({ name: 'note', title: 'note', description: 'note', input: z.object({ n: z.number() }), annotations: { readOnlyHint: false }, handler: (a) => note(a.n) }));
            ctx.onEvent('new_message', () => note(20));
          },
        }),
      ],
    });
    scratchpad.kernel(k);
    const count = () => (k.storage.db.prepare('SELECT COUNT(*) AS n FROM notes').get() as { n: number }).n;
    k.callToolNow('note', { n: 1 });
    // SQLite's own answer when the database may grow no more, as a full disk gives: "database or disk is full".
    const pages = k.storage.db.pragma('page_count', { simple: true }) as number;
    k.storage.db.pragma(`max_page_count = ${pages + 2}`);
    const file = path.join(k.dataDir, 'memory.db');
    expect(() => k.callToolNow('note', { n: 20 })).toThrow(
      expect.objectContaining({
        code: 'KERNEL_ERR_STORAGE',
        plugin: 'p-big',
        message: `cannot write to the database ${file}: the disk holding the data dir ${k.dataDir} is full (database or disk is full); the database holds nothing of this call (its transaction was rolled back). Free space on that disk (or point MCP_MEMORY_DATA_DIR at a disk with room), then call again`,
      }),
    );
    expect(count()).toBe(2);
    expect(k.storage.db.inTransaction).toBe(false);
    // From an event handler: its error under the plugin's name, and one line on the logger.
    const event = await k.dispatchEvent('new_message', { text: 'hello' });
    expect(event.results['p-big']).toEqual({ error: expect.objectContaining({ code: 'KERNEL_ERR_STORAGE', message: expect.stringContaining(`the disk holding the data dir ${k.dataDir} is full`) }) });
    expect(errors).toEqual([expect.stringMatching(/^p-big failed on new_message: cannot write to the database .*memory\.db: the disk holding the data dir .* is full \(database or disk is full\)\. Free space/)]);
    // A handler run outside a transaction groups its own writes: its small row stays, and nothing is claimed rolled back.
    expect(count()).toBe(3);
    // Room again: the same call goes through.
    k.storage.db.pragma('max_page_count = 1073741823');
    k.callToolNow('note', { n: 20 });
    expect(count()).toBe(24);
  });
});
