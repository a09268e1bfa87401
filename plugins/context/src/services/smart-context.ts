import type { Clock } from '@memory-service/kernel';
import { fitToBudget, searchDistinct, type Scope, type Stores } from '@memory-service/stores';
import { excerpt, titledText } from './text.js';

export const SMART_SOURCES = ['important', 'relevant', 'recent', 'day', 'ops'] as const;
export type SmartSource = (typeof SMART_SOURCES)[number];

/** The spec's weights, in percent. */
export const SMART_WEIGHTS: Readonly<Record<SmartSource, number>> = Object.freeze({ important: 30, relevant: 30, recent: 15, day: 15, ops: 10 });

export interface Allocation {
  weight: number;
  /** floor(budget * weight / 100). */
  floor: number;
  /** Twice the floor: the most a source can get after redistribution. */
  ceiling: number;
  /** Tokens of everything the source has to offer. */
  demand: number;
  /** Tokens granted: min(demand, floor), then a share of the leftover, never above the ceiling. */
  allocated: number;
  /** Tokens of the block as cut to its allocation. */
  used: number;
}

/**
 * Split a budget between the five sources. Each first gets min(demand, floor), floor =
 * floor(budget * weight / 100). The leftover (the budget minus what was granted) is then handed out
 * in rounds to the sources still short of min(demand, ceiling), ceiling = 2 x floor: each gets
 * floor(leftover * its weight / the weights of those sources), at least 1 token while leftover
 * remains, in SMART_SOURCES order, capped at what it still needs; rounds repeat until the leftover
 * is gone or nobody needs more. Tokens nobody can take stay unallocated.
 */
export function allocate(budget: number, demand: Readonly<Record<SmartSource, number>>): Record<SmartSource, Omit<Allocation, 'used'>> {
  const out = {} as Record<SmartSource, Omit<Allocation, 'used'>>;
  let left = budget;
  for (const s of SMART_SOURCES) {
    const weight = SMART_WEIGHTS[s];
    const floor = Math.floor((budget * weight) / 100);
    const allocated = Math.min(demand[s], floor);
    out[s] = { weight, floor, ceiling: 2 * floor, demand: demand[s], allocated };
    left -= allocated;
  }
  const need = (s: SmartSource) => Math.min(out[s].demand, out[s].ceiling) - out[s].allocated;
  while (left > 0) {
    const wanting = SMART_SOURCES.filter((s) => need(s) > 0);
    if (wanting.length === 0) break;
    const weights = wanting.reduce((sum, s) => sum + SMART_WEIGHTS[s], 0);
    const pool = left;
    for (const s of wanting) {
      if (left === 0) break;
      const share = Math.max(1, Math.floor((pool * SMART_WEIGHTS[s]) / weights));
      const give = Math.min(share, need(s), left);
      out[s].allocated += give;
      left -= give;
    }
  }
  return out;
}

export interface SmartBlock {
  source: SmartSource;
  title: string;
  text: string;
  items: number;
  tokens: number;
  truncated: boolean;
}

export interface SmartContext {
  budget: number;
  query: string;
  blocks: SmartBlock[];
  allocations: Record<SmartSource, Allocation>;
  total_tokens: number;
}

/** Items read per source before the cut. */
export const SMART_ITEMS = 20;

/**
 * memory_get_smart_context's sources, from the stores:
 * - important: L4 facts of the scope by importance (ties newest);
 * - relevant: dream's retrieval (hybrid search over L3, L4, wiki, graph, balanced intent) for the
 *   query; nothing without a query;
 * - recent: the L1 ring's newest turns, oldest first;
 * - day: the scope's timeline events since 00:00 UTC of the injected clock's day;
 * - ops: the open session, the scratchpad entries, and the 5 projects (global; archived ones left
 *   out) most recently touched.
 * Each is a list of one-line items; a block keeps whole items while they fit its allocation, and
 * cuts the first that does not when at least 8 tokens of it fit (the stores' fitToBudget).
 */
export class SmartContextBuilder {
  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
  ) {}

  items(scope: Scope, query: string): Record<SmartSource, string[]> {
    const s = this.stores;
    const important = s.facts.list(scope, { limit: SMART_ITEMS }).map((f) => `${f.key}: ${excerpt(f.value)} (importance ${f.importance})`);
    // Distinct memories, as dream answers them (a fact's graph node from memory_remember left out).
    const relevant = query.trim() === '' ? [] : searchDistinct(s.retrieval, scope, query, SMART_ITEMS).map((h) => `[${h.source} ${h.id}] ${excerpt(titledText(h))}`);
    const recent = s.l1.list(scope, SMART_ITEMS).map((t) => `${t.created}: ${excerpt(t.text)}`);
    const day0 = new Date(this.clock.now());
    day0.setUTCHours(0, 0, 0, 0);
    const dayEvents = s.timeline.since(scope, day0.toISOString(), 1000);
    const day = dayEvents.slice(-SMART_ITEMS).map((e) => `${e.created} ${e.type}: ${excerpt(e.summary)}`);
    const ops: string[] = [];
    const session = s.sessions.current(scope);
    if (session) ops.push(`open session ${session.id} since ${session.started}`);
    for (const e of s.scratchpad.read(scope)) ops.push(`scratchpad ${e.key}: ${excerpt(e.content)}`);
    for (const p of s.projects.list(10).filter((x) => x.status !== 'archived').slice(0, 5)) ops.push(`project ${p.name} (${p.status}), updated ${p.updated}${p.description ? `: ${excerpt(p.description, 160)}` : ''}`);
    return { important, relevant, recent, day, ops };
  }

  build(scope: Scope, query: string, budget: number): SmartContext {
    const items = this.items(scope, query);
    const sections = (s: SmartSource) => items[s].map((text) => ({ text: `- ${text}` }));
    const demand = {} as Record<SmartSource, number>;
    for (const s of SMART_SOURCES) demand[s] = fitToBudget(sections(s), Number.MAX_SAFE_INTEGER).tokens;
    const granted = allocate(budget, demand);
    const blocks: SmartBlock[] = [];
    const allocations = {} as Record<SmartSource, Allocation>;
    for (const s of SMART_SOURCES) {
      const fit = fitToBudget(sections(s), granted[s].allocated);
      allocations[s] = { ...granted[s], used: fit.tokens };
      if (fit.sections.length === 0) continue;
      blocks.push({ source: s, title: TITLES[s], text: fit.sections.map((x) => x.text).join('\n'), items: fit.sections.length, tokens: fit.tokens, truncated: fit.truncated });
    }
    return { budget, query, blocks, allocations, total_tokens: blocks.reduce((n, b) => n + b.tokens, 0) };
  }
}

const TITLES: Record<SmartSource, string> = {
  important: 'Important facts',
  relevant: 'Relevant to the query',
  recent: 'Recent turns',
  day: 'Today',
  ops: 'Open work',
};
