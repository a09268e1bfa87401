import { MemoryError } from './errors.js';
import { isPromiseLike } from './promise-like.js';
import type { Logger } from './logger.js';
import { unwatchSchema, watchSchema } from './schema-scope.js';
import { ensureOwnerTables, ownedScope, recordOwners, schemaSnapshot } from './schema-owners.js';
import type { Db } from './storage.js';

/**
 * Per-package schema migrations (Storage.migrate): each owner's numbered steps, applied once each
 * in a transaction of their own and recorded in `kernel_migrations`, a plugin's kept to the schema
 * objects of its tier. Storage opens the database and runs the transactions.
 */

/** A numbered schema step of one package. Ids are per owner and applied in ascending order. */
export interface Migration {
  id: number;
  name: string;
  /** Runs in one transaction the kernel opens: synchronous, without BEGIN, COMMIT or ROLLBACK of its own. */
  up(db: Db): void;
}

/**
 * The schema objects an owner's migrations may touch: Kernel.register gives a plugin's migrations
 * the names of its tier (schema-scope.ts). Without one (the stores' own migrations) nothing is checked.
 */
export interface SchemaScope {
  /** Whether the owner may create, change or drop a table, index, trigger or view of this name, or write rows of this table. */
  owns(name: string): boolean;
  /** The names it owns, in words, for the error ("named notes or notes_*"). */
  rule: string;
}

export interface MigrationStatus {
  owner: string;
  applied: number;
  head: number;
  pending: number[];
}

/** The migrations of every owner known in this process, applied to one database. */
export class MigrationRunner {
  private readonly known = new Map<string, Migration[]>();
  private readonly scopes = new Map<string, SchemaScope>();

  /** `transaction`: Storage.transaction, which every migration runs in. */
  constructor(
    private readonly db: Db,
    private readonly transaction: <T>(fn: () => T) => T,
    private readonly logger: Logger,
  ) {}

  /**
   * Apply the owner's pending migrations, each in its own transaction. Idempotent. An owner's
   * migrations come from one list per process: another list under a name already in use (two
   * plugins of one name, a plugin named like a package that migrates, such as the stores) is
   * refused, since the ids the first list applied would count as applied for the second.
   * `up` must be synchronous and leave the transaction alone: one answering a promise, or ending
   * the transaction itself (COMMIT, END, ROLLBACK), is refused and not recorded as applied.
   * With a `scope` (a plugin's migrations), a migration that creates, changes or drops a schema
   * object outside it, or writes rows of a table outside it, is refused with
   * KERNEL_ERR_MIGRATION_SCOPE naming the object, and rolled back (schema-scope.ts).
   */
  migrate(owner: string, migrations: readonly Migration[], scope?: SchemaScope): number[] {
    const sorted = [...migrations].sort((a, b) => a.id - b.id);
    const ids = new Set<number>();
    for (const m of sorted) {
      if (!Number.isInteger(m.id) || m.id < 1 || ids.has(m.id)) {
        throw new MemoryError('KERNEL_ERR_MIGRATION', `${owner}: migration ids must be unique positive integers`, {
          plugin: owner,
        });
      }
      ids.add(m.id);
    }
    const known = this.known.get(owner);
    if (known && (known.length !== sorted.length || known.some((m, i) => m.id !== sorted[i]!.id || m.up !== sorted[i]!.up))) {
      throw new MemoryError(
        'KERNEL_ERR_MIGRATION',
        `${owner}: another list of migrations is already applied under the owner name ${owner} in this process (a plugin or package of the same name); each owner's migrations must come from one place`,
        { plugin: owner },
      );
    }
    this.known.set(owner, sorted);
    // Made at open; again here for a database put in place since (a backup from before them, restored).
    ensureOwnerTables(this.db);
    if (scope) this.scopes.set(owner, scope);
    scope ??= this.scopes.get(owner);
    const applied: number[] = [];
    for (const m of sorted) {
      let done: boolean;
      try {
        done = this.transaction(() => {
          const row = this.db.prepare('SELECT 1 FROM kernel_migrations WHERE owner = ? AND id = ?').get(owner, m.id);
          if (row) return false;
          // A plugin's scope is its tier's names less what another owner made (schema-owners.ts).
          const before = schemaSnapshot(this.db);
          const owned = scope && ownedScope(this.db, owner, scope, before);
          const failed = (why: string, cause?: unknown) =>
            new MemoryError('KERNEL_ERR_MIGRATION', `${owner} migration ${m.id} (${m.name}) failed: ${why}`, { plugin: owner, cause });
          const outside = (what: string, cause?: unknown) =>
            new MemoryError(
              'KERNEL_ERR_MIGRATION_SCOPE',
              `${owner} migration ${m.id} (${m.name}) ${what}, which it does not own: a plugin's migrations may create, change, drop and write only tables, indexes, triggers and views ${owned!.rule}; it was rolled back`,
              { plugin: owner, cause },
            );
          const watch = owned ? watchSchema(this.db, owned) : undefined;
          let out: unknown;
          try {
            out = m.up(watch ? watch.db : this.db);
          } catch (err) {
            const refused = watch?.refused(err);
            throw refused ? outside(refused, err) : failed((err as Error).message, err);
          }
          if (isPromiseLike(out)) {
            // What it does after an await would run outside the transaction, after it was recorded.
            out.then(undefined, (err: unknown) => this.logger.error(`${owner} migration ${m.id} (${m.name}) failed after answering: ${(err as Error)?.message ?? err}`));
            throw failed('up answered a promise; a migration must be synchronous (it runs in one transaction, which cannot be held across an await)');
          }
          if (!this.db.inTransaction) {
            throw failed('it ended the transaction the kernel runs it in (a COMMIT, END or ROLLBACK in its SQL): what it wrote before that stays, and it is not recorded as applied; remove the transaction statements');
          }
          const change = watch?.done();
          if (change) throw outside(change);
          recordOwners(this.db, owner, before, schemaSnapshot(this.db));
          this.db
            .prepare('INSERT INTO kernel_migrations (owner, id, name, applied_at) VALUES (?, ?, ?, ?)')
            .run(owner, m.id, m.name, new Date().toISOString());
          return true;
        });
      } finally {
        // A migration that ended the transaction itself (refused above) committed the guards too.
        if (scope) unwatchSchema(this.db);
      }
      if (done) applied.push(m.id);
    }
    return applied;
  }

  /** Re-run migrate for every owner known in this process (memory_heal remigrate). */
  remigrate(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const [owner, list] of this.known) out[owner] = this.migrate(owner, list);
    return out;
  }

  /** The migration head per owner: what is applied against what this process knows. */
  status(): MigrationStatus[] {
    const rows = this.db.prepare('SELECT owner, id FROM kernel_migrations').all() as { owner: string; id: number }[];
    const appliedBy = new Map<string, Set<number>>();
    for (const r of rows) {
      if (!appliedBy.has(r.owner)) appliedBy.set(r.owner, new Set());
      appliedBy.get(r.owner)!.add(r.id);
    }
    return [...this.known.entries()].map(([owner, list]) => {
      const done = appliedBy.get(owner) ?? new Set<number>();
      return {
        owner,
        applied: Math.max(0, ...[...done]),
        head: Math.max(0, ...list.map((m) => m.id)),
        pending: list.filter((m) => !done.has(m.id)).map((m) => m.id),
      };
    });
  }
}
