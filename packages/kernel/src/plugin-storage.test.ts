import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginContext } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import type { Migration, Storage } from './storage.js';

const scratchpad = scratch('ms-plugin-storage-');
afterEach(scratchpad.cleanup);

/** A kernel whose core owner made `facts` (one row), migrated without a scope as the stores are. */
function kernelWithCore() {
  const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));
  k.storage.migrate('core-owner', [{ id: 1, name: 'core', up: (db) => db.exec("CREATE TABLE facts (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO facts (value) VALUES ('kept')") }]);
  return k;
}
const plugin = (setup: (ctx: PluginContext) => void) => definePlugin({ name: 'notes-plugin', version: '1.0.0', tier: 'notes', kernel: '^1.0.0', setup });
const drop: Migration[] = [{ id: 1, name: 'drop', up: (db) => db.exec('DROP TABLE facts') }];

describe('migrations a plugin runs itself through ctx.storage.migrate', () => {
  it('outside its names: refused as declared ones are, naming the plugin; nothing is dropped', async () => {
    const k = kernelWithCore();
    const err = await k.register(plugin((ctx) => void ctx.storage.migrate(ctx.name, drop))).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'notes-plugin', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes-plugin' } });
    expect(err.message).toMatch(/notes-plugin migration 1 \(drop\) dropped table facts, which it does not own/);
    expect(k.storage.db.prepare('SELECT value FROM facts').all()).toEqual([{ value: 'kept' }]);
  });

  it('a scope it passes cannot widen its own', async () => {
    const k = kernelWithCore();
    const everything = { owns: () => true, rule: 'of any name' };
    const err = await k.register(plugin((ctx) => void ctx.storage.migrate(ctx.name, drop, everything))).catch((e) => e);
    expect(err).toMatchObject({ cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes-plugin' } });
    expect(k.storage.db.prepare('SELECT value FROM facts').all()).toEqual([{ value: 'kept' }]);
  });

  it("under another owner's name: refused with KERNEL_ERR_MIGRATION_SCOPE naming the plugin and the name, before anything runs", async () => {
    const k = kernelWithCore();
    let ran = false;
    const err = await k
      .register(plugin((ctx) => void ctx.storage.migrate('core-owner', [{ id: 2, name: 'sneaky', up: () => void (ran = true) }])))
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'notes-plugin', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes-plugin', field: 'owner' } });
    expect(err.message).toMatch(/ran migrations under the owner name "core-owner"/);
    expect(ran).toBe(false);
  });

  it('after setup too (from a tool or a tap): outside its names, refused', async () => {
    const k = kernelWithCore();
    let storage!: Storage;
    await k.register(plugin((ctx) => void (storage = ctx.storage)));
    expect(() => storage.migrate('notes-plugin', drop)).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes-plugin' }));
    expect(k.storage.db.prepare('SELECT value FROM facts').all()).toEqual([{ value: 'kept' }]);
  });

  it('of its own names: applied and recorded under its name', async () => {
    const k = kernelWithCore();
    let storage!: Storage;
    await k.register(
      plugin((ctx) => {
        storage = ctx.storage;
        ctx.storage.migrate(ctx.name, [{ id: 1, name: 'own', up: (db) => db.exec('CREATE TABLE notes_items (id INTEGER PRIMARY KEY)') }]);
      }),
    );
    expect(k.storage.db.prepare("SELECT id FROM kernel_migrations WHERE owner = 'notes-plugin'").all()).toEqual([{ id: 1 }]);
    // Everything else is the kernel's storage itself.
    expect(storage.transaction(() => storage.db.prepare('SELECT count(*) AS n FROM notes_items').get())).toEqual({ n: 0 });
    expect(storage.file).toBe(k.storage.file);
  });

  it("the container's storage stays the kernel's own, which the stores migrate through", async () => {
    const k = kernelWithCore();
    await k.register(plugin((ctx) => expect(ctx.container.resolve('storage')).toBe(k.storage)));
  });
});
