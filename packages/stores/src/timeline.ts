import type { StoreContext } from './context.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, makeId, parseJson, toIso } from './util.js';

export interface TimelineEvent {
  id: string;
  layer: Layer;
  user_id: string;
  /** e.g. thought, personality_shift, project_decision. */
  type: string;
  summary: string;
  metadata: Record<string, unknown>;
  created: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  type: string;
  summary: string;
  metadata: string;
  created: string;
}

function toEvent(r: Row): TimelineEvent {
  return {
    id: makeId('evt', r.id),
    layer: r.layer,
    user_id: r.user_id,
    type: r.type,
    summary: r.summary,
    metadata: parseJson<Record<string, unknown>>(r.metadata, {}),
    created: r.created,
  };
}

/** The temporal timeline: typed events per scope, in time order. */
export class TimelineStore {
  constructor(private readonly ctx: StoreContext) {}

  add(scope: Scope, input: { type: string; summary: string; metadata?: Record<string, unknown> }): TimelineEvent {
    checkScope(scope);
    const type = checkText(input.type, 'type', 100);
    const summary = checkText(input.summary, 'summary', this.ctx.config.maxTextChars, true);
    return this.ctx.tx(() => {
      const row = this.ctx
        .stmt('INSERT INTO timeline_events (layer, user_id, type, summary, metadata, created) VALUES (?, ?, ?, ?, ?, ?) RETURNING *')
        .get(scope.layer, scope.user_id, type, summary, JSON.stringify(input.metadata ?? {}), this.ctx.iso()) as Row;
      return toEvent(row);
    });
  }

  /** The n most recent events, newest first, optionally of one type. */
  latest(scope: Scope, n = 5, type?: string): TimelineEvent[] {
    checkScope(scope);
    const limit = Math.max(0, Math.floor(n));
    const rows =
      type === undefined
        ? this.ctx
            .stmt('SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?')
            .all(scope.layer, scope.user_id, limit)
        : this.ctx
            .stmt('SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? AND type = ? ORDER BY id DESC LIMIT ?')
            .all(scope.layer, scope.user_id, type, limit);
    return (rows as Row[]).map(toEvent);
  }

  /** Events at or after an ISO time, oldest first. */
  since(scope: Scope, sinceIso: string, limit = 1000): TimelineEvent[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? AND created >= ? ORDER BY created, id LIMIT ?')
      .all(scope.layer, scope.user_id, sinceIso, Math.max(0, Math.floor(limit))) as Row[];
    return rows.map(toEvent);
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM timeline_events WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  deleteSince(scope: Scope, sinceIso: string): number {
    sinceIso = toIso(sinceIso);
    checkScope(scope);
    return this.ctx.tx(
      () =>
        this.ctx
          .stmt('DELETE FROM timeline_events WHERE layer = ? AND user_id = ? AND created >= ?')
          .run(scope.layer, scope.user_id, sinceIso).changes,
    );
  }
}
