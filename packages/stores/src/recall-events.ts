import { cutChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { foldText } from './retrieval/query.js';
import type { Scope } from './types.js';
import { checkScope, checkWordPattern, foldedTermsFilter, scopeKey, wordFilterArgs, wordFilterSql, wordsMatcher } from './util.js';

export interface RecallEvent {
  id: number;
  query: string;
  intent: string;
  result_count: number;
  ms: number;
  created: string;
}

/** A dream query that found nothing and was not answered since (RecallEventStore.openGaps). */
export interface OpenGap {
  /** The query as last asked. */
  query: string;
  /** Its calls in the period that found nothing, since it last found something. */
  misses: number;
  first_miss: string;
  last_miss: string;
}

/** What a dream call records: its query, intent, number of hits and time taken (ms). */
export interface RecallEventInput {
  query: string;
  intent: string;
  result_count: number;
  ms: number;
}

/**
 * Rows one trim deletes at most. A scope far over its bound (a table from before the bound, or a
 * bound lowered in config.yaml) is brought down over its next writes, this many rows each, so no
 * deferred batch becomes a long pause of the event loop or a long hold of the write lock.
 */
export const RECALL_TRIM_MAX_ROWS = 5_000;
/** Scopes whose writes since their last trim are counted; past it the counts start over (each scope then trims at its next write). */
const TRIM_COUNTS_MAX = 10_000;

/** Writes of a scope between two trims: a tenth of the bound, so a scope holds at most 10% more rows than it keeps. */
export function recallTrimEvery(keep: number): number {
  return Math.max(1, Math.ceil(keep / 10));
}

/**
 * Telemetry of each dream call, kept apart from the timeline. Each layer and user_id keeps its
 * newest `config.recallEventsKeep` rows: a write trims its scope's older rows at its first write in
 * this process and then once every recallTrimEvery(keep) writes, in the same transaction (dream
 * writes its row in the deferred batch, after its answer).
 */
export class RecallEventStore {
  /** Writes of each scope (layer NUL user_id) since its last trim; a scope not here trims at its next write. */
  private readonly sinceTrim = new Map<string, number>();
  /** The forget count (recall_forgets) when this process started or last wrote a batch of queued queries. */
  private seenForgets: number;
  /** Set while a batch of queued queries runs after a forget this process has not seen: record() writes nothing. */
  private dropping = false;

  /**
   * `writeQueued` writes the dream telemetry still queued in this process (Stores.writeDeferred):
   * every read below calls it first, so a view of the table holds the dreams already answered
   * (they are written in a batch up to DEFERRED_WRITE_MS later).
   */
  constructor(
    private readonly ctx: StoreContext,
    private readonly writeQueued: () => void = () => undefined,
  ) {
    this.seenForgets = this.forgets();
  }

  /** How many forgets of dream queries have committed, in any process (migration 12). */
  private forgets(): number {
    return (this.ctx.stmt('SELECT n FROM recall_forgets WHERE id = 1').pluck(true).get() as number | undefined) ?? 0;
  }

  /** Count a forget of dream queries, in its transaction: batches queued elsewhere before it then leave theirs out. */
  private countForget(): void {
    const n = (this.ctx.stmt('UPDATE recall_forgets SET n = n + 1 WHERE id = 1 RETURNING n').pluck(true).get() as number | undefined) ?? 0;
    // This process wrote its own queue before forgetting (Stores.writeDeferred): nothing of it to leave out.
    this.ctx.onCommit(() => {
      this.seenForgets = n;
    });
  }

  /**
   * Run `write`, a deferred batch holding queued dream queries, inside the batch's transaction
   * (Stores.flushDeferred). When a forget committed in another process since this one last looked,
   * a query queued here before it may hold what it forgot, too late for it to delete: the batch's
   * queries are left out (telemetry only; the batch's other writes are kept). Once the batch
   * commits, the next one writes its queries.
   */
  queuedBatch(write: () => void): void {
    const n = this.forgets();
    this.dropping = n !== this.seenForgets;
    try {
      write();
    } finally {
      this.dropping = false;
    }
    this.ctx.onCommit(() => {
      this.seenForgets = n;
    });
  }

  record(scope: Scope, input: RecallEventInput): void {
    checkScope(scope);
    if (this.dropping) return;
    this.ctx.tx(() => {
      this.ctx
        .stmt('INSERT INTO recall_events (layer, user_id, query, intent, result_count, ms, created) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(
          scope.layer,
          scope.user_id,
          cutChars(String(input.query), 2000),
          String(input.intent),
          Math.max(0, Math.floor(input.result_count)),
          Number.isFinite(input.ms) ? input.ms : 0,
          this.ctx.iso(),
        );
      this.trimOnCount(scope);
    });
  }

  /** Count the scope's write; trim it when its turn has come. */
  private trimOnCount(scope: Scope): void {
    const key = scopeKey(scope.layer, scope.user_id);
    const written = this.sinceTrim.get(key);
    if (written !== undefined && written + 1 < recallTrimEvery(this.ctx.config.recallEventsKeep)) {
      this.sinceTrim.set(key, written + 1);
      return;
    }
    if (written === undefined && this.sinceTrim.size >= TRIM_COUNTS_MAX) this.sinceTrim.clear();
    // A full chunk may have left more: the scope trims again at its next write.
    if (this.trim(scope) >= RECALL_TRIM_MAX_ROWS) this.sinceTrim.delete(key);
    else this.sinceTrim.set(key, 0);
  }

  /**
   * Delete the scope's rows older than its newest `keep` (the oldest first, RECALL_TRIM_MAX_ROWS at
   * most); returns how many. Reads the index recall_events_scope (layer, user_id, id) alone:
   * `keep` entries to find the cut, then the rows before it.
   */
  trim(scope: Scope, keep: number = this.ctx.config.recallEventsKeep): number {
    checkScope(scope);
    if (!Number.isInteger(keep) || keep < 1) throw validationError('keep', 'keep must be a positive integer');
    return this.ctx.tx(
      () =>
        this.ctx
          .stmt(
            `DELETE FROM recall_events WHERE id IN (
              SELECT id FROM recall_events WHERE layer = ? AND user_id = ? AND id < (
                SELECT id FROM recall_events WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?
              ) ORDER BY id LIMIT ?
            )`,
          )
          .run(scope.layer, scope.user_id, scope.layer, scope.user_id, keep - 1, RECALL_TRIM_MAX_ROWS).changes,
    );
  }

  /**
   * Delete the scope's events whose query holds the pattern as whole words, folded as dream folds
   * (util.wordsMatcher; the pattern needs a letter or digit); returns how many. forget exact and
   * fuzzy use it: a query names what it looked for, in the user's words.
   */
  deleteMatching(scope: Scope, pattern: string): number {
    checkScope(scope);
    checkWordPattern(pattern);
    return this.deleteFiltered(scope, wordFilterSql('query'), wordFilterArgs(pattern), wordsMatcher(pattern));
  }

  /**
   * Delete the scope's events whose query `test` accepts; returns how many. `terms` is a
   * prefilter: every query the test can accept holds one of them as a plain substring, folded as
   * retrieval folds (util.foldText: case, accents, full-width forms), so only those events are read
   * (util.foldedTermsFilter: and every query with a character beyond ASCII); with no terms, every
   * event of the scope is.
   */
  deleteWhere(scope: Scope, terms: readonly string[], test: (query: string) => boolean): number {
    checkScope(scope);
    const filter = foldedTermsFilter(['query'], terms);
    return this.deleteFiltered(scope, filter?.sql ?? '1', filter?.args ?? [], test);
  }

  /** Delete the scope's events recorded at or after the ISO time (forget recent); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(() => {
      this.countForget();
      return this.ctx
        .stmt('DELETE FROM recall_events WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
        .run(scope.layer, scope.user_id, w.since, w.until).changes;
    });
  }

  private deleteFiltered(scope: Scope, where: string, args: readonly string[], test: (query: string) => boolean): number {
    return this.ctx.tx(() => {
      this.countForget();
      const rows = this.ctx
        .stmt(`SELECT id, query FROM recall_events WHERE layer = ? AND user_id = ? AND ${where}`)
        .all(scope.layer, scope.user_id, ...args) as { id: number; query: string }[];
      const del = this.ctx.stmt('DELETE FROM recall_events WHERE id = ?');
      let n = 0;
      for (const r of rows) {
        if (test(r.query)) n += del.run(r.id).changes;
      }
      return n;
    });
  }

  count(scope: Scope): number {
    checkScope(scope);
    this.writeQueued();
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM recall_events WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /**
   * The scope's open gaps since the ISO time: each distinct dream query (compared folded as dream
   * folds words, `foldText`: NFC or NFD, case, accents, full-width forms; trimmed, runs of white
   * space as one space) with a call that found nothing (result_count 0) at or after `sinceIso` and
   * no later call of the same query that found something. The query is shown as its latest miss
   * asked it. Newest last miss first, `limit` at most; `misses` counts the query's empty calls in
   * the period.
   */
  openGaps(scope: Scope, sinceIso: string, limit = 50): OpenGap[] {
    checkScope(scope);
    const w = this.ctx.window(sinceIso);
    this.writeQueued();
    const rows = this.ctx
      .stmt('SELECT id, query, result_count, created FROM recall_events WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ? ORDER BY id')
      .all(scope.layer, scope.user_id, w.since, w.until) as { id: number; query: string; result_count: number; created: string }[];
    const byQuery = new Map<string, OpenGap & { lastId: number }>();
    for (const r of rows) {
      // Folded as dream folds the words it matches (foldText: NFC and NFD, case beyond ASCII, accents, full-width forms).
      const norm = foldText(r.query).replace(/\s+/g, ' ').trim();
      if (!norm) continue;
      if (r.result_count > 0) {
        // Answered: the misses before it are closed.
        byQuery.delete(norm);
        continue;
      }
      const g = byQuery.get(norm);
      if (g) {
        g.misses++;
        g.last_miss = r.created;
        g.lastId = r.id;
        g.query = r.query;
      } else byQuery.set(norm, { query: r.query, misses: 1, first_miss: r.created, last_miss: r.created, lastId: r.id });
    }
    return [...byQuery.values()]
      .sort((a, b) => b.lastId - a.lastId)
      .slice(0, Math.max(0, Math.floor(limit)))
      .map(({ query, misses, first_miss, last_miss }) => ({ query, misses, first_miss, last_miss }));
  }

  /** The most recent events, newest first. */
  recent(scope: Scope, limit = 20): RecallEvent[] {
    checkScope(scope);
    this.writeQueued();
    return this.ctx
      .stmt('SELECT id, query, intent, result_count, ms, created FROM recall_events WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, Math.max(0, Math.floor(limit))) as RecallEvent[];
  }
}
