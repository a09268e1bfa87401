import type { TimeWindow } from './iso-time.js';
import type { StoreContext } from './context.js';
import { isGeneratedKey } from './facts.js';
import { trainingValue } from './scorers/training-value.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, checkWordPattern, foldedTermsFilter, makeId, parseId, parseJson, rowsMatching, wordFilterArgs, wordFilterSql } from './util.js';

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

const TRAINING_VALUES: readonly unknown[] = ['high', 'medium', 'low'];
/** The importance an event is classified with when its metadata gives none. */
const NEUTRAL_IMPORTANCE = 0.5;

/** The metadata with a valid `training_value`: the caller's, or the summary's class (scorers/training-value.ts). */
function withTrainingValue(metadata: Record<string, unknown>, summary: string): Record<string, unknown> {
  if (TRAINING_VALUES.includes(metadata.training_value)) return metadata;
  const imp = metadata.importance;
  const importance = typeof imp === 'number' && Number.isFinite(imp) && imp >= 0 && imp <= 1 ? imp : NEUTRAL_IMPORTANCE;
  return { ...metadata, training_value: trainingValue(summary, importance) };
}

/**
 * Metadata keys whose values the service writes, not the caller's words: `training_value` (a label
 * every event gets), `refs` and `entry_id` (ids of the records think and evolve wrote: `l1:l1_1`,
 * `wiki:wiki_1`, `fact_3`). Matched, "high", "l1", "wiki" or "fact" took every event of that class.
 */
const SERVICE_META_KEYS: ReadonlySet<string> = new Set(['training_value', 'refs', 'entry_id']);

/**
 * The string values of an event's metadata (JSON), joined by new lines: the text a pattern is
 * matched against. The values the service wrote are left out (SERVICE_META_KEYS, and a `key` it
 * generated, as evolve's `personality:...`: facts.isGeneratedKey), so forget fuzzy takes an event
 * for the caller's words only.
 */
function metadataText(metadata: string): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  const parsed = parseJson<unknown>(metadata, null);
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const [k, v] of Object.entries(parsed)) {
      if (SERVICE_META_KEYS.has(k) || (k === 'key' && typeof v === 'string' && isGeneratedKey(v))) continue;
      walk(v);
    }
  } else walk(parsed);
  return out.join('\n');
}

/** The temporal timeline: typed events per scope, in time order. */
export class TimelineStore {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Add an event. Its metadata always carries `training_value` (high, medium or low, as the spec
   * asks of every temporal event): the caller's when it is one of those, else trainingValue() of the
   * summary with the metadata's `importance` (a number in [0, 1]) or a neutral 0.5. `created` (ISO)
   * is its time, now by default (memory_data import gives each event its exported time).
   */
  add(scope: Scope, input: { type: string; summary: string; metadata?: Record<string, unknown> }, created?: string): TimelineEvent {
    checkScope(scope);
    const type = checkText(input.type, 'type', 100);
    const summary = checkText(input.summary, 'summary', this.ctx.config.maxTextChars, true);
    const metadata = withTrainingValue(input.metadata ?? {}, summary);
    return this.ctx.tx(() => {
      const row = this.ctx
        .stmt('INSERT INTO timeline_events (layer, user_id, type, summary, metadata, created) VALUES (?, ?, ?, ?, ?, ?) RETURNING *')
        .get(scope.layer, scope.user_id, type, summary, JSON.stringify(metadata), created ?? this.ctx.iso()) as Row;
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

  /** The newest `n` events created inside the window (both ends included), newest first. */
  latestIn(scope: Scope, w: TimeWindow, n = 5): TimelineEvent[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ? ORDER BY id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, w.since, w.until, Math.max(0, Math.floor(n))) as Row[];
    return rows.map(toEvent);
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

  /**
   * Delete the scope's events for which `test` holds (it sees each event whole, metadata
   * included); returns the deleted events, oldest first. `terms` is a prefilter: every event the
   * test can accept holds one of them, as a plain substring folded as retrieval folds (util.foldText:
   * case, accents, full-width forms), in its summary or in its metadata's stored JSON, so only
   * those events are read (util.foldedTermsFilter: and every event with a character beyond ASCII);
   * `metadataTerms` are looked for in the metadata alone (refs: `l3:ep_4`). With no terms of
   * either kind, every event of the scope is read.
   */
  deleteWhere(scope: Scope, terms: readonly string[], test: (event: TimelineEvent) => boolean, metadataTerms: readonly string[] = []): TimelineEvent[] {
    checkScope(scope);
    const filter = foldedTermsFilter(['summary', 'metadata'], terms, { metadata: metadataTerms });
    return this.ctx.tx(() => {
      const rows = this.ctx
        .stmt(`SELECT * FROM timeline_events WHERE layer = ? AND user_id = ?${filter ? ` AND ${filter.sql}` : ''} ORDER BY id`)
        .iterate(scope.layer, scope.user_id, ...(filter?.args ?? [])) as IterableIterator<Row>;
      const gone: TimelineEvent[] = [];
      for (const r of rows) {
        const e = toEvent(r);
        if (test(e)) gone.push(e);
      }
      this.deleteIds(gone);
      return gone;
    });
  }

  /** Delete the scope's events whose summary or metadata holds the pattern as whole words (util.wordsMatcher); returns them. */
  deleteMatching(scope: Scope, pattern: string): TimelineEvent[] {
    checkScope(scope);
    checkWordPattern(pattern);
    return this.ctx.tx(() => {
      const args = wordFilterArgs(pattern);
      const rows = this.ctx
        .stmt(`SELECT * FROM timeline_events WHERE layer = ? AND user_id = ? AND (${wordFilterSql('summary')} OR ${wordFilterSql('metadata')}) ORDER BY id`)
        .iterate(scope.layer, scope.user_id, ...args, ...args) as IterableIterator<Row>;
      const gone = rowsMatching(rows, pattern, (r) => [r.summary, metadataText(r.metadata)], Infinity).map(toEvent);
      this.deleteIds(gone);
      return gone;
    });
  }

  private deleteIds(events: readonly TimelineEvent[]): void {
    const del = this.ctx.stmt('DELETE FROM timeline_events WHERE id = ?');
    for (const e of events) del.run(parseId('evt', e.id));
  }

  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(
      () =>
        this.ctx
          .stmt('DELETE FROM timeline_events WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
          .run(scope.layer, scope.user_id, w.since, w.until).changes,
    );
  }
}
