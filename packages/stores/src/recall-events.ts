import { cutChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';

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
