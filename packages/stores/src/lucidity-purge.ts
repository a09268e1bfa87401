import type { Stores } from './stores.js';
import { validationError } from './errors.js';
import type { Scope } from './types.js';
import { recentWindow } from './iso-time.js';
import { checkScope } from './util.js';
import type { WikiPageInfo } from './wiki.js';

/** The longest window an emergency purge takes, in hours (30 days); older memories are forget's or memory_cleanup's. */
export const PURGE_HOURS_MAX = 720;

/** The records of the kinds named after the memory stores that a window purge deleted, per kind. */
export interface RecordsPurged {
  counterfactuals: number;
  procedures: number;
  stashes: number;
  branches: number;
  reflections: number;
  disclosure_rules: number;
  watch_rules: number;
  standing_queries: number;
  /** Pending proposals staged in the window (decided ones stay: their writes are the stores' own). */
  proposals: number;
  /** L3 to L4 promotions made in the window (a reverted one stays, without its value). */
  transitions: number;
}

/**
 * The window purge of a scope's other records (forget recent and memory_lucidity_purge): each kind's
 * records created at or after `since` (a record created earlier and only changed since stays, as
 * for facts), through each store's deleteSince; standing query files go once the open transaction
 * commits. Run inside the caller's transaction.
 */
export function purgeRecordsSince(s: Stores, scope: Scope, since: string): RecordsPurged {
  return {
    counterfactuals: s.counterfactuals.deleteSince(scope, since),
    procedures: s.procedures.deleteSince(scope, since),
    stashes: s.stashes.deleteSince(scope, since),
    branches: s.branches.deleteSince(scope, since),
    reflections: s.reflections.deleteSince(scope, since),
    disclosure_rules: s.disclosure.deleteSince(scope, since),
    watch_rules: s.watchRules.deleteSince(scope, since),
    standing_queries: s.standing.deleteSince(scope, since),
    proposals: s.proposals.deletePendingSince(scope, since),
    transitions: s.transitions.deleteSince(scope, since),
  };
}

/** What one emergency purge deleted, per store. */
export interface PurgeResult {
  since: string;
  hours: number;
  deleted_l4: number;
  deleted_l3: number;
  deleted_graph: number;
  /** Graph edges created in the window, and older ones joining a node deleted with it. */
  deleted_graph_edges: number;
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
  deleted_counterfactuals: number;
  deleted_procedures: number;
  deleted_stashes: number;
  deleted_branches: number;
  deleted_reflections: number;
  deleted_disclosure_rules: number;
  deleted_watch_rules: number;
  deleted_standing_queries: number;
  /** L3 to L4 promotions of the window (memory_transitions; a reverted one stays without its value). */
  deleted_transitions: number;
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
    const since = recentWindow(s.ctx.clock.now(), hours * 3_600_000).since;
    // The telemetry of the dream calls just made is queued: written now, it is there to delete.
    s.writeDeferred();
    let changes: [number, number] = [0, 0];
    const result = s.transaction((): PurgeResult => {
      const before = s.retrieval.changeSeq();
      const deleted_audit = s.audit.deleteSince(scope, since);
      const pages = s.wiki.deleteSince(scope, since, isProjectSpec);
      // A page's delete row names its title and path: the purge keeps none of the window's words.
      if (pages.length > 0) s.audit.redact(scope, pages.map((p) => p.id), 'lucidity_purge');
      const other = purgeRecordsSince(s, scope, since);
      const graph = s.graph.purgeSince(scope, since);
      const counts = {
        deleted_l4: s.facts.deleteSince(scope, since),
        deleted_l3: s.episodes.deleteSince(scope, since),
        deleted_graph: graph.nodes,
        deleted_graph_edges: graph.edges,
        deleted_wiki: pages.length,
        deleted_l1: s.l1.deleteSince(scope, since),
        deleted_timeline: s.timeline.deleteSince(scope, since),
        deleted_recall_events: s.recallEvents.deleteSince(scope, since),
        deleted_audit,
        deleted_scratchpad: s.scratchpad.deleteSince(scope, since),
        deleted_proposals: other.proposals,
        scrubbed_sessions: s.sessions.scrubEndedSince(scope, since),
        deleted_counterfactuals: other.counterfactuals,
        deleted_procedures: other.procedures,
        deleted_stashes: other.stashes,
        deleted_branches: other.branches,
        deleted_reflections: other.reflections,
        deleted_disclosure_rules: other.disclosure_rules,
        deleted_watch_rules: other.watch_rules,
        deleted_standing_queries: other.standing_queries,
        deleted_transitions: other.transitions,
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
