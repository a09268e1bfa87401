import { fitToBudget, type BudgetSection, type Hit, type Intent, type RecallEventInput, type Scope, type Stores, type TimelineEvent } from '@memory-service/stores';
import { invalid, isBlank, toNfc } from '@memory-service/kernel';
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

/**
 * In NFC, lower-cased, each run of white space one space, trimmed (a text with no run and no tab or
 * line break skips the replace): a copy of a memory with decomposed accents (macOS, some keyboards)
 * is the same text. toNfc reads a text below U+0300 (ASCII, Latin-1) once and gives it back as it
 * is, so the common case pays one scan, not a normalisation.
 */
function normal(s: string): string {
  const lower = toNfc(s).toLowerCase();
  return (/\s{2}|[^\S ]/.test(lower) ? lower.replace(/\s+/g, ' ') : lower).trim();
}

/** A letter, digit or mark at the start or end of a text: a word goes on across the join. */
const WORD_START = /^[\p{L}\p{N}\p{M}]/u;
const WORD_END = /[\p{L}\p{N}\p{M}]$/u;

/**
 * Whether `inner` stands in `outer` as whole words: "the cat" does not stand in "the caterpillar",
 * nor "code is 45" in "code is 4512" (another memory, which dropping would lose). Two units each
 * side keep a surrogate pair whole.
 */
export function standsIn(outer: string, inner: string): boolean {
  const start = WORD_START.test(inner);
  const end = WORD_END.test(inner);
  for (let i = outer.indexOf(inner); i !== -1; i = outer.indexOf(inner, i + 1)) {
    if (start && WORD_END.test(outer.slice(Math.max(0, i - 2), i))) continue;
    const after = i + inner.length;
    if (end && WORD_START.test(outer.slice(after, after + 2))) continue;
    return true;
  }
  return false;
}

/**
 * Drop a hit whose whole text already stands inside a better-ranked hit, as whole words (a relation node made
 * from the same thought as an episode, say), so the limit is spent on distinct memories; keep at
 * most `limit` (built by push, not sliced: one array shape for V8 whatever the tier).
 */
export function collapseRedundant(hits: Hit[], limit = Infinity): Hit[] {
  const kept: Hit[] = [];
  const texts: string[] = [];
  for (const h of hits) {
    if (kept.length >= limit) break;
    const t = normal(h.text);
    // A text longer than a kept one cannot stand inside it: no search through it.
    if (t && texts.some((k) => k.length >= t.length && k.includes(t) && standsIn(k, t))) continue;
    kept.push(h);
    texts.push(t);
  }
  return kept;
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
    // A few extra hits make up for the ones collapseRedundant drops.
    const raw = this.stores.retrieval.search(scope, input.query, { limit: input.limit + Math.ceil(input.limit / 5), intent: input.intent });
    const hits = collapseRedundant(raw, input.limit);
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
