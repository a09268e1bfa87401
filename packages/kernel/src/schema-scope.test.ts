import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { scratch } from './scratch.fixture.js';
import type { Migration } from './storage.js';
import { tierScope } from './schema-scope.js';

const scratchpad = scratch('ms-schema-scope-');
afterEach(scratchpad.cleanup);

/** A kernel whose database has a core table `facts` with one row (the stores' own, migrated without a scope). */
function kernelWithCore() {
  const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), clock: new ManualClock() }));
  k.storage.migrate('core-owner', [
    {
      id: 1,
      name: 'core',
      up: (db) => db.exec("CREATE TABLE facts (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO facts (value) VALUES ('kept'); CREATE TABLE projects (id INTEGER PRIMARY KEY)"),
    },
  ]);
  return k;
}
const notes = (migrations: Migration[], over: Partial<PluginDefinition> = {}) =>
  definePlugin({ name: 'notes-plugin', version: '1.0.0', tier: 'notes', kernel: '^1.0.0', migrations, setup() {}, ...over });
const sql = (text: string): Migration[] => [{ id: 1, name: 'own tables', up: (db) => db.exec('CREATE TABLE notes_items (id INTEGER PRIMARY KEY, text TEXT)') }, { id: 2, name: 'second', up: (db) => db.exec(text) }];

describe('tierScope', () => {
  it('owns the tier and <tier>_* names (case-insensitive, a hyphen read as _), never kernel_ or sqlite_ names', () => {
    const s = tierScope('my-notes');
    expect(['my_notes_items', 'MY_NOTES_x', 'my-notes_fts', 'my_notes'].every((n) => s.owns(n))).toBe(true);
    expect(['facts', 'notes_items', 'my_notesx', 'kernel_migrations', 'sqlite_sequence'].some((n) => s.owns(n))).toBe(false);
    expect(tierScope('kernel').owns('kernel_migrations')).toBe(false);
  });
});

describe("a plugin migration outside its plugin's names", () => {
  const cases: [string, RegExp][] = [
    ['DROP TABLE facts', /dropped table facts, which it does not own/],
    ['ALTER TABLE facts ADD COLUMN extra TEXT', /changed table facts/],
    ['CREATE INDEX notes_by_value ON facts (value)', /created index notes_by_value on table facts/],
    ['CREATE TRIGGER notes_t AFTER INSERT ON facts BEGIN SELECT 1; END', /created trigger notes_t on table facts/],
    ['CREATE TABLE other_things (id INTEGER)', /created table other_things/],
    ['CREATE VIEW v_all AS SELECT * FROM facts', /created view v_all/],
    ['CREATE TABLE IF NOT EXISTS projects (id INTEGER PRIMARY KEY)', /creates table projects/],
    ['DELETE FROM facts', /wrote rows of table facts/],
    ["UPDATE facts SET value = 'gone'", /wrote rows of table facts/],
    ["CREATE TRIGGER notes_items_ai AFTER INSERT ON notes_items BEGIN INSERT INTO facts (value) VALUES (new.text); END; INSERT INTO notes_items (text) VALUES ('x')", /wrote rows of table facts/],
  ];
  for (const [text, message] of cases) {
    it(`${text}: refused before anything is committed, naming the plugin, the migration and the object`, async () => {
      const k = kernelWithCore();
      const err = await k.register(notes(sql(text))).catch((e) => e);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_SETUP', plugin: 'notes-plugin', cause: { code: 'KERNEL_ERR_MIGRATION_SCOPE', plugin: 'notes-plugin' } });
      expect(err.message).toMatch(/notes-plugin migration 2 \(second\)/);
      expect(err.message).toMatch(message);
      const db = k.storage.db;
      expect(db.prepare('SELECT value FROM facts').all()).toEqual([{ value: 'kept' }]);
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'facts'").get()).toEqual({ sql: 'CREATE TABLE facts (id INTEGER PRIMARY KEY, value TEXT)' });
      expect(db.prepare("SELECT id FROM kernel_migrations WHERE owner = 'notes-plugin'").all()).toEqual([{ id: 1 }]);
      // No row guard stays behind: the core table takes writes again.
      expect(() => db.prepare("INSERT INTO facts (value) VALUES ('later')").run()).not.toThrow();
    });
  }

  it("its own tables, indexes, triggers, views and FTS tables, reading core tables, and a later migration changing its own: accepted", async () => {
    const k = kernelWithCore();
    const own: Migration[] = [
      {
        id: 1,
        name: 'create',
        up: (db) =>
          db.exec(`CREATE TABLE notes_items (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT UNIQUE, fact_id INTEGER REFERENCES facts(id));
            CREATE INDEX notes_items_text ON notes_items (text);
            CREATE VIRTUAL TABLE notes_fts USING fts5(text);
            CREATE TRIGGER notes_items_ai AFTER INSERT ON notes_items BEGIN INSERT INTO notes_fts (rowid, text) VALUES (new.id, new.text); END;
            CREATE VIEW notes_view AS SELECT n.text, f.value FROM notes_items n LEFT JOIN facts f ON f.id = n.fact_id;
            INSERT INTO notes_items (text, fact_id) SELECT value, id FROM facts;
            CREATE TABLE IF NOT EXISTS notes_items (id INTEGER)`),
      },
      { id: 2, name: 'alter', up: (db) => db.exec('ALTER TABLE notes_items ADD COLUMN extra TEXT; DROP INDEX notes_items_text; DELETE FROM notes_items') },
    ];
    await k.register(notes(own));
    expect(k.storage.db.prepare("SELECT id FROM kernel_migrations WHERE owner = 'notes-plugin'").all()).toEqual([{ id: 1 }, { id: 2 }]);
    expect(() => k.storage.db.prepare("DELETE FROM facts").run()).not.toThrow();
  });
});
