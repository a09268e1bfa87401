import { estimateTokens, type Scope, type Stores } from '@memory-service/stores';
import { excerpt } from './text.js';

/** memory_context's listing: the spec's top 10 facts, and as many of each other part. */
export const CONTEXT_FACTS = 10;
export const CONTEXT_TURNS = 10;
export const CONTEXT_WIKI = 5;
export const CONTEXT_EPISODES = 5;

export const CONTEXT_PARTS = ['facts', 'turns', 'wiki', 'episodes'] as const;
export type ContextPart = (typeof CONTEXT_PARTS)[number];

const TITLES: Record<ContextPart, string> = {
  facts: 'Core facts',
  turns: 'Recent turns',
  wiki: 'Wiki',
  episodes: 'Episodes',
};

export interface ContextSummary {
  /** Markdown: a heading, then one `##` section per part that has lines, in CONTEXT_PARTS order. */
  summary: string;
  /** Lines of each part in the summary (after the budget cut). */
  counts: Record<ContextPart, number>;
  estimated_tokens: number;
  /** True when a line did not fit the budget (it and everything after it are left out). */
  truncated: boolean;
}

/**
 * The lines of each part, most useful first: L4 facts by importance (ties newest), the L1 ring's
 * newest turns (oldest first), the most recently updated wiki pages, the newest episodes that are
 * not the reference of a listed turn (think writes a thought to both).
 */
export function contextLines(stores: Stores, scope: Scope): Record<ContextPart, string[]> {
  const facts = stores.facts.list(scope, { limit: CONTEXT_FACTS }).map((f) => `- ${f.key}: ${excerpt(f.value)} (importance ${f.importance})`);
  const turnItems = stores.l1.list(scope, CONTEXT_TURNS);
  const turns = turnItems.map((t) => `- ${t.created}: ${excerpt(t.text)}`);
  const wiki = stores.wiki.list(scope, { limit: CONTEXT_WIKI }).map((p) => `- ${p.title} (${p.wiki_type}, updated ${p.updated}): ${p.path}`);
  const shown = new Set(turnItems.map((t) => t.ref).filter((r): r is string => r !== null));
  const episodes = stores.episodes
    .list(scope, { limit: CONTEXT_EPISODES + shown.size })
    .filter((e) => !shown.has(e.id))
    .slice(0, CONTEXT_EPISODES)
    .map((e) => `- ${e.created} ${e.id}: ${excerpt(e.summary)}`);
  return { facts, turns, wiki, episodes };
}

/**
 * Fit the parts to a token budget by the stores' estimator: lines are taken whole, in order; the
 * first line that does not fit (with its section heading when it opens one) ends the summary.
 */
export function fitContext(title: string, parts: Record<ContextPart, string[]>, budget: number): ContextSummary {
  const counts: Record<ContextPart, number> = { facts: 0, turns: 0, wiki: 0, episodes: 0 };
  let text = `# ${title}\n`;
  let truncated = estimateTokens(text) > budget;
  if (truncated) text = '';
  for (const part of CONTEXT_PARTS) {
    if (truncated) break;
    for (const [i, line] of parts[part].entries()) {
      const next = `${text}${i === 0 ? `\n## ${TITLES[part]}\n` : ''}${line}\n`;
      if (estimateTokens(next) > budget) {
        truncated = true;
        break;
      }
      text = next;
      counts[part]++;
    }
  }
  return { summary: text, counts, estimated_tokens: estimateTokens(text), truncated };
}

export function buildContext(stores: Stores, scope: Scope, budget: number): ContextSummary {
  return fitContext(`Context: ${scope.layer} layer, user ${scope.user_id}`, contextLines(stores, scope), budget);
}
