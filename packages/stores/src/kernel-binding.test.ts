import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definePlugin, Kernel, ManualClock } from '@memory-service/kernel';
import { afterEach, expect, it } from 'vitest';
import { RETRIEVAL_WARM_DELAY_MS, useStores } from './kernel-binding.js';

const dirs: string[] = [];
const kernels: Kernel[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

it("the stores log through the kernel's logger, not with the name of the plugin that asked for them first", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-binding-'));
  dirs.push(dir);
  // Files of an earlier database beside a new one: useStores sets them aside and says so.
  fs.mkdirSync(path.join(dir, 'l1'));
  fs.writeFileSync(path.join(dir, 'l1', 'x.json'), '[]');
  const lines: string[] = [];
  const logger = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const k = new Kernel({ dataDir: dir, logger, clock: new ManualClock() });
  kernels.push(k);
  await k.register(
    definePlugin({
      name: '@acme/first-asker',
      version: '1.0.0',
      tier: 'asker',
      kernel: '^1.0.0',
      setup(ctx) {
        useStores(ctx);
        ctx.logger.info('own line');
      },
    }),
  );
  expect(lines.find((l) => l.includes('was made anew'))).toMatch(/^\S*memory\.db was made anew/);
  expect(lines).toContain('@acme/first-asker: own line');
});

it("the stores' tables are recorded as the stores' own; a first asker whose setup then fails leaves no stores behind, and the next asker makes them anew", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-binding-'));
  dirs.push(dir);
  const k = new Kernel({ dataDir: dir, logger: { info() {}, warn() {}, error() {} }, clock: new ManualClock() });
  kernels.push(k);
  const asker = (name: string, fail: boolean, got: unknown[] = []) =>
    definePlugin({
      name,
      version: '1.0.0',
      tier: name,
      kernel: '^1.0.0',
      setup(ctx) {
        got.push(useStores(ctx));
        if (fail) throw new Error('later step failed');
      },
    });
  const first: unknown[] = [];
  await expect(k.register(asker('failing', true, first))).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'failing' });
  // Its ready and close taps went with it: stores left in the container would never be flushed on close.
  expect(k.container.hasRegistration('stores')).toBe(false);
  const second: unknown[] = [];
  await k.register(asker('working', false, second));
  expect(second[0]).toBe(k.container.resolve('stores'));
  expect(second[0]).not.toBe(first[0]);
  expect((k.hooks.close as unknown as { taps: { name: string }[] }).taps.map((t) => t.name)).toContain('working');
  expect(k.storage.db.prepare("SELECT owner FROM kernel_schema_owners WHERE name = 'facts'").get()).toEqual({ owner: '@memory-service/stores' });
});

/** A kernel whose only plugin uses the stores, on `dir`, ready. */
async function storesKernel(dir: string) {
  const k = new Kernel({ dataDir: dir, logger: { info: () => undefined, warn: () => undefined, error: () => undefined }, clock: new ManualClock() });
  let stores!: ReturnType<typeof useStores>;
  await k.register(
    definePlugin({
      name: '@acme/l1-user',
      version: '1.0.0',
      tier: 'asker',
      kernel: '^1.0.0',
      setup(ctx) {
        stores = useStores(ctx);
      },
    }),
  );
  await k.ready();
  return { k, stores };
}

it('a start after a clean stop leaves the L1 files as they are; a start after a kill compares them with their rings', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-binding-'));
  dirs.push(dir);
  const U = { layer: 'user' as const, user_id: 'default' };
  const emptied = (file: string) => fs.writeFileSync(file, JSON.stringify({ layer: 'user', user_id: 'default', size: 20, items: [] }));
  const texts = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')).items.map((i: { text: string }) => i.text);
  const first = await storesKernel(dir);
  // A first start compares the files (no clean stop is recorded yet) before it may record one.
  await new Promise((r) => setTimeout(r, RETRIEVAL_WARM_DELAY_MS + 300));
  first.stores.l1.push(U, { text: 'kept' });
  const file = first.stores.l1.fileFor(U);
  await first.k.close();
  expect(texts(file)).toEqual(['kept']);
  // Changed while stopped: after a clean stop nothing compares the file with its ring.
  emptied(file);
  const second = await storesKernel(dir);
  kernels.push(second.k);
  await new Promise((r) => setTimeout(r, RETRIEVAL_WARM_DELAY_MS + 300));
  expect(texts(file)).toEqual([]);
  // The second is never closed, as if killed: the next start compares and rewrites the file.
  const third = await storesKernel(dir);
  kernels.push(third.k);
  await new Promise((r) => setTimeout(r, RETRIEVAL_WARM_DELAY_MS + 300));
  expect(texts(file)).toEqual(['kept']);
});
