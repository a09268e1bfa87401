import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import { ownerOf } from './schema-owners.js';
import { Storage, type Migration } from './storage.js';

const scratchpad = scratch('ms-schema-owners-');
afterEach(scratchpad.cleanup);

const CORE = '@memory-service/stores';
const coreMigrations: Migration[] = [
  {
    id: 1,
    name: 'core',
    up: (db) => db.exec("CREATE TABLE graph_nodes (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO graph_nodes (label) VALUES ('kept'); CREATE INDEX graph_nodes_label ON graph_nodes (label)"),
  },
];

/** A kernel whose core owner (migrated without a scope, as the stores are) made graph_nodes. */
function kernelWithCore(dataDir = scratchpad.dir()) {
  const k = scratchpad.kernel(new Kernel({ dataDir, logger: silentLogger() }));
  k.storage.migrate(CORE, coreMigrations);
  return k;
}
const graphPlugin = (migrations: Migration[], name = 'graph-extras') =>
  definePlugin({ name, version: '1.0.0', tier: 'graph', kernel: '^1.0.0', migrations, setup() {} });
const one = (sql: string): Migration[] => [{ id: 1, name: 'mine', up: (db) => db.exec(sql) }];

describe("a plugin whose tier is a core table's prefix", () => {
  const cases: [string, RegExp][] = [
    ['DROP TABLE graph_nodes', /dropped table graph_nodes, which it does not own/],
    ['ALTER TABLE graph_nodes ADD COLUMN extra TEXT', /changed table graph_nodes/],
    ['DELETE FROM graph_nodes', /wrote rows of table graph_nodes/],
    ['DROP INDEX graph_nodes_label', /dropped index graph_nodes_label/],
    ['CREATE INDEX graph_extra_idx ON graph_nodes (label)', /created index graph_extra_idx on table graph_nodes/],
    ['CREATE TABLE IF NOT EXISTS graph_nodes (id INTEGER PRIMARY KEY)', /creates table graph_nodes/],
  ];
  for (const [sql, message] of cases) {
    it(`${sql}: refused, as the stores made it; the core table is intact`, async () => {
      const k = kernelWithCore();
      const err = await k.register(graphPlugin(one(sql))).catch((e) => e);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'graph-extras', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'graph-extras' } });
      expect(err.message).toMatch(message);
      expect(err.message).toContain('never an object the stores or another plugin made');
      expect(k.storage.db.prepare('SELECT label FROM graph_nodes').all()).toEqual([{ label: 'kept' }]);
      expect(k.storage.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'graph_%' ORDER BY name").all()).toEqual([{ name: 'graph_nodes' }, { name: 'graph_nodes_label' }]);
    });
  }

  it('its own graph_* tables are its: made, recorded under its name, and changed by a later migration in a later start', async () => {
    const dir = scratchpad.dir();
    const first: Migration[] = [
      { id: 1, name: 'own', up: (db) => db.exec('CREATE TABLE graph_extras (id INTEGER PRIMARY KEY, node_id INTEGER REFERENCES graph_nodes(id)); CREATE INDEX graph_extras_node ON graph_extras (node_id)') },
    ];
    const k = kernelWithCore(dir);
    await k.register(graphPlugin(first));
    expect(ownerOf(k.storage.db, 'graph_extras')).toBe('graph-extras');
    expect(ownerOf(k.storage.db, 'graph_extras_node')).toBe('graph-extras');
    expect(ownerOf(k.storage.db, 'graph_nodes')).toBe(CORE);
    await k.close();

    const again = kernelWithCore(dir);
    await again.register(graphPlugin([...first, { id: 2, name: 'alter', up: (db) => db.exec('ALTER TABLE graph_extras ADD COLUMN note TEXT; DROP INDEX graph_extras_node; INSERT INTO graph_extras (node_id) SELECT id FROM graph_nodes') }]));
    expect(again.storage.db.prepare('SELECT count(*) AS n FROM graph_extras').get()).toEqual({ n: 1 });
    expect(ownerOf(again.storage.db, 'graph_extras_node')).toBeUndefined();
    expect(again.storage.db.prepare("SELECT id FROM kernel_migrations WHERE owner = 'graph-extras'").all()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("another plugin's tables are not its either (tier notes against tier notes_extra's notes_extra_items)", async () => {
    const k = kernelWithCore();
    await k.register(definePlugin({ name: 'extra', version: '1.0.0', tier: 'notes_extra', kernel: '^1.0.0', migrations: one('CREATE TABLE notes_extra_items (id INTEGER PRIMARY KEY)'), setup() {} }));
    const err = await k.register(definePlugin({ name: 'notes', version: '1.0.0', tier: 'notes', kernel: '^1.0.0', migrations: one('DROP TABLE notes_extra_items'), setup() {} })).catch((e) => e);
    expect(err).toMatchObject({ cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes' } });
    expect(err.message).toMatch(/dropped table notes_extra_items/);
  });
});

describe('a database migrated before owners were recorded', () => {
  /** An older database: a core table and a plugin table made with no owner recorded, both owners' migrations applied. */
  function olderDatabase(): string {
    const dir = scratchpad.dir();
    const st = new Storage(dir, { logger: silentLogger() });
    st.db.exec(`DROP TABLE kernel_schema_owners; DROP TABLE kernel_schema_legacy;
      CREATE TABLE graph_nodes (id INTEGER PRIMARY KEY); CREATE TABLE graph_old (id INTEGER PRIMARY KEY);
      INSERT INTO kernel_migrations (owner, id, name, applied_at) VALUES ('${CORE}', 1, 'core', 'then'), ('old-graph', 1, 'own', 'then')`);
    st.close();
    return dir;
  }

  it('a plugin that had migrations applied then may still change the unrecorded objects of its names', async () => {
    const k = scratchpad.kernel(new Kernel({ dataDir: olderDatabase(), logger: silentLogger() }));
    await k.register(
      graphPlugin([{ id: 1, name: 'own', up: () => {} }, { id: 2, name: 'alter', up: (db) => db.exec('ALTER TABLE graph_old ADD COLUMN note TEXT') }], 'old-graph'),
    );
    expect(k.storage.db.prepare("SELECT id FROM kernel_migrations WHERE owner = 'old-graph'").all()).toEqual([{ id: 1 }, { id: 2 }]);
    expect(ownerOf(k.storage.db, 'graph_old')).toBe('old-graph');
  });

  it('a plugin new to the database may not touch an object of its names that exists and no one recorded', async () => {
    const k = scratchpad.kernel(new Kernel({ dataDir: olderDatabase(), logger: silentLogger() }));
    const err = await k.register(graphPlugin(one('DROP TABLE graph_nodes'), 'new-graph')).catch((e) => e);
    expect(err).toMatchObject({ cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'new-graph' } });
    expect(k.storage.db.prepare("SELECT name FROM sqlite_master WHERE name = 'graph_nodes'").all()).toHaveLength(1);
  });
});

it('a database put in place without the owner tables (a backup made before them, restored) gets them at the next migrate, its owners as legacy', () => {
  const st = new Storage(scratchpad.dir(), { logger: silentLogger() });
  try {
    st.migrate(CORE, coreMigrations);
    st.db.exec('DROP TABLE kernel_schema_owners; DROP TABLE kernel_schema_legacy');
    expect(st.migrate('core-two', [{ id: 1, name: 'more', up: (db) => db.exec('CREATE TABLE graph_edges (id INTEGER PRIMARY KEY)') }])).toEqual([1]);
    expect(ownerOf(st.db, 'graph_edges')).toBe('core-two');
    expect(st.db.prepare('SELECT owner FROM kernel_schema_legacy').all()).toEqual([{ owner: CORE }]);
  } finally {
    st.close();
  }
});
