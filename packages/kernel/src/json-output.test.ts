import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { defineTool } from './tools.js';
import { jsonGuard, jsonProblem } from './json-output.js';

const scratchpad = scratch('ms-json-output-');
afterEach(scratchpad.cleanup);

describe('jsonGuard', () => {
  it('gives no guard to a schema of JSON kinds only (a strict first-party schema pays nothing)', () => {
    const strict = z.object({
      id: z.string(),
      n: z.number().int().optional(),
      ok: z.boolean(),
      kind: z.enum(['a', 'b']),
      lit: z.literal('x'),
      nul: z.null(),
      list: z.array(z.object({ k: z.string(), v: z.number().nullable() })),
      map: z.record(z.string(), z.array(z.string())),
      either: z.union([z.string(), z.number()]),
      pair: z.tuple([z.string(), z.number()]),
    });
    expect(jsonGuard(strict)).toBeNull();
  });

  it('guards every kind that can hold a value JSON cannot carry', () => {
    const kinds = [z.any(), z.unknown(), z.bigint(), z.date(), z.map(z.string(), z.string()), z.set(z.string()), z.custom(), z.instanceof(Error), z.symbol(), z.undefined(), z.lazy(() => z.string()), z.string().transform((s) => s.length), z.literal(1n)];
    for (const k of kinds) expect(jsonGuard(z.object({ v: k })), k._zod.def.type).not.toBeNull();
    expect(jsonGuard(z.object({ a: z.string() }).catchall(z.unknown()))).not.toBeNull();
    expect(jsonGuard(z.object({ a: z.union([z.string(), z.any()]) }))).not.toBeNull();
  });

  it('names the field holding a BigInt, a cycle or a throwing toJSON, and passes a sendable answer', () => {
    const guard = jsonGuard(z.object({ ok: z.boolean(), v: z.any(), list: z.array(z.object({ meta: z.unknown() })) }))!;
    expect(guard({ ok: true, v: { a: [1, 'x'] }, list: [{ meta: { b: null } }] })).toBeUndefined();
    expect(guard({ ok: true, v: 1n, list: [] })).toBe('field "v" holds a BigInt');
    expect(guard({ ok: true, v: { deep: [0, 2n] }, list: [] })).toBe('field "v.deep.1" holds a BigInt');
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(guard({ ok: true, v: null, list: [{ meta: 1 }, { meta: cyc }] })).toBe('field "list.1.meta.self" holds a circular reference');
    const bad = { toJSON: () => { throw new Error('nope'); } };
    expect(guard({ ok: true, v: bad, list: [] })).toBe('field "v" holds a toJSON that throws (nope)');
    expect(jsonProblem(5n)).toBe('the answer holds a BigInt');
  });
});

describe('a tool answer JSON cannot carry, accepted by its output schema', () => {
  async function kernelWithWriter() {
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), clock: new ManualClock() }));
    await k.register(
      definePlugin({
        name: 'bt-plugin',
        version: '1.0.0',
        tier: 'bt',
        kernel: '^1.0.0',
        migrations: [{ id: 1, name: 'log', up: (db) => db.exec('CREATE TABLE bt_log (v TEXT)') }],
        setup(ctx) {
          const insert = ctx.db.prepare('INSERT INTO bt_log (v) VALUES (?)');
          ctx.tools.register(
            defineTool({
              name: 'bt_write',
              title: 'write',
              description: 'writes a row, answers what it is told',
              input: z.object({ mode: z.enum(['ok', 'bigint', 'cycle', 'tojson']) }),
              output: z.object({ ok: z.boolean(), v: z.any() }),
              annotations: { readOnlyHint: false },
              handler: ({ mode }) => {
                insert.run(mode);
                const cyc: Record<string, unknown> = {};
                cyc.self = cyc;
                const v = mode === 'bigint' ? 1n : mode === 'cycle' ? cyc : mode === 'tojson' ? { toJSON: () => { throw new Error('x'); } } : 1;
                return { ok: true, v };
              },
            }),
          );
        },
      }),
    );
    await k.ready();
    return { k, rows: () => (k.storage.db.prepare('SELECT v FROM bt_log').all() as { v: string }[]).map((r) => r.v) };
  }

  it('fails the call inside its transaction: the error names plugin, tool and field, and the row is rolled back', async () => {
    const { k, rows } = await kernelWithWriter();
    for (const mode of ['bigint', 'cycle', 'tojson']) {
      let err: any;
      try {
        k.callToolNow('bt_write', { mode });
      } catch (e) {
        err = e;
      }
      expect(err, mode).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'bt-plugin' });
      expect(err.message).toContain('Tool bt_write (plugin bt-plugin) answered a value that cannot be sent as JSON: field "v');
    }
    expect(rows()).toEqual([]);
    expect(k.callToolNow('bt_write', { mode: 'ok' })).toEqual({ ok: true, v: 1 });
    expect(rows()).toEqual(['ok']);
  });
});
