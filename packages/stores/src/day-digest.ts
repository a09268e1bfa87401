import type { StoreContext } from './context.js';
import type { Scope } from './types.js';
import { checkScope, isoOf, makeId } from './util.js';

const DAY_MS = 24 * 3600 * 1000;
/** Newest items shown per kind in a day digest. */
export const DAY_DIGEST_NEWEST = 3;

export type DayDigestKind = 'facts' | 'episodes' | 'wiki' | 'timeline';

export interface DayDigestItem {
  id: string;
  text: string;
  created: string;
}

/** Today's activity of a scope: per kind, the count written today and the newest items. */
export interface DayDigest {
  /** ISO start of today (UTC midnight by the injected clock). */
  day_start: string;
  counts: Record<DayDigestKind, number>;
  newest: Record<DayDigestKind, DayDigestItem[]>;
}

/** Per kind: its table, id prefix, shown text and the column of its creation time. */
const KINDS: readonly { kind: DayDigestKind; table: string; prefix: string; text: string }[] = [
  { kind: 'facts', table: 'facts', prefix: 'fact', text: "key || ': ' || value" },
  { kind: 'episodes', table: 'episodes', prefix: 'ep', text: 'summary' },
  { kind: 'wiki', table: 'wiki_pages', prefix: 'wiki', text: 'title' },
  { kind: 'timeline', table: 'timeline_events', prefix: 'evt', text: "type || ': ' || summary" },
];

/**
 * Today's activity by the clock (UTC day): counts and the DAY_DIGEST_NEWEST newest facts,
 * episodes, wiki pages and timeline events created today. A read: it records nothing.
 */
export function dayDigest(ctx: StoreContext, scope: Scope, newest = DAY_DIGEST_NEWEST): DayDigest {
  checkScope(scope);
  const now = ctx.clock.now();
  const dayStart = isoOf(now - (((now % DAY_MS) + DAY_MS) % DAY_MS));
  const counts = {} as Record<DayDigestKind, number>;
  const items = {} as Record<DayDigestKind, DayDigestItem[]>;
  for (const k of KINDS) {
    counts[k.kind] = ctx.stmt(`SELECT COUNT(*) FROM ${k.table} WHERE layer = ? AND user_id = ? AND created >= ?`).pluck(true).get(scope.layer, scope.user_id, dayStart) as number;
    const rows = ctx
      .stmt(`SELECT id, ${k.text} AS text, created FROM ${k.table} WHERE layer = ? AND user_id = ? AND created >= ? ORDER BY created DESC, id DESC LIMIT ?`)
      .all(scope.layer, scope.user_id, dayStart, Math.max(0, Math.floor(newest))) as { id: number; text: string; created: string }[];
    items[k.kind] = rows.map((r) => ({ id: makeId(k.prefix, r.id), text: r.text, created: r.created }));
  }
  return { day_start: dayStart, counts, newest: items };
}
