/**
 * What a plugin's migration may touch: the schema objects (tables, indexes, triggers, views) named
 * with its tier, as the README asks ("own your tables, prefixed with your tier"). A migration that
 * dropped or reused a core table (`DROP TABLE facts`, `CREATE TABLE IF NOT EXISTS projects`) used to
 * let the server start, and the loss showed up later as errors blamed on another plugin.
 *
 * Storage.migrate checks a migration given a scope inside its transaction, before anything is
 * committed:
 * - the schema: main's sqlite_master (type, name, table, SQL) before and after `up`; any object
 *   created, changed or dropped must be owned, and so must the table of an index or trigger;
 * - rows: for its run, every table it does not own gets TEMP triggers that refuse an INSERT,
 *   UPDATE or DELETE (`DELETE FROM facts`), its own triggers' writes included. They live in the temp
 *   schema (never in memory.db), are created inside the migration's transaction and dropped before
 *   its commit: about 10-15 ms per pending migration against the stores' 50 tables (only a
 *   plugin's pending migrations pay it, once in a database's life).
 * Names SQLite makes itself (sqlite_autoindex_<table>_N, sqlite_sequence, sqlite_stat1) are not the
 * plugin's to name: an autoindex counts by its table, the others are left alone.
 */
import type { Db, SchemaScope } from './storage.js';

/** The scope of a plugin's migrations: names equal to its tier or starting with `<tier>_` (a hyphen in the tier read as `_` too), case-insensitive. */
export function tierScope(tier: string): SchemaScope {
  const prefixes = [...new Set([tier.toLowerCase(), tier.toLowerCase().replace(/-/g, '_')])];
  return {
    owns: (name) => {
      const n = name.toLowerCase();
      // The kernel's own bookkeeping is no plugin's, whatever its tier.
      if (n.startsWith('kernel_') || n.startsWith('sqlite_')) return false;
      return prefixes.some((p) => n === p || n.startsWith(`${p}_`));
    },
    rule: `named ${prefixes.map((p) => `${p} or ${p}_*`).join(', or ')} (the plugin's tier)`,
  };
}

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** Names of the row guards (TEMP triggers); the message their RAISE gives starts with GUARD_MARK. */
const GUARD_PREFIX = 'kernel_migration_guard_';
const GUARD_MARK = 'kernel_migration_scope: wrote rows of ';

function schemaObjects(db: Db): Map<string, SchemaObject> {
  const rows = db.prepare('SELECT type, name, tbl_name, sql FROM main.sqlite_master').all() as SchemaObject[];
  return new Map(rows.map((r) => [r.name.toLowerCase(), r]));
}

const quoteId = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteText = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Whether the scope owns an object: its name, and the table of an index or trigger. */
function ownsObject(scope: SchemaScope, o: SchemaObject): boolean {
  const name = o.name.toLowerCase();
  if (name.startsWith('sqlite_autoindex_')) return scope.owns(o.tbl_name);
  // SQLite's own tables (sqlite_sequence, sqlite_stat1...): made by SQLite, refused to any CREATE or DROP.
  if (name.startsWith('sqlite_')) return true;
  return scope.owns(o.name) && scope.owns(o.tbl_name);
}

function describeChange(before: SchemaObject | undefined, after: SchemaObject | undefined): string {
  const o = (after ?? before)!;
  const on = o.type === 'index' || o.type === 'trigger' ? ` on table ${o.tbl_name}` : '';
  if (!before) return `created ${o.type} ${o.name}${on}`;
  if (!after) return `dropped ${o.type} ${o.name}${on}`;
  return `changed ${o.type} ${o.name}${on}`;
}

/**
 * Start watching one migration of a scope (inside its transaction, before `up`): the schema as it
 * is, and a row guard on every table the scope does not own. `done()` (after `up`, still inside the
 * transaction) drops the guards and answers the first change outside the scope, or undefined;
 * `refusedWrite(err)` answers the table a guard refused a write to, when that is what `up` threw.
 */
export function watchSchema(db: Db, scope: SchemaScope): { db: Db; done(): string | undefined; refused(err: unknown): string | undefined } {
  const before = schemaObjects(db);
  let n = 0;
  const guards: string[] = [];
  for (const o of before.values()) {
    if (o.type !== 'table' || o.name.toLowerCase().startsWith('sqlite_') || scope.owns(o.name)) continue;
    // No trigger can be made on a virtual table; its shadow tables, which hold its rows, are guarded.
    if (/^\s*create\s+virtual\s/i.test(o.sql ?? '')) continue;
    const raise = `SELECT RAISE(ABORT, ${quoteText(`${GUARD_MARK}${o.name}`)});`;
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      guards.push(`CREATE TEMP TRIGGER ${quoteId(`${GUARD_PREFIX}${n++}`)} BEFORE ${op} ON main.${quoteId(o.name)} BEGIN ${raise} END;`);
    }
  }
  if (guards.length) db.exec(guards.join('\n'));
  return {
    done() {
      unwatchSchema(db);
      const after = schemaObjects(db);
      for (const key of new Set([...before.keys(), ...after.keys()])) {
        const b = before.get(key);
        const a = after.get(key);
        if (b && a && b.type === a.type && b.tbl_name === a.tbl_name && b.sql === a.sql) continue;
        if ((!b || ownsObject(scope, b)) && (!a || ownsObject(scope, a))) continue;
        return describeChange(b, a);
      }
      return undefined;
    },
    db: checkedDb(db, scope),
    refused(err) {
      if (err instanceof ScopeRefusal) return err.what;
      const message = (err as Error | undefined)?.message;
      return typeof message === 'string' && message.startsWith(GUARD_MARK) ? `wrote rows of table ${message.slice(GUARD_MARK.length)}` : undefined;
    },
  };
}

class ScopeRefusal extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

/**
 * `CREATE ... IF NOT EXISTS <name>` of a main-schema object: a no-op when an object of that name
 * exists, so the schema comparison cannot see a plugin taking a core table (`CREATE TABLE IF NOT
 * EXISTS projects`) for its own. The SQL the migration runs is read for it.
 */
const CREATE_IF_NOT_EXISTS =
  /\bcreate\s+(temp\s+|temporary\s+)?(?:unique\s+)?(?:virtual\s+)?(table|index|view|trigger)\s+if\s+not\s+exists\s+(?:(?:main|"main")\s*\.\s*)?("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][\w$]*)/gi;

/** The first `CREATE ... IF NOT EXISTS` in `sql` naming an object outside the scope, as a refusal, or undefined. */
export function createsOutside(sql: string, scope: SchemaScope): string | undefined {
  for (const m of sql.matchAll(CREATE_IF_NOT_EXISTS)) {
    if (m[1]) continue;
    const raw = m[3]!;
    const name = /^["`[]/.test(raw) ? raw.slice(1, -1).replace(/""/g, '"') : raw;
    if (!scope.owns(name)) return `creates ${m[2]!.toLowerCase()} ${name} (CREATE ... IF NOT EXISTS, which does nothing when a table of another owner has that name)`;
  }
  return undefined;
}

/** The database as `up` gets it: SQL given to exec or prepare is read for createsOutside first. */
function checkedDb(db: Db, scope: SchemaScope): Db {
  const check = (sql: unknown) => {
    const what = typeof sql === 'string' ? createsOutside(sql, scope) : undefined;
    if (what) throw new ScopeRefusal(what);
  };
  return new Proxy(db, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      if (key === 'exec' || key === 'prepare') {
        return (sql: string, ...rest: unknown[]) => {
          check(sql);
          return (v as (...a: unknown[]) => unknown).call(target, sql, ...rest);
        };
      }
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** Drop the row guards still in place (done() does; a migration that committed them itself leaves them). */
export function unwatchSchema(db: Db): void {
  const guards = db.prepare(`SELECT name FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE '${GUARD_PREFIX}%'`).all() as { name: string }[];
  if (guards.length) db.exec(guards.map((g) => `DROP TRIGGER IF EXISTS temp.${quoteId(g.name)};`).join('\n'));
}
