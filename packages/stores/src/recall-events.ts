import { cutChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import type { Scope } from './types.js';
import { checkScope, checkWordPattern, likePattern, toIso, wordFilterArgs, wordFilterSql, wordsMatcher } from './util.js';

export interface RecallEvent {
  id: number;
  query: string;
  intent: string;
  result_count: number;
  ms: number;
  created: string;
}

/** What a dream call records: its query, intent, number of hits and time taken (ms). */
export interface RecallEventInput {
  query: string;
  intent: string;
  result_count: number;
  ms: number;
}

/** Telemetry of each dream call, kept apart from the timeline. */
export class RecallEventStore {
  constructor(private readonly ctx: StoreContext) {}

  record(scope: Scope, input: RecallEventInput): void {
    checkScope(scope);
    this.ctx.tx(() =>
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
        ),
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
   * prefilter: every query the test can accept holds one of them as a plain substring (ASCII case
   * ignored), so only those events are read; with no terms, every event of the scope is.
   */
  deleteWhere(scope: Scope, terms: readonly string[], test: (query: string) => boolean): number {
    checkScope(scope);
    const likes = [...new Set(terms.filter((t) => t.length > 0))].map(likePattern);
    const where = likes.length ? `(${likes.map(() => `query LIKE ? ESCAPE '\\'`).join(' OR ')})` : '1';
    return this.deleteFiltered(scope, where, likes, test);
  }

  /** Delete the scope's events recorded at or after the ISO time (forget recent); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    sinceIso = toIso(sinceIso);
    checkScope(scope);
    return this.ctx.tx(
      () => this.ctx.stmt('DELETE FROM recall_events WHERE layer = ? AND user_id = ? AND created >= ?').run(scope.layer, scope.user_id, sinceIso).changes,
    );
  }

  private deleteFiltered(scope: Scope, where: string, args: readonly string[], test: (query: string) => boolean): number {
    return this.ctx.tx(() => {
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
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM recall_events WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** The most recent events, newest first. */
  recent(scope: Scope, limit = 20): RecallEvent[] {
    checkScope(scope);
    return this.ctx
      .stmt('SELECT id, query, intent, result_count, ms, created FROM recall_events WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, Math.max(0, Math.floor(limit))) as RecallEvent[];
  }
}
