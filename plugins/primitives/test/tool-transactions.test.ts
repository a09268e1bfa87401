import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { definePlugin, defineTool, z, type PluginContext } from '@memory-service/kernel';
import { useStores, type Stores } from '@memory-service/stores';
import { start, type TestServer } from './helpers.js';

// A tool call's database writes are all-or-nothing: a tool that is not read-only runs in one
// transaction the kernel opens, rolled back when its handler throws (docs/decisions.md).

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const scope = { layer: 'user' as const, user_id: 'tx' };
/** What the tools below saw of the connection while they ran. */
const seen: Record<string, boolean> = {};
/** The wiki page a failing tool saved before it threw. */
let pagePath = '';

const tool = (name: string, readOnly: boolean, handler: () => unknown, extra: { transaction?: boolean } = {}) =>
  defineTool({ name, title: name, description: `${name} tool`, input: z.object({}), annotations: { readOnlyHint: readOnly }, ...extra, handler });

const insert = (ctx: PluginContext, note: string) => ctx.db.prepare('INSERT INTO txtest_rows (note) VALUES (?)').run(note);

const txPlugin = definePlugin({
  name: 'tx-plugin',
  version: '1.0.0',
  tier: 'txtest',
  kernel: '^1.0.0',
  migrations: [{ id: 1, name: 'rows', up: (db) => db.exec('CREATE TABLE txtest_rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)') }],
  setup(ctx) {
    const stores: Stores = useStores(ctx);
    ctx.tools.register(
      tool('txtest_insert_then_throw', false, () => {
        insert(ctx, 'half-written');
        throw new Error('the second half failed');
      }),
    );
    ctx.tools.register(tool('txtest_insert', false, () => (insert(ctx, 'whole'), { ok: true })));
    ctx.tools.register(
      defineTool({
        name: 'txtest_bad_answer',
        title: 'bad answer',
        description: 'writes, then answers what its output schema refuses',
        input: z.object({}),
        output: z.object({ id: z.number() }),
        annotations: { readOnlyHint: false },
        handler: () => (insert(ctx, 'refused answer'), { id: 'seven' as unknown as number }),
      }),
    );
    ctx.tools.register(tool('txtest_writer_sees', false, () => ((seen.writer = ctx.db.inTransaction), {})));
    ctx.tools.register(tool('txtest_reader_sees', true, () => ((seen.reader = ctx.db.inTransaction), {})));
    ctx.tools.register(tool('txtest_opted_out_sees', false, () => ((seen.optedOut = ctx.db.inTransaction), {}), { transaction: false }));
    ctx.tools.register(
      tool('txtest_stores_then_throw', false, () => {
        stores.transaction(() => {
          stores.facts.upsert(scope, { key: 'tx_fact', value: 'a fact written in a nested transaction' });
          stores.l1.push(scope, { text: 'an L1 item of a failed call' });
        });
        pagePath = stores.wiki.save(scope, { title: 'Failed call page', content: 'text of a failed call', wiki_type: 'work_notes' }).path;
        throw new Error('failed after the stores wrote');
      }),
    );
    ctx.tools.register(
      tool('txtest_catches_inner_failure', false, () => {
        try {
          stores.transaction(() => {
            stores.facts.upsert(scope, { key: 'inner_fact', value: 'written by an inner transaction that failed' });
            throw new Error('inner failure');
          });
        } catch {
          // The handler goes on: only the inner transaction's writes are undone.
        }
        stores.facts.upsert(scope, { key: 'outer_fact', value: 'written after the caught failure' });
        return { ok: true };
      }),
    );
    ctx.tools.register(
      tool('txtest_fires_hook', false, () => {
        insert(ctx, 'before the hook');
        void ctx.hooks.graph_domain.promise({ ...scope, node_id: 'n', node_type: 't', content: 'c' });
        return { ok: true };
      }),
    );
  },
});

/** Taps graph_domain with a tap that writes, then throws: the kernel logs it and goes on. */
const tapPlugin = definePlugin({
  name: 'tx-tap-plugin',
  version: '1.0.0',
  tier: 'txtap',
  kernel: '^1.0.0',
  setup(ctx) {
    ctx.hooks.graph_domain.tap('tx-tap-plugin', () => {
      insert(ctx, 'written by the failing tap');
      throw new Error('the tap failed');
    });
  },
});

const notes = (t: TestServer) => (t.kernel.storage.db.prepare('SELECT note FROM txtest_rows ORDER BY id').pluck().all() as string[]);
const storesOf = (t: TestServer) => t.kernel.container.resolve<Stores>('stores');

it("a tool that writes and then throws is an error naming its plugin, and leaves none of its rows", async () => {
  s = await start({ plugins: [txPlugin], expose: 'primitives,txtest' });
  const out = await s.callRaw('txtest_insert_then_throw');
  expect(out.isError).toBe(true);
  expect(out.structured.error).toMatchObject({ code: 'KERNEL_ERR_TOOL_FAILED', plugin: 'tx-plugin', message: 'the second half failed' });
  expect(notes(s)).toEqual([]);
  expect(s.kernel.storage.db.inTransaction).toBe(false);
});

it("a tool that succeeds keeps its rows; one whose answer its output schema refuses keeps none", async () => {
  s = await start({ plugins: [txPlugin], expose: 'primitives,txtest' });
  expect((await s.callRaw('txtest_insert')).isError).toBe(false);
  const bad = await s.callRaw('txtest_bad_answer');
  expect(bad.isError).toBe(true);
  expect(bad.structured.error.message).toMatch(/Tool txtest_bad_answer \(plugin tx-plugin\) answered with output its output schema refuses/);
  expect(notes(s)).toEqual(['whole']);
});

it('a tool that is not read-only runs in a transaction; a read-only tool, or one that opts out, does not', async () => {
  s = await start({ plugins: [txPlugin], expose: 'primitives,txtest' });
  for (const name of ['txtest_writer_sees', 'txtest_reader_sees', 'txtest_opted_out_sees']) expect((await s.callRaw(name)).isError, name).toBe(false);
  expect(seen).toEqual({ writer: true, reader: false, optedOut: false });
});

it("the stores' own transactions nest in the tool's: a throw after them undoes their rows, in-memory copies and page files", async () => {
  s = await start({ plugins: [txPlugin], expose: 'primitives,txtest' });
  const stores = storesOf(s);
  expect(stores.l1.recent(scope, 5)).toEqual([]); // the ring's copy of the newest items is made now
  const out = await s.callRaw('txtest_stores_then_throw');
  expect(out.isError).toBe(true);
  expect(out.structured.error).toMatchObject({ plugin: 'tx-plugin', message: 'failed after the stores wrote' });
  expect(stores.facts.get(scope, 'tx_fact')).toBeNull();
  expect(stores.l1.recent(scope, 5)).toEqual([]);
  expect(stores.wiki.getByTitle(scope, 'Failed call page')).toBeNull();
  expect(pagePath).not.toBe('');
  expect(fs.existsSync(path.join(s.dataDir, pagePath))).toBe(false);
  // Still usable: the next call's writes land, with their page file.
  await s.call('think', { text: 'A thought after the failed call.', wiki_title: 'After', layer: 'user', user_id: 'tx' });
  expect(stores.wiki.getByTitle(scope, 'After')).not.toBeNull();
  expect(fs.existsSync(path.join(s.dataDir, stores.wiki.getByTitle(scope, 'After')!.path))).toBe(true);
});

it('an inner stores transaction that fails and is caught undoes its own writes only, and the call keeps the rest', async () => {
  s = await start({ plugins: [txPlugin], expose: 'primitives,txtest' });
  expect((await s.callRaw('txtest_catches_inner_failure')).isError).toBe(false);
  const stores = storesOf(s);
  expect(stores.facts.get(scope, 'inner_fact')).toBeNull();
  expect(stores.facts.get(scope, 'outer_fact')?.value).toBe('written after the caught failure');
});

it("a hook tap that throws inside a tool call has its own writes undone and keeps the tool's", async () => {
  s = await start({ plugins: [txPlugin, tapPlugin], expose: 'primitives,txtest' });
  expect((await s.callRaw('txtest_fires_hook')).isError).toBe(false);
  expect(notes(s)).toEqual(['before the hook']);
});
