import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { definePlugin, type Migration } from '@memory-service/kernel';
import { createTestServer, ManualClock, tempDataDir, type TestServer } from '@memory-service/testing';
import { primitives } from './helpers.js';

const dirs: string[] = [];
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const serve = (dataDir: string, extra: ReturnType<typeof definePlugin>[] = []) =>
  createTestServer({ plugins: [primitives, ...extra], expose: 'primitives', dataDir, clock: new ManualClock() });

const migrating = (migrations: Migration[]) =>
  definePlugin({ name: 'careless-plugin', version: '1.0.0', tier: 'careless', kernel: '^1.0.0', migrations, setup() {} });

const INSTRUCTION = 'Always answer in French';

for (const [label, sql, object] of [
  ['drops a core table', 'DROP TABLE facts', 'dropped table facts'],
  ['empties a core table', 'DELETE FROM facts', 'wrote rows of table facts'],
  ['reuses a core table by name', 'CREATE TABLE IF NOT EXISTS projects (id INTEGER PRIMARY KEY)', 'creates table projects'],
] as const) {
  it(`a plugin migration that ${label} stops the start naming the plugin, the migration and the object; the memory is intact`, async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    s = await serve(dataDir);
    expect((await s.call('evolve', { instruction: INSTRUCTION })).status).toBe('evolved');
    await s.close();
    s = undefined;

    // A server that started anyway is closed and reported as such.
    const err = await serve(dataDir, [migrating([{ id: 1, name: 'setup tables', up: (db) => db.exec(sql) }])]).then(
      async (started) => {
        await started.close();
        return 'the server started';
      },
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'careless-plugin', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE' } });
    expect((err as Error).message).toContain(`careless-plugin migration 1 (setup tables) ${object}`);
    expect((err as Error).message).toContain('which it does not own');

    s = await serve(dataDir);
    const wake = await s.call('wake_up', { layer: 'agent' });
    expect(JSON.stringify(wake)).toContain(INSTRUCTION);
  });
}

it("a plugin migration keeping to its tier's names (tables, index, FTS, triggers) starts, and its data is there", async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  s = await serve(dataDir, [
    migrating([
      {
        id: 1,
        name: 'own tables',
        up: (db) =>
          db.exec(`CREATE TABLE careless_items (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            CREATE INDEX careless_items_text ON careless_items (text);
            CREATE VIRTUAL TABLE careless_fts USING fts5(text);
            CREATE TRIGGER careless_items_ai AFTER INSERT ON careless_items BEGIN INSERT INTO careless_fts (rowid, text) VALUES (new.id, new.text); END;
            INSERT INTO careless_items (text) VALUES ('first')`),
      },
    ]),
  ]);
  expect(s.kernel.storage.db.prepare("SELECT text FROM careless_fts WHERE careless_fts MATCH 'first'").all()).toEqual([{ text: 'first' }]);
  expect((await s.call('evolve', { instruction: INSTRUCTION })).status).toBe('evolved');
});

const graphTier = (migrations: Migration[]) =>
  definePlugin({ name: 'graph-extras-plugin', version: '1.0.0', tier: 'graph', kernel: '^1.0.0', migrations, setup() {} });

it("a plugin whose tier is a core table's prefix (graph) cannot drop the stores' graph_nodes: the start stops and the graph is intact", async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  s = await serve(dataDir);
  const graph = s.kernel.container.resolve<{ graph: { addNode(scope: object, node: object): unknown } }>('stores').graph;
  graph.addNode({ layer: 'user', user_id: 'default' }, { content: 'Atlas', node_type: 'project' });
  const nodes = s.kernel.storage.db.prepare('SELECT count(*) AS n FROM graph_nodes').get() as { n: number };
  expect(nodes.n).toBeGreaterThan(0);
  await s.close();
  s = undefined;

  const err = await serve(dataDir, [graphTier([{ id: 1, name: 'take over', up: (db) => db.exec('DROP TABLE graph_nodes') }])]).then(
    async (started) => {
      await started.close();
      return 'the server started';
    },
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'graph-extras-plugin', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE' } });
  expect((err as Error).message).toContain('graph-extras-plugin migration 1 (take over) dropped table graph_nodes, which it does not own');

  // Its own graph_* table is its, and the core one is as it was.
  s = await serve(dataDir, [graphTier([{ id: 1, name: 'own table', up: (db) => db.exec('CREATE TABLE graph_extras (node_id INTEGER); INSERT INTO graph_extras SELECT id FROM graph_nodes') }])]);
  expect(s.kernel.storage.db.prepare('SELECT count(*) AS n FROM graph_extras').get()).toEqual(nodes);
  expect(s.kernel.storage.db.prepare('SELECT count(*) AS n FROM graph_nodes').get()).toEqual(nodes);
});
