import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { MemoryError } from './errors.js';

/** Which better-sqlite3 the kernel opens databases with, and how it opens one (storage.ts uses it). */

type Db = Database.Database;

/**
 * The two SQLite drivers the kernel ships, both better-sqlite3:
 * - `better-sqlite3-napi` is better-sqlite3 13 (installed under that alias), built on Node-API 10,
 *   which Node has from 22.14 (and 23.6, 24, 25, ...). Version 12 must not run there: on Node 24
 *   its statements abort the process when the garbage collector frees them ("Assertion failed:
 *   (env) != nullptr" in RemoveEnvironmentCleanupHook), within the first few dozen calls;
 * - `better-sqlite3` is better-sqlite3 12, built for the running Node's ABI by its install, for
 *   Node 20 and the early 22s, where version 13 cannot load (it crashes opening a database). It is
 *   an optional dependency: on Node 24 a machine without a compiler can still install.
 */
export const SQLITE_DRIVERS = Object.freeze({ nodeApi10: 'better-sqlite3-napi', legacy: 'better-sqlite3' });

/** The driver package for a runtime with this Node-API version (process.versions.napi). */
export function sqliteDriverFor(napiVersion: number): string {
  return napiVersion >= 10 ? SQLITE_DRIVERS.nodeApi10 : SQLITE_DRIVERS.legacy;
}

type DatabaseConstructor = new (file: string, options?: Database.Options) => Db;

/** A loaded driver: its package, its Database class and, for better-sqlite3 12, its addon's path. */
export interface SqliteDriver {
  name: string;
  Database: DatabaseConstructor;
  addon: string | undefined;
}

let driver: SqliteDriver | undefined;

/** The driver this process opens databases with (sqliteDriverFor the running Node), loaded once. */
export function sqliteDriver(): SqliteDriver {
  if (!driver) {
    const name = sqliteDriverFor(Number(process.versions.napi ?? 0));
    const require = createRequire(import.meta.url);
    driver = { name, Database: loadSqliteDriver(name, require), addon: name === SQLITE_DRIVERS.legacy ? legacyAddon(require) : undefined };
  }
  return driver;
}

/**
 * Load a driver package; one that is missing or does not load (better-sqlite3 12 is an optional
 * dependency, so an install where its build failed still succeeds) is a KERNEL_ERR_STORAGE naming
 * the package, the Node and what to do.
 */
export function loadSqliteDriver(name: string, require: (id: string) => unknown): DatabaseConstructor {
  try {
    return require(name) as DatabaseConstructor;
  } catch (err) {
    throw new MemoryError(
      'KERNEL_ERR_STORAGE',
      `cannot load the SQLite driver ${name} for Node ${process.versions.node} (Node-API ${process.versions.napi}): ${(err as Error).message}; run npm install again with this Node`,
      { cause: err },
    );
  }
}

/**
 * The path of better-sqlite3 12's compiled addon where its install builds it (build/Release), for
 * the `nativeBinding` option; undefined when it is not there (a Debug build, a prebuilt elsewhere),
 * and better-sqlite3 finds it itself. Without the option it loads the addon through the `bindings`
 * package, which captures a stack trace and tries a dozen candidate paths: about 3 ms of a start.
 * (Version 13 finds its prebuilt addon directly.)
 */
function legacyAddon(require: NodeJS.Require): string | undefined {
  try {
    const file = path.join(path.dirname(require.resolve(`${SQLITE_DRIVERS.legacy}/package.json`)), 'build', 'Release', 'better_sqlite3.node');
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The addon path the legacy driver is opened with (undefined under the Node-API 10 driver). */
export function betterSqliteAddon(): string | undefined {
  return sqliteDriver().addon;
}

/**
 * Open a connection with the driver this process uses, its addon given as Storage gives it: the
 * live database, and the other files a store opens on their own connection (a backup copy, the
 * replica, a file being checked). Opened without the addon's path, better-sqlite3 12 looks for it
 * through the `bindings` package (about 3 ms the first time).
 */
export function openSqlite(file: string, options: Database.Options = {}): Db {
  const sqlite = sqliteDriver();
  return new sqlite.Database(file, sqlite.addon ? { ...options, nativeBinding: sqlite.addon } : options);
}

