/**
 * Which owner's migrations made each schema object: `kernel_schema_owners` (name, owner), written by
 * Storage.migrate in every migration's transaction (objects it created are recorded under its
 * owner, objects it dropped are struck out, an object it changed that no one had recorded becomes
 * its). A plugin's migrations may touch an object of its tier's names only when no other owner made
 * it (schema-scope.ts, tierScope): the stores' `graph_nodes` or `wiki_pages` are never the `graph` or
 * `wiki` tier's, and a tier `notes` plugin cannot take a `notes_extra` plugin's tables.
 *
 * A database migrated before owners were recorded has objects no row names. Which owners had run
 * migrations then is kept in `kernel_schema_legacy` (filled once, when the two tables are made):
 * such a plugin may still touch an unrecorded object of its tier's names (it may have made it), any
 * other plugin may not (an unrecorded object that exists is then someone else's, or made outside a
 * migration). Names SQLite makes (`sqlite_*`) and the kernel's own (`kernel_*`) are not recorded.
 */
import type { Db, SchemaScope } from './storage.js';

export const OWNERS_TABLE = 'kernel_schema_owners';
export const LEGACY_TABLE = 'kernel_schema_legacy';

/**
 * Make the two tables when missing (at open, in one immediate transaction): a database that already
 * had migrations applied records their owners as legacy. Costs one read of sqlite_master once made.
 */
export function ensureOwnerTables(db: Db): void {
  const present = () => !!db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(OWNERS_TABLE);
  if (present()) return;
  db.transaction(() => {
    if (present()) return;
    db.exec(`CREATE TABLE ${OWNERS_TABLE} (name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, owner TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS ${LEGACY_TABLE} (owner TEXT NOT NULL PRIMARY KEY);
      INSERT OR IGNORE INTO ${LEGACY_TABLE} (owner) SELECT DISTINCT owner FROM kernel_migrations;`);
  }).immediate();
}

/** The main schema's objects, by lower-cased name: type and SQL (the SQL tells a changed object). */
export function schemaSnapshot(db: Db): Map<string, { name: string; sql: string | null }> {
  const rows = db.prepare('SELECT name, sql FROM main.sqlite_master').all() as { name: string; sql: string | null }[];
  return new Map(rows.map((r) => [r.name.toLowerCase(), r]));
}

const recordable = (key: string) => !key.startsWith('sqlite_') && !key.startsWith('kernel_');

/** After a migration of `owner` (inside its transaction): record what it created or took over, strike what it dropped. */
export function recordOwners(db: Db, owner: string, before: ReturnType<typeof schemaSnapshot>, after: ReturnType<typeof schemaSnapshot>): void {
  const set = db.prepare(`INSERT INTO ${OWNERS_TABLE} (name, owner) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner`);
  const claim = db.prepare(`INSERT OR IGNORE INTO ${OWNERS_TABLE} (name, owner) VALUES (?, ?)`);
  const strike = db.prepare(`DELETE FROM ${OWNERS_TABLE} WHERE name = ?`);
  for (const [key, o] of after) {
    if (!recordable(key)) continue;
    const was = before.get(key);
    if (!was) set.run(o.name, owner);
    else if (was.sql !== o.sql) claim.run(o.name, owner);
  }
  for (const [key, o] of before) if (recordable(key) && !after.has(key)) strike.run(o.name);
}

/**
 * A plugin's scope for one migration: its tier's names (`base`), less every object another owner
 * made, and less every existing object no one recorded unless the plugin is a legacy owner.
 * `existing` is the schema before the migration runs.
 */
export function ownedScope(db: Db, owner: string, base: SchemaScope, existing: ReturnType<typeof schemaSnapshot>): SchemaScope {
  const owners = new Map(
    (db.prepare(`SELECT name, owner FROM ${OWNERS_TABLE}`).all() as { name: string; owner: string }[]).map((r) => [r.name.toLowerCase(), r.owner]),
  );
  const legacy = !!db.prepare(`SELECT 1 FROM ${LEGACY_TABLE} WHERE owner = ?`).get(owner);
  return {
    owns: (name) => {
      if (!base.owns(name)) return false;
      const key = name.toLowerCase();
      const recorded = owners.get(key);
      if (recorded !== undefined) return recorded === owner;
      return legacy || !existing.has(key);
    },
    rule: `${base.rule}, and made by its own migrations (never an object the stores or another plugin made)`,
  };
}

/** Who made an object, as recorded (undefined: no migration recorded it). */
export function ownerOf(db: Db, name: string): string | undefined {
  return (db.prepare(`SELECT owner FROM ${OWNERS_TABLE} WHERE name = ?`).get(name) as { owner: string } | undefined)?.owner;
}
