import type { Migration } from '../types.js';

/**
 * The nightly run's records (Nightly, nightly.ts), service-wide:
 * - `nightly_runs`: one row per run: its start and end by the clock, `since` (the end of the run
 *   before, or the first start: the scopes written after it are the ones visited), its status
 *   (running, ok, failed when a phase or the run itself failed, interrupted when the process stopped mid-run), the
 *   scopes visited, the phases that failed, `body` (per scope, each phase's status, counts
 *   and error, as JSON), and `error` (what stopped the run itself, such as listing the scopes).
 * - `nightly_state`: one row, the time the scheduler first ran on this data dir: with no run yet,
 *   the first one is due an interval after it.
 */
export const nightlySchema: Migration = {
  id: 19,
  name: 'stores_nightly',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS nightly_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        trigger TEXT NOT NULL,
        started TEXT NOT NULL,
        ended TEXT,
        since TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running','ok','failed','interrupted')),
        scopes INTEGER NOT NULL DEFAULT 0,
        phases_failed INTEGER NOT NULL DEFAULT 0,
        body TEXT NOT NULL DEFAULT '[]',
        error TEXT
      );
      CREATE TABLE IF NOT EXISTS nightly_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        first_start TEXT NOT NULL
      );
    `);
  },
};

/**
 * `nightly_runs.plugin_scopes`: per plugin tapping the kernel's `nightly_scopes` hook, what its tap
 * gave the run (status, scopes listed, entries dropped, error, detail), as JSON; `[]` for the runs
 * before it. A run whose plugin failed to list its scopes is `failed` as for a failed phase.
 */
export const nightlyPluginScopesSchema: Migration = {
  id: 21,
  name: 'stores_nightly_plugin_scopes',
  up(db) {
    const columns = db.prepare('PRAGMA table_info(nightly_runs)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'plugin_scopes')) db.exec("ALTER TABLE nightly_runs ADD COLUMN plugin_scopes TEXT NOT NULL DEFAULT '[]'");
  },
};

/**
 * `nightly_runs.owner_pid` and `owner_host`: the process that runs a run, so a run left `running`
 * by a process that has stopped (killed mid-run) is marked `interrupted` as soon as another process
 * looks, not only when the next run begins a day later. NULL for the runs before it.
 */
export const nightlyOwnerSchema: Migration = {
  id: 23,
  name: 'stores_nightly_owner',
  up(db) {
    const columns = (db.prepare('PRAGMA table_info(nightly_runs)').all() as { name: string }[]).map((c) => c.name);
    if (!columns.includes('owner_pid')) db.exec('ALTER TABLE nightly_runs ADD COLUMN owner_pid INTEGER');
    if (!columns.includes('owner_host')) db.exec('ALTER TABLE nightly_runs ADD COLUMN owner_host TEXT');
  },
};
