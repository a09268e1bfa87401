import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from './kernel.js';
import type { Logger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import type { Migration } from './storage.js';

const scratchpad = scratch('ms-migrations-');
afterEach(scratchpad.cleanup);

function kernel(dataDir = scratchpad.dir()): { k: Kernel; errors: string[] } {
  const errors: string[] = [];
  const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void errors.push(m) };
  return { k: scratchpad.kernel(new Kernel({ dataDir, logger })), errors };
}
const plugin = (name: string, migrations: Migration[], tier = 'mig') =>
  definePlugin({ name, version: '1.0.0', tier, kernel: '^1.0.0', migrations, setup() {} });
const tables = (k: Kernel) =>
  (k.storage.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mig_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
const recorded = (k: Kernel, owner: string) => (k.storage.db.prepare('SELECT id FROM kernel_migrations WHERE owner = ?').all(owner) as { id: number }[]).map((r) => r.id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a migration that fails leaves no half-applied schema', () => {
  it('one failing after some of its statements is rolled back whole; the ones before it stay applied', async () => {
    const { k } = kernel();
    const err = await k
      .register(
        plugin('half-mig', [
          { id: 1, name: 'a', up: (db) => db.exec('CREATE TABLE mig_a (x)') },
          { id: 2, name: 'b', up: (db) => db.exec('CREATE TABLE mig_b (x); CREATE INDEX mig_b_x ON mig_b (x); CREATE TABLE mig_b (y)') },
        ]),
      )
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'half-mig', cause: { code: 'KERNEL_ERR_MIGRATION' } });
    expect(tables(k)).toEqual(['mig_a']);
    expect(recorded(k, 'half-mig')).toEqual([1]);
  });

  it('an async up is refused before it is recorded, and what it throws later is logged', async () => {
    const { k, errors } = kernel();
    const err = await k
      .register(
        plugin('async-mig', [
          {
            id: 1,
            name: 'async',
            up: (async (db: { exec(sql: string): unknown }) => {
              db.exec('CREATE TABLE mig_sync_part (x)');
              await null;
              throw new Error('after the await');
            }) as unknown as Migration['up'],
          },
        ]),
      )
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'async-mig', cause: { code: 'KERNEL_ERR_MIGRATION' } });
    expect(err.message).toContain('a migration must be synchronous');
    // Before, it was recorded as applied while its later part ran (and failed) outside any transaction.
    expect(recorded(k, 'async-mig')).toEqual([]);
    expect(tables(k)).toEqual([]);
    await sleep(0);
    expect(errors).toEqual(['async-mig migration 1 (async) failed after answering: after the await']);
  });

  it('one that commits the transaction itself is refused and not recorded, so the next start says why', async () => {
    const { k } = kernel();
    const mig = plugin('commit-mig', [{ id: 1, name: 'commits', up: (db) => db.exec('CREATE TABLE mig_c (x); COMMIT; CREATE TABLE mig_d (x)') }]);
    const err = await k.register(mig).catch((e) => e);
    expect(err.cause).toMatchObject({ code: 'KERNEL_ERR_MIGRATION', plugin: 'commit-mig' });
    expect(err.message).toContain('it ended the transaction the kernel runs it in');
    expect(recorded(k, 'commit-mig')).toEqual([]);
  });
});

describe('one migration owner, one list of migrations', () => {
  it("a plugin named like the stores' migration owner cannot take over its applied ids", async () => {
    const { k } = kernel();
    const stores: Migration[] = [
      { id: 1, name: 'stores core', up: (db) => db.exec('CREATE TABLE mig_core (x)') },
      { id: 2, name: 'stores more', up: (db) => db.exec('ALTER TABLE mig_core ADD COLUMN y') },
    ];
    k.storage.migrate('@memory-service/stores', stores);
    const err = await k.register(plugin('@memory-service/stores', [{ id: 1, name: 'mine', up: (db) => db.exec('CREATE TABLE mig_mine (x)') }], 'mine')).catch((e) => e);
    // Before, its migration 1 counted as applied (the stores' id 1): its table was never made.
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: '@memory-service/stores', cause: { code: 'KERNEL_ERR_MIGRATION' } });
    expect(err.message).toContain('another list of migrations is already applied under the owner name @memory-service/stores');
    expect(k.storage.status()).toEqual([{ owner: '@memory-service/stores', applied: 2, head: 2, pending: [] }]);
    expect(k.pluginNames).toEqual([]);
  });

  it('the same list again (remigrate, a plugin registered again after a failed setup) is accepted', async () => {
    const { k } = kernel();
    const list: Migration[] = [{ id: 1, name: 'a', up: (db) => db.exec('CREATE TABLE mig_same (x)') }];
    expect(k.storage.migrate('owner-x', list)).toEqual([1]);
    expect(k.storage.migrate('owner-x', [...list])).toEqual([]);
    expect(k.storage.remigrate()).toEqual({ 'owner-x': [] });
  });
});
