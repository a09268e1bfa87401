import { recentWindow } from './iso-time.js';
import { cutChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import { FACT_PREFIX, type FactStore } from './facts.js';
import type { EpisodeStore } from './episodes.js';
import type { ScratchpadStore } from './scratchpad.js';
import type { TimelineStore } from './timeline.js';
import type { Scope } from './types.js';
import { checkScope, isoOf, makeId } from './util.js';

/** The window of "recent activity". */
export const BRIEF_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Items listed per kind (the counts are complete). */
export const BRIEF_ITEMS = 5;
export const BRIEF_TODOS = 20;
const EXCERPT = 200;

/**
 * A todo fact: its key starts with `todo:`, or its value starts with the word TODO (any case:
 * "TODO: call Ann", "todo - renew passport").
 */
export const TODO_VALUE = /^\s*todo\b/i;
export function isTodoFact(f: { key: string; value: string }): boolean {
  return f.key.toLowerCase().startsWith('todo:') || TODO_VALUE.test(f.value);
}

export interface BriefSectionError {
  error: { message: string; code?: string };
}

export interface BriefPending {
  todos: { count: number; items: { entry_id: string; key: string; value: string; importance: number; updated: string }[] };
  scratchpad: { count: number; items: { key: string; content: string; updated: string }[] };
}

export interface BriefKind<T> {
  count: number;
  newest: T[];
}

export interface BriefRecent {
  since: string;
  total: number;
  facts: BriefKind<{ entry_id: string; key: string; value: string; updated: string }>;
  episodes: BriefKind<{ id: string; summary: string; tags: string[]; created: string }>;
  wiki_pages: BriefKind<{ title: string; wiki_type: string; path: string; updated: string }>;
  timeline_events: BriefKind<{ type: string; summary: string; created: string }>;
}

export interface BriefSuggestion {
  action: string;
  reason: string;
  /** The tool that carries the action out, when one does. */
  tool: string | null;
}

export interface DailyBriefResult {
  generated: string;
  pending: BriefPending | BriefSectionError;
  recent: BriefRecent | BriefSectionError;
  suggested_action: BriefSuggestion | BriefSectionError;
}

function sectionError(err: unknown): BriefSectionError {
  const e = err as { message?: unknown; code?: unknown };
  return { error: { message: typeof e?.message === 'string' ? e.message : String(err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) } };
}

function failed(s: object): s is BriefSectionError {
  return 'error' in s;
}

/**
 * daily_brief: pending work, the last 24 hours' activity and one suggested action, for one layer
 * and user_id. Deterministic and read-only. Each section is computed on its own: one that fails is
 * answered as `{ error }` and the others are still returned.
 */
export class DailyBrief {
  constructor(
    private readonly ctx: StoreContext,
    private readonly facts: FactStore,
    private readonly episodes: EpisodeStore,
    private readonly scratchpad: ScratchpadStore,
    private readonly timeline: TimelineStore,
  ) {}

  brief(scope: Scope): DailyBriefResult {
    checkScope(scope);
    const now = this.ctx.clock.now();
    const attempt = <T extends object>(fn: () => T): T | BriefSectionError => {
      try {
        return fn();
      } catch (err) {
        this.ctx.logger.warn(`daily_brief: a section failed: ${(err as Error)?.message ?? String(err)}`);
        return sectionError(err);
      }
    };
    const pending = attempt(() => this.pending(scope));
    const recent = attempt(() => this.recent(scope, now));
    const suggested_action = attempt(() => suggest(pending, recent));
    return { generated: isoOf(now), pending, recent, suggested_action };
  }

  /** Open todo facts (most important first, then oldest) and the scratchpad entries (newest first). */
  pending(scope: Scope): BriefPending {
    const rows = this.ctx
      .stmt(
        `SELECT id, key, value, importance, updated FROM facts
         WHERE layer = ? AND user_id = ? AND (lower(key) LIKE 'todo:%' OR ltrim(lower(value)) LIKE 'todo%')
         ORDER BY importance DESC, created ASC, id ASC`,
      )
      .all(scope.layer, scope.user_id) as { id: number; key: string; value: string; importance: number; updated: string }[];
    const todos = rows.filter(isTodoFact);
    const pad = this.scratchpad.read(scope).reverse();
    return {
      todos: {
        count: todos.length,
        items: todos.slice(0, BRIEF_TODOS).map((r) => ({ entry_id: makeId(FACT_PREFIX, r.id), key: r.key, value: cutChars(r.value, EXCERPT), importance: r.importance, updated: r.updated })),
      },
      scratchpad: { count: pad.length, items: pad.map((e) => ({ key: e.key, content: cutChars(e.content, EXCERPT), updated: e.updated })) },
    };
  }

  /** What was written in the 24 hours before `now`: counts and the newest items of each kind. */
  recent(scope: Scope, now: number = this.ctx.clock.now()): BriefRecent {
    // Up to now, not past it: a record dated after now (a clock stepped back, an imported date) was not written in the last 24 hours.
    const w = recentWindow(now, BRIEF_WINDOW_MS);
    const since = w.since;
    const count = (table: string, column: string) =>
      this.ctx
        .stmt(`SELECT COUNT(*) FROM ${table} WHERE layer = ? AND user_id = ? AND ${column} >= ? AND ${column} <= ?`)
        .pluck(true)
        .get(scope.layer, scope.user_id, w.since, w.until) as number;
    const facts = this.facts
      .list(scope, { orderBy: 'updated', limit: BRIEF_ITEMS, updatedIn: w })
      .map((f) => ({ entry_id: f.entry_id, key: f.key, value: cutChars(f.value, EXCERPT), updated: f.updated }));
    const episodes = this.episodes
      .list(scope, { since: w.since, until: w.until, limit: BRIEF_ITEMS })
      .map((e) => ({ id: e.id, summary: cutChars(e.summary, EXCERPT), tags: e.tags, created: e.created }));
    const pages = this.ctx
      .stmt('SELECT title, wiki_type, path, updated FROM wiki_pages WHERE layer = ? AND user_id = ? AND updated >= ? AND updated <= ? ORDER BY updated DESC, id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, w.since, w.until, BRIEF_ITEMS) as { title: string; wiki_type: string; path: string; updated: string }[];
    const events = this.timeline
      .latestIn(scope, w, BRIEF_ITEMS)
      .map((e) => ({ type: e.type, summary: cutChars(e.summary, EXCERPT), created: e.created }));
    const counts = {
      facts: count('facts', 'updated'),
      episodes: count('episodes', 'created'),
      wiki_pages: count('wiki_pages', 'updated'),
      timeline_events: count('timeline_events', 'created'),
    };
    return {
      since,
      total: counts.facts + counts.episodes + counts.wiki_pages + counts.timeline_events,
      facts: { count: counts.facts, newest: facts },
      episodes: { count: counts.episodes, newest: episodes },
      wiki_pages: { count: counts.wiki_pages, newest: pages },
      timeline_events: { count: counts.timeline_events, newest: events },
    };
  }
}

/** The one next step, from the sections that could be read (first rule that applies). */
export function suggest(pending: BriefPending | BriefSectionError, recent: BriefRecent | BriefSectionError): BriefSuggestion {
  if (!failed(pending) && pending.todos.count > 0) {
    const top = pending.todos.items[0]!;
    return {
      action: `Work on the todo ${JSON.stringify(top.key)}: ${top.value}`,
      reason: `${pending.todos.count} open todo fact(s); this one is the most important (${top.importance}) and oldest of them. Remove it with forget once done.`,
      tool: 'forget',
    };
  }
  if (!failed(pending) && pending.scratchpad.count > 0) {
    const oldest = pending.scratchpad.items[pending.scratchpad.items.length - 1]!;
    return {
      action: `Review the scratchpad: promote or clear its ${pending.scratchpad.count} entr${pending.scratchpad.count === 1 ? 'y' : 'ies'}, starting with ${JSON.stringify(oldest.key)}`,
      reason: 'Scratchpad notes are working memory; what matters should move to an episode or a fact.',
      tool: 'memory_scratchpad',
    };
  }
  if (!failed(recent) && recent.total === 0) {
    return { action: 'Record today\'s progress with think', reason: 'Nothing was written in the last 24 hours.', tool: 'think' };
  }
  if (!failed(recent)) {
    return {
      action: `Review the ${recent.total} record(s) of the last 24 hours and keep what matters with memory_remember`,
      reason: `No pending work; ${recent.facts.count} fact(s), ${recent.episodes.count} episode(s), ${recent.wiki_pages.count} wiki page(s) and ${recent.timeline_events.count} timeline event(s) changed since ${recent.since}.`,
      tool: 'memory_remember',
    };
  }
  return {
    action: 'Run memory_diagnose',
    reason: failed(pending) ? 'Neither pending work nor recent activity could be read.' : 'Recent activity could not be read and nothing is pending.',
    tool: 'memory_diagnose',
  };
}
