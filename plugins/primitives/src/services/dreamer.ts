import { fitToBudget, searchDistinct, type BudgetSection, type Intent, type RecallEventInput, type Scope, type Stores, type TimelineEvent } from '@memory-service/stores';
import { invalid, isBlank } from '@memory-service/kernel';
import { excerpt } from '../common.js';

/** dream with intent recent puts this many of the latest timeline events first. */
export const RECENT_EVENTS = 5;

export interface DreamInput extends Scope {
  query: string;
  limit: number;
  intent: Intent;
  /** Add the ranked hits as a list (off by default: the summary's headings name each hit). */
  hits?: boolean;
  /** Add each hit's score as its weighted parts; implies `hits` (off by default: most callers read the summary). */
  explain?: boolean;
}

/** A hit's score as the sum of its weighted signals (bm25 + importance + recency + access = score). */
export interface DreamExplain {
  bm25: number;
  importance: number;
  recency: number;
  access: number;
}

export interface DreamResult {
  summary: string;
  truncated: boolean;
  result_count: number;
  estimated_tokens: number;
  /** When asked (`hits` or `explain`), and when the summary names none of the hits (over the token budget). */
  hits?: { source: string; id: string; score: number; title?: string; created: string; explain?: DreamExplain }[];
  recent_events?: { id: string; type: string; summary: string; created: string }[];
}

function eventSection(events: TimelineEvent[]): BudgetSection {
  return {
    title: 'Recent events',
    text: events.map((e) => `- ${e.created} [${e.type}] ${excerpt(e.summary, 200)}`).join('\n'),
  };
}

/** The read primitive: hybrid retrieval, Markdown sections cut to the token budget, telemetry. */
export class Dreamer {
  constructor(
    private readonly stores: Stores,
    private readonly budget: number,
  ) {}

  /**
   * Queue the recall_events row. Its own method, so the queued closure holds the row alone: made in
   * dream(), it held dream's whole scope (the hits and their texts) until the batch was written, and
   * every young-generation collection in between had to copy them.
   */
  private recordLater(scope: Scope, event: RecallEventInput): void {
    this.stores.defer(() => this.stores.recallEvents.record(scope, event));
  }

  /**
   * The summary when no section fits: no match at all, or hits whose first heading alone (a wiki
   * title runs to 300 characters) is over a small token budget, which must not read as no match.
   */
  private emptySummary(query: string, hits: number): string {
    if (hits === 0) return `No memories match "${excerpt(query, 80)}".`;
    return `${hits} ${hits === 1 ? 'memory matches' : 'memories match'}, but the first does not fit the token budget (${this.budget} tokens, retrieval.token_budget): see hits.`;
  }

  dream(input: DreamInput): DreamResult {
    const started = performance.now();
    if (isBlank(input.query)) throw invalid('query', 'must not be empty or only white space and invisible characters', 'text with a visible character');
    const scope: Scope = { layer: input.layer, user_id: input.user_id };
    // Distinct memories: a hit whose text stands in a better one's is dropped, and retrieval asked again for more when that leaves fewer than the limit.
    const hits = searchDistinct(this.stores.retrieval, scope, input.query, input.limit, { intent: input.intent });
    const sections: BudgetSection[] = [];
    let events: TimelineEvent[] = [];
    if (input.intent === 'recent') {
      events = this.stores.timeline.latest(scope, RECENT_EVENTS);
      if (events.length) sections.push(eventSection(events));
    }
    for (const h of hits) {
      // Each heading names the hit: its title and id where it has a title (a fact's key, a page's
      // title, a node's type), its id otherwise. ASCII separators: a summary of ASCII memories stays
      // ASCII, which JSON and UTF-8 handle faster on both ends.
      const name = h.title ? `${h.title} (${h.id})` : h.id;
      sections.push({ title: `[${h.source}] ${name} | ${h.created.slice(0, 10)} | score ${h.score.toFixed(3)}`, text: h.text });
    }
    const fitted = fitToBudget(sections, this.budget);
    // Hits the summary names: sections are kept in order, the hits' after the events section if any.
    const named = Math.max(0, fitted.sections.length - (sections.length - hits.length));
    const summary = fitted.sections.map((s) => (s.title ? `## ${s.title}\n${s.text}` : s.text)).join('\n\n');
    const ms = Math.round((performance.now() - started) * 1000) / 1000;
    // Access counts and the recall_events row are bookkeeping: batched off the answer's path.
    this.stores.noteAccess(hits);
    this.recordLater(scope, { query: input.query, intent: input.intent, result_count: hits.length, ms });
    return {
      summary: summary || this.emptySummary(input.query, hits.length),
      truncated: fitted.truncated,
      result_count: hits.length,
      estimated_tokens: fitted.tokens,
      // The list repeats what the headings say, outside the token budget: for programs, when asked,
      // and when the summary could name none of the hits (the first one's section alone is over the budget).
      ...(input.hits || input.explain || (named === 0 && hits.length > 0)
        ? {
            hits: hits.map((h) => ({
              source: h.source,
              id: h.id,
              score: h.score,
              ...(h.title ? { title: h.title } : {}),
              created: h.created,
              ...(input.explain ? { explain: { bm25: h.explain.bm25, importance: h.explain.importance, recency: h.explain.recency, access: h.explain.access } } : {}),
            })),
          }
        : {}),
      ...(input.intent === 'recent'
        ? { recent_events: events.map((e) => ({ id: e.id, type: e.type, summary: excerpt(e.summary, 200), created: e.created })) }
        : {}),
    };
  }
}
