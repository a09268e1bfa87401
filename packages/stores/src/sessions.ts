import { MAX_DATA_DEPTH, nestsDeeperThan, overChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import type { AuditLog } from './audit.js';
import { sessionQuality } from './scorers/index.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, checkWordPattern, makeId, parseId, parseJson, wordsMatcher } from './util.js';
import { validationError } from './errors.js';

export interface SessionQualityDetail {
  score: number;
  depth: number;
  decision: number;
  linked_entries: number;
  user_engagement: number;
}

export interface Session {
  id: string;
  layer: Layer;
  user_id: string;
  status: 'open' | 'closed';
  started: string;
  ended: string | null;
  summary: string | null;
  topics: string[];
  state_deltas: unknown;
  /** 0..80, set when the session closes. */
  quality: number | null;
  quality_detail: SessionQualityDetail | null;
}

export interface SessionEndInput {
  summary: string;
  topics?: string[];
  state_deltas?: unknown;
  /** Overrides the count of L3/L4 records written during the session. */
  linked_entries?: number;
  /** Overrides the count of L1 items pushed during the session. */
  user_turns?: number;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  status: 'open' | 'closed';
  started: string;
  ended: string | null;
  summary: string | null;
  topics: string;
  state_deltas: string;
  quality: number | null;
  quality_detail: string | null;
}

function toSession(r: Row): Session {
  return {
    id: makeId('sess', r.id),
    layer: r.layer,
    user_id: r.user_id,
    status: r.status,
    started: r.started,
    ended: r.ended,
    summary: r.summary,
    topics: parseJson<string[]>(r.topics, []),
    state_deltas: parseJson<unknown>(r.state_deltas, {}),
    quality: r.quality,
    quality_detail: parseJson<SessionQualityDetail | null>(r.quality_detail, null),
  };
}

/** L2 working sessions: open, then closed with a deterministic quality score (0..80) stored on the row. */
export class SessionStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  /** The open session of the scope, or a new one. */
  start(scope: Scope): Session {
    checkScope(scope);
    return this.ctx.tx(() => {
      const open = this.openRow(scope);
      if (open) return toSession(open);
      const info = this.ctx
        .stmt("INSERT INTO sessions (layer, user_id, status, started) VALUES (?, ?, 'open', ?)")
        .run(scope.layer, scope.user_id, this.ctx.iso());
      const s = this.get(makeId('sess', info.lastInsertRowid as number)) as Session;
      this.audit.log(scope, 'session_start', 'session', s.id);
      return s;
    });
  }

  /** Close the open session (opening one first if none is open), score it and return the row. */
  end(scope: Scope, input: SessionEndInput): Session {
    checkScope(scope);
    const summary = checkText(input.summary ?? '', 'summary', this.ctx.config.maxTextChars, true);
    const topics = input.topics ?? [];
    if (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string')) {
      throw validationError('topics', 'topics must be a list of strings');
    }
    const topicsJson = JSON.stringify(topics);
    if (overChars(topicsJson, this.ctx.config.maxTextChars)) {
      throw validationError('topics', `topics are longer than ${this.ctx.config.maxTextChars} characters all together as JSON`);
    }
    const deltas = input.state_deltas ?? {};
    if (typeof deltas !== 'object') throw validationError('state_deltas', 'state_deltas must be an object or a list', 'object or list');
    // Checked here, where every close passes (memory_session_end, session_ended): JSON.stringify
    // below recurses, and a value thousands of levels deep overflowed the stack naming no field.
    if (nestsDeeperThan(deltas, MAX_DATA_DEPTH)) {
      throw validationError('state_deltas', `state_deltas nests objects or lists more than ${MAX_DATA_DEPTH} levels deep`, `object or list at most ${MAX_DATA_DEPTH} levels deep`);
    }
    const deltasJson = JSON.stringify(deltas);
    if (overChars(deltasJson, this.ctx.config.maxTextChars)) {
      throw validationError('state_deltas', `state_deltas is longer than ${this.ctx.config.maxTextChars} characters as JSON`);
    }
    return this.ctx.tx(() => {
      const row = this.openRow(scope) ?? (this.rowOf(this.start(scope).id) as Row);
      const ended = this.ctx.iso();
      const linked = input.linked_entries ?? this.linkedSince(scope, row.started);
      const turns = input.user_turns ?? this.turnsSince(scope, row.started);
      const q = sessionQuality({
        summary,
        topics,
        state_deltas: deltas,
        linked_entries: linked,
        user_turns: turns,
      } as Parameters<typeof sessionQuality>[0]);
      const score = Math.max(0, Math.min(80, Math.round(q.score)));
      const detail: SessionQualityDetail = { ...q, score };
      this.ctx
        .stmt(
          `UPDATE sessions SET status = 'closed', ended = ?, summary = ?, topics = ?, state_deltas = ?,
             quality = ?, quality_detail = ? WHERE id = ?`,
        )
        .run(ended, summary, topicsJson, deltasJson, score, JSON.stringify(detail), row.id);
      const id = makeId('sess', row.id);
      this.audit.log(scope, 'session_end', 'session', id, { quality: score });
      return this.get(id) as Session;
    });
  }

  /** The most recently closed session of the scope. */
  lastClosed(scope: Scope): Session | null {
    checkScope(scope);
    const r = this.ctx
      .stmt("SELECT * FROM sessions WHERE layer = ? AND user_id = ? AND status = 'closed' ORDER BY id DESC LIMIT 1")
      .get(scope.layer, scope.user_id) as Row | undefined;
    return r ? toSession(r) : null;
  }

  /** The open session of the scope, if any. */
  current(scope: Scope): Session | null {
    checkScope(scope);
    const r = this.openRow(scope);
    return r ? toSession(r) : null;
  }

  /** Recent sessions, newest first, `limit` of them from `offset`. */
  list(scope: Scope, limit = 20, offset = 0): Session[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt('SELECT * FROM sessions WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(scope.layer, scope.user_id, Math.max(0, Math.floor(limit)), Math.max(0, Math.floor(offset))) as Row[];
    return rows.map(toSession);
  }

  get(id: string): Session | null {
    const r = this.rowOf(id);
    return r ? toSession(r) : null;
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM sessions WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** Mean quality of the scope's closed sessions (0..80), or null when none is closed. */
  averageQuality(scope: Scope): number | null {
    checkScope(scope);
    const r = this.ctx
      .stmt("SELECT AVG(quality) AS q FROM sessions WHERE layer = ? AND user_id = ? AND status = 'closed'")
      .get(scope.layer, scope.user_id) as { q: number | null };
    return r.q;
  }

  /**
   * Clear what the scope's sessions hold of a forgotten text: a summary for which `holds` is true
   * becomes empty, such topics are dropped, and state deltas whose JSON holds it become {}. The
   * session itself (its times and quality) stays. Returns how many sessions were changed.
   */
  scrubWhere(scope: Scope, holds: (text: string) => boolean): number {
    checkScope(scope);
    return this.ctx.tx(() => {
      const rows = this.ctx.stmt('SELECT * FROM sessions WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as Row[];
      const update = this.ctx.stmt('UPDATE sessions SET summary = ?, topics = ?, state_deltas = ? WHERE id = ?');
      let changed = 0;
      for (const r of rows) {
        const summary = r.summary !== null && holds(r.summary) ? '' : r.summary;
        const topics = parseJson<string[]>(r.topics, []);
        const keptTopics = topics.filter((t) => !holds(t));
        const deltas = holds(r.state_deltas) ? '{}' : r.state_deltas;
        if (summary === r.summary && keptTopics.length === topics.length && deltas === r.state_deltas) continue;
        update.run(summary, JSON.stringify(keptTopics), deltas, r.id);
        this.audit.log(scope, 'scrub', 'session', makeId('sess', r.id));
        changed++;
      }
      return changed;
    });
  }

  /**
   * Clear the summary, topics and state deltas of the scope's sessions that ended at or after the
   * ISO time (forget recent: they were written when the session closed); the sessions stay, for
   * their times and quality. Returns how many were changed.
   */
  scrubEndedSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(() => {
      const rows = this.ctx
        .stmt(
          `SELECT id FROM sessions WHERE layer = ? AND user_id = ? AND ended >= ? AND ended <= ?
             AND (COALESCE(summary, '') <> '' OR topics <> '[]' OR state_deltas <> '{}') ORDER BY id`,
        )
        .all(scope.layer, scope.user_id, w.since, w.until) as { id: number }[];
      const update = this.ctx.stmt("UPDATE sessions SET summary = '', topics = '[]', state_deltas = '{}' WHERE id = ?");
      for (const r of rows) {
        update.run(r.id);
        this.audit.log(scope, 'scrub', 'session', makeId('sess', r.id));
      }
      return rows.length;
    });
  }

  /** scrubWhere for a pattern held as whole words (util.wordsMatcher). */
  scrubMatching(scope: Scope, pattern: string): number {
    checkWordPattern(pattern);
    return this.scrubWhere(scope, wordsMatcher(pattern));
  }

  private rowOf(id: string): Row | undefined {
    const n = parseId('sess', id);
    if (n === null) return undefined;
    return this.ctx.stmt('SELECT * FROM sessions WHERE id = ?').get(n) as Row | undefined;
  }

  private openRow(scope: Scope): Row | undefined {
    return this.ctx
      .stmt("SELECT * FROM sessions WHERE layer = ? AND user_id = ? AND status = 'open' ORDER BY id DESC LIMIT 1")
      .get(scope.layer, scope.user_id) as Row | undefined;
  }

  private linkedSince(scope: Scope, since: string): number {
    const e = this.ctx
      .stmt('SELECT COUNT(*) AS n FROM episodes WHERE layer = ? AND user_id = ? AND created >= ?')
      .get(scope.layer, scope.user_id, since) as { n: number };
    const f = this.ctx
      .stmt('SELECT COUNT(*) AS n FROM facts WHERE layer = ? AND user_id = ? AND updated >= ?')
      .get(scope.layer, scope.user_id, since) as { n: number };
    return e.n + f.n;
  }

  /** Items of the L1 ring (its newest l1Size, see l1.ts L1_TRIM_EVERY) pushed since `since`. */
  private turnsSince(scope: Scope, since: string): number {
    const r = this.ctx
      .stmt('SELECT COUNT(*) AS n FROM (SELECT created FROM l1_items WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?) WHERE created >= ?')
      .get(scope.layer, scope.user_id, this.ctx.config.l1Size, since) as { n: number };
    return r.n;
  }
}
