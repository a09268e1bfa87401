import type { Stores } from './stores.js';
import type { Scope } from './types.js';

/** What a forget (exact, fuzzy) cleared in the records that pointed at, or copied, what it deleted. */
export interface LinksCleaned {
  /** Branch entries that copied a deleted fact (dropped, or kept as the branch's own addition). */
  branch_entries: number;
  /** Pending proposals whose write holds the forgotten text (they would write it back when approved). */
  proposals: number;
  /** Reflections whose most-recalled list named a deleted fact or episode, or whose recurring terms were its words (those removed). */
  reflections: number;
  /** L3 to L4 promotions of a deleted fact, their copy of its value blanked. */
  transitions: number;
}

/**
 * After forget exact or fuzzy deleted facts and episodes: the records of the later kinds that point
 * at them or copy their text are cleaned, so none holds a dangling reference that would bring the
 * text back (a branch merge, a proposal approved) or show it (a reflection, a transition):
 * BranchStore.forgetFacts, ProposalStore.deletePendingWhere with `holds` (the forget's own test of
 * a text), ReflectionStore.forget, TransitionStore.forgetEntries. Run inside the forget's transaction.
 */
export function cleanForgottenLinks(
  s: Stores,
  scope: Scope,
  gone: {
    facts: readonly { key: string; value: string; entry_id: string }[];
    episodeIds: readonly string[];
    /** The forget's test of a text (exact: carries the value; fuzzy: holds the pattern). */
    holds: (text: string) => boolean;
    /** The forgotten texts (values and summaries, or the pattern), whose words a reflection's recurring terms drop. */
    texts: readonly string[];
  },
): LinksCleaned {
  const proposals = s.proposals.deletePendingWhere(scope, (p) => {
    const w = p.payload;
    return w.kind === 'core_write' ? gone.holds(w.value) || gone.facts.some((f) => f.key === w.key && f.value === w.value) : gone.holds(w.title) || gone.holds(w.content);
  }).length;
  return {
    branch_entries: s.branches.forgetFacts(scope, gone.facts),
    proposals,
    reflections: s.reflections.forget(scope, new Set([...gone.facts.map((f) => f.entry_id), ...gone.episodeIds]), gone.texts),
    transitions: s.transitions.forgetEntries(scope, gone.facts.map((f) => f.entry_id)),
  };
}
