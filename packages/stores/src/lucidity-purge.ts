import type { Stores } from './stores.js';
import { validationError } from './errors.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';
import type { WikiPageInfo } from './wiki.js';

/** The longest window an emergency purge takes, in hours (30 days); older memories are forget's or memory_cleanup's. */
export const PURGE_HOURS_MAX = 720;

/** What one emergency purge deleted, per store. */
export interface PurgeResult {
  since: string;
  hours: number;
  deleted_l4: number;
  deleted_l3: number;
  deleted_graph: number;
  deleted_wiki: number;
  deleted_l1: number;
  deleted_timeline: number;
  deleted_recall_events: number;
  deleted_audit: number;
  deleted_scratchpad: number;
  /** Staging: pending proposals staged in the window. */
  deleted_proposals: number;
  /** Sessions that ended in the window whose summary, topics and state deltas were cleared (the rows stay). */
  scrubbed_sessions: number;
}

/** A project's spec page belongs to the project, which is global: a scope's purge spares it, as forget recent does. */
function isProjectSpec(page: WikiPageInfo): boolean {
  return page.wiki_type === 'project_spec' && page.tags.includes('project');
}

/**
 * The emergency purge (memory_lucidity_purge): everything the scope wrote in the last `hours`, by
 * the stores' own time-window deletes (the ones forget recent uses), so the retrieval log, the
 * L1 file and the wiki files follow as they do there. Nothing is archived: the point is that the
 * window's content is gone. The audit rows of the window go first; the purge then leaves its own
 * content-free trail (the stores' delete_since rows and one lucidity_purge row).
 */
export class LucidityPurge {
  constructor(private readonly stores: Stores) {}

  purge(scope: Scope, hours: number): PurgeResult {
    checkScope(scope);
    if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > PURGE_HOURS_MAX) {
      throw validationError('hours', `hours must be a number above 0 and at most ${PURGE_HOURS_MAX}`, `0 < hours <= ${PURGE_HOURS_MAX}`);
    }
    const s = this.stores;
    const since = new Date(s.ctx.clock.now() - hours * 3_600_000).toISOString();
    // The telemetry of the dream calls just made is queued: written now, it is there to delete.
    s.writeDeferred();
    let changes: [number, number] = [0, 0];
    const result = s.transaction((): PurgeResult => {
      const before = s.retrieval.changeSeq();
      const deleted_audit = s.audit.deleteSince(scope, since);
      const pages = s.wiki.deleteSince(scope, since, isProjectSpec);
      // A page's delete row names its title and path: the purge keeps none of the window's words.
      if (pages.length > 0) s.audit.redact(scope, pages.map((p) => p.id), 'lucidity_purge');
      const counts = {
        deleted_l4: s.facts.deleteSince(scope, since),
        deleted_l3: s.episodes.deleteSince(scope, since),
        deleted_graph: s.graph.deleteSince(scope, since),
        deleted_wiki: pages.length,
        deleted_l1: s.l1.deleteSince(scope, since),
        deleted_timeline: s.timeline.deleteSince(scope, since),
        deleted_recall_events: s.recallEvents.deleteSince(scope, since),
        deleted_audit,
        deleted_scratchpad: s.scratchpad.deleteSince(scope, since),
        deleted_proposals: s.proposals.deletePendingSince(scope, since),
        scrubbed_sessions: s.sessions.scrubEndedSince(scope, since),
      };
      s.audit.log(scope, 'lucidity_purge', 'scope', `since:${since}`, { hours, ...counts });
      changes = [before, s.retrieval.changeSeq()];
      return { since, hours, ...counts };
    });
    // The change log's copies of the deleted texts go once the indexes here have taken them in.
    if (changes[1] > changes[0]) s.retrieval.dropOldTexts(changes[0], changes[1]);
    return result;
  }
}
