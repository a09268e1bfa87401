import type { Migration } from '../types.js';

/**
 * The saga journal of memory_saga (SagaJournal): one saga_runs row per run, written before its
 * first step, and one saga_steps row per step done, written in a transaction before the next step
 * starts, holding the step's result (what its compensation needs). So the journal always says what
 * to undo, and the saga watchdog can compensate a run whose process died or that overran its time.
 * scope (layer, user_id) is null for service-wide sagas (backup). owner is the random id of the
 * Stores that runs (or compensates) the run, with its pid and host for a quick liveness check.
 */
export const sagaJournalSchema: Migration = {
  id: 20,
  name: 'stores_saga_journal',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS saga_runs (
        id TEXT PRIMARY KEY,
        saga TEXT NOT NULL,
        layer TEXT,
        user_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'compensating', 'completed', 'rolled_back', 'rollback_failed')),
        started TEXT NOT NULL,
        updated TEXT NOT NULL,
        heartbeat TEXT NOT NULL,
        owner TEXT NOT NULL,
        owner_pid INTEGER,
        owner_host TEXT,
        error TEXT,
        compensated_by TEXT
      );
      CREATE INDEX IF NOT EXISTS saga_runs_status ON saga_runs (status, started);
      CREATE INDEX IF NOT EXISTS saga_runs_scope ON saga_runs (layer, user_id, started);
      CREATE TABLE IF NOT EXISTS saga_steps (
        run_id TEXT NOT NULL REFERENCES saga_runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('done', 'failed', 'compensated', 'compensation_failed')),
        result TEXT,
        undone TEXT,
        error TEXT,
        updated TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `);
  },
};
