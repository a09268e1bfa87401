import { cutChars, type Clock } from '@memory-service/kernel';
import type { Stores } from './stores.js';
import type { Scope } from './types.js';

/** Episodes above this importance are carried into L4 (the think routing's L4 threshold, "above 0.7"). */
export const CONSOLIDATION_MIN_IMPORTANCE = 0.7;
/** How many of the scope's newest episodes one consolidation looks at. */
export const CONSOLIDATION_WINDOW = 200;

export interface ConsolidationResult {
  /** One per promoted episode; transition_id is its memory_transitions row (revertible through memory_proposals revert_transition). */
  consolidated: { episode_id: string; key: string; entry_id: string; transition_id: string }[];
  /** ISO time of this run, by the injected clock. */
  ts: string;
}

/**
 * L3 to L4 consolidation, deterministic: of the scope's CONSOLIDATION_WINDOW newest episodes, each
 * with importance above CONSOLIDATION_MIN_IMPORTANCE whose summary no fact of the scope holds
 * verbatim becomes a fact (oldest first): value = the summary, importance = the episode's,
 * source `episode_promotion`, metadata.from_episode = the episode id, key `episode:<first words>` in
 * its family (FactStore.keyFor), so it never overwrites another fact. A second run finds every such
 * summary held and writes nothing. The episode stays. Each promotion is recorded in
 * memory_transitions (TransitionStore); an episode whose promotion was reverted is not promoted
 * again. One transaction.
 */
export class Consolidator {
  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
  ) {}

  consolidate(scope: Scope): ConsolidationResult {
    const ts = new Date(this.clock.now()).toISOString();
    const consolidated = this.stores.transaction(() => {
      const out: ConsolidationResult['consolidated'] = [];
      const candidates = this.stores.episodes
        .list(scope, { limit: CONSOLIDATION_WINDOW })
        .filter((e) => e.importance > CONSOLIDATION_MIN_IMPORTANCE)
        .reverse();
      for (const ep of candidates) {
        if (this.stores.facts.holding(scope, ep.summary).length > 0) continue;
        if (this.stores.transitions.wasReverted(scope, ep.id)) continue;
        const key = this.stores.facts.keyFor(scope, `episode:${keyWords(ep.summary)}`, ep.summary);
        const fact = this.stores.facts.upsert(scope, {
          key,
          value: ep.summary,
          importance: ep.importance,
          source: 'episode_promotion',
          metadata: { from_episode: ep.id },
        });
        const t = this.stores.transitions.record(scope, { episode_id: ep.id, entry_id: fact.entry_id, key, value: fact.value });
        out.push({ episode_id: ep.id, key, entry_id: fact.entry_id, transition_id: t.id });
      }
      return out;
    });
    return { consolidated, ts };
  }
}

/** Key slug words: letters and digits, accents on Latin letters folded, lower case. */
export function keyWords(text: string, n = 6): string {
  const words = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return cutChars(words.slice(0, n).join('-'), 80).replace(/-+$/, '') || 'note';
}
