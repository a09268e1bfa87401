import { isBlank } from '@memory-service/kernel';
import { comparableText, DISCLOSURE_MATCH_SCORE, DREAM_MARKER_TAG, fitToBudget, recentWindow, searchDistinct, standsInAny, type Hit, type Scope, type Stores } from '@memory-service/stores';
import { excerpt, titledText } from './text.js';

/** Dream markers listed at most (newest first). */
export const MARKERS_MAX = 10;
/** Hits of the semantic axis (the dream retrieval). */
export const SEMANTIC_LIMIT = 10;
/** Neighbouring records the expand axis adds at most. */
export const EXPAND_MAX = 10;
/** Open gaps the recap looks back over: a week, so gaps of the last days are not lost over a weekend. */
export const RECAP_GAP_HOURS = 7 * 24;
/** Scratchpad notes, open gaps and pending proposals the recap lists at most, each. */
export const RECAP_LIST_MAX = 10;

/** One record of a block: its store (l3, l4, wiki, graph, timeline, session, scratchpad, gap, proposal, rule) and id. */
export interface BlockItem {
  source: string;
  id: string;
  text: string;
}

export interface Block {
  /** The axis (recall protocol) or part (recap) the block belongs to. */
  kind: string;
  title: string;
  /** Lines before the items (a session's summary, a digest's counts). */
  lead?: string;
  items: BlockItem[];
  score?: number;
}

export interface RenderedBlock {
  kind: string;
  title: string;
  text: string;
  score: number | null;
  items: { source: string; id: string }[];
  truncated: boolean;
}

export interface Rendered {
  text: string;
  blocks: RenderedBlock[];
  estimated_tokens: number;
  truncated: boolean;
}

const key = (i: { source: string; id: string }) => `${i.source}:${i.id}`;

/**
 * The stores whose item text is a whole memory (an episode's summary, a fact's `key: value`, a node's
 * content, with a title before it at most): the ones compared by text. A day block's wiki item is
 * only a page's title, a session's or a timeline event's text is not a memory another store copies.
 */
const TEXT_SOURCES: ReadonlySet<string> = new Set(['l3', 'l4', 'graph']);

/**
 * Items not yet shown, marking them shown: by source and id, and for a memory (TEXT_SOURCES) by text
 * as collapseRedundant compares hits (comparableText of the item's store, then standsInAny: its
 * memory standing, as whole words, in one shown before, or a cut copy of it), so a remembered fact
 * whose graph node an earlier block showed (the same `key: value`) is not shown again, nor an
 * auto-save's episode after its `auto:` fact, nor that fact after the episode.
 */
export class Seen {
  private readonly keys = new Set<string>();
  private readonly texts: string[] = [];
  keep(items: BlockItem[]): BlockItem[] {
    return items.filter((i) => {
      const k = key(i);
      if (this.keys.has(k)) return false;
      if (TEXT_SOURCES.has(i.source)) {
        const t = comparableText(i.text, i.source);
        if (standsInAny(this.texts, t)) return false;
        this.texts.push(t);
      }
      this.keys.add(k);
      return true;
    });
  }
}

function blockText(b: Block): string {
  const lines = b.items.map((i) => `- [${i.source} ${i.id}] ${excerpt(i.text)}`);
  return [b.lead, ...lines].filter((l) => l !== undefined && l !== '').join('\n');
}

/** Blocks with something to show, as `## title` sections cut to the budget (fitToBudget: in order, the first that does not fit is cut). */
export function render(blocks: Block[], budget: number): Rendered {
  const shown = blocks.filter((b) => b.items.length > 0 || (b.lead ?? '') !== '');
  const sections = shown.map((b) => ({ title: b.title, text: blockText(b) }));
  const fitted = fitToBudget(sections, budget);
  return {
    text: fitted.sections.map((s) => `## ${s.title}\n${s.text}`).join('\n\n'),
    blocks: fitted.sections.map((s, i) => {
      const b = shown[i]!;
      const cut = s.text !== sections[i]!.text;
      // A cut block names only the items whose line it still holds.
      const items = cut ? b.items.filter((it) => s.text.includes(`[${it.source} ${it.id}]`)) : b.items;
      return { kind: b.kind, title: b.title, text: s.text, score: b.score ?? null, items: items.map((it) => ({ source: it.source, id: it.id })), truncated: cut };
    }),
    estimated_tokens: fitted.tokens,
    truncated: fitted.truncated,
  };
}

/** The enabled disclosure rules the text triggers, as one block with score 0.95. */
export function triggeredBlock(stores: Stores, scope: Scope, text: string): Block {
  const rules = isBlank(text) ? [] : stores.disclosure.matching(scope, text);
  return {
    kind: 'triggered',
    title: 'Triggered disclosures',
    score: DISCLOSURE_MATCH_SCORE,
    items: rules.map((r) => ({ source: 'rule', id: r.rule_id, text: `${r.name}: ${r.content}` })),
  };
}

/** The scope's newest dream markers (episodes tagged dream_marker). */
export function markersBlock(stores: Stores, scope: Scope, seen: Seen): Block {
  const eps = stores.episodes.list(scope, { tag: DREAM_MARKER_TAG, limit: MARKERS_MAX });
  return { kind: 'markers', title: 'Dream markers', items: seen.keep(eps.map((e) => ({ source: 'l3', id: e.id, text: e.summary }))) };
}

/** The last closed session (summary, topics, state deltas), and with `withOpen` the open one when there is. */
export function sessionBlock(stores: Stores, scope: Scope, seen: Seen, withOpen: boolean): Block {
  const last = stores.sessions.lastClosed(scope);
  const open = withOpen ? stores.sessions.current(scope) : null;
  const items: BlockItem[] = [];
  if (last) {
    const parts = [`closed ${last.ended}: ${last.summary ?? ''}`];
    if (last.topics.length) parts.push(`topics: ${last.topics.join(', ')}`);
    const deltas = JSON.stringify(last.state_deltas ?? {});
    if (deltas !== '{}' && deltas !== 'null') parts.push(`state deltas: ${deltas}`);
    items.push({ source: 'session', id: last.id, text: parts.join(' | ') });
  }
  if (open) items.push({ source: 'session', id: open.id, text: `open since ${open.started}` });
  return { kind: 'session', title: 'Last session', items: seen.keep(items) };
}

/**
 * Distinct hits of the dream retrieval for the query, collapsed and refilled as dream's are (a hit whose
 * text stands in a better one's left out); reads only (no access counts, no recall_events row).
 */
export function semanticHits(stores: Stores, scope: Scope, query: string): Hit[] {
  return isBlank(query) ? [] : searchDistinct(stores.retrieval, scope, query, SEMANTIC_LIMIT);
}

export function semanticBlock(hits: Hit[], seen: Seen): Block {
  return { kind: 'semantic', title: 'Relevant memories', items: seen.keep(hits.map((h) => ({ source: h.source, id: h.id, text: titledText(h) }))) };
}

/**
 * The neighbouring context of the semantic hits: the episodes just before and after an episode,
 * the source episode of a promoted fact, the pages linked to or from a page, the nodes an edge
 * joins to a node. At most EXPAND_MAX, records already shown left out.
 */
export function expandBlock(stores: Stores, scope: Scope, hits: Hit[], seen: Seen): Block {
  const found: BlockItem[] = [];
  for (const h of hits) {
    if (h.source === 'l3') {
      const n = stores.episodes.neighbours(scope, h.id);
      for (const e of [n.before, n.after]) if (e) found.push({ source: 'l3', id: e.id, text: e.summary });
    } else if (h.source === 'l4') {
      const f = stores.facts.getByEntryId(h.id);
      const from = f && f.layer === scope.layer && f.user_id === scope.user_id ? f.metadata.from_episode : undefined;
      const ep = typeof from === 'string' ? stores.episodes.get(scope, from) : null;
      if (ep) found.push({ source: 'l3', id: ep.id, text: ep.summary });
    } else if (h.source === 'wiki' && h.title) {
      const links = stores.wiki.links(scope, h.title);
      for (const l of [...links.out, ...links.in]) {
        const p = stores.wiki.getByTitle(scope, l.title);
        if (p) found.push({ source: 'wiki', id: p.id, text: `${p.title} (${l.relation}): ${p.content}` });
      }
    } else if (h.source === 'graph') {
      for (const e of stores.graph.edges(scope, { node_id: h.id, direction: 'both', limit: 5 })) {
        const other = e.from.node_id === h.id ? e.to : e.from;
        found.push({ source: 'graph', id: other.node_id, text: `${e.relation}: ${other.content}` });
      }
    }
  }
  return { kind: 'expand', title: 'Around them', items: seen.keep(found).slice(0, EXPAND_MAX) };
}

/** Today's activity by the clock: counts, then the newest facts, episodes, wiki pages and timeline events. */
export function dayBlock(stores: Stores, scope: Scope, seen: Seen): Block {
  const d = stores.dayDigest(scope);
  const c = d.counts;
  const items: BlockItem[] = [
    ...d.newest.facts.map((i) => ({ source: 'l4', id: i.id, text: i.text })),
    ...d.newest.episodes.map((i) => ({ source: 'l3', id: i.id, text: i.text })),
    ...d.newest.wiki.map((i) => ({ source: 'wiki', id: i.id, text: i.text })),
    ...d.newest.timeline.map((i) => ({ source: 'timeline', id: i.id, text: i.text })),
  ];
  const total = c.facts + c.episodes + c.wiki + c.timeline;
  return {
    kind: 'day',
    title: `Today (${d.day_start.slice(0, 10)})`,
    lead: total === 0 ? '' : `${c.facts} facts, ${c.episodes} episodes, ${c.wiki} wiki pages, ${c.timeline} timeline events written today`,
    items: seen.keep(items),
  };
}

/** Pending work: scratchpad notes, open gaps of the last RECAP_GAP_HOURS, staged pending proposals. */
export function pendingBlock(stores: Stores, scope: Scope, nowMs: number): Block {
  const notes = stores.scratchpad.read(scope).slice(-RECAP_LIST_MAX).reverse();
  const gaps = stores.recallEvents.openGaps(scope, recentWindow(nowMs, RECAP_GAP_HOURS * 3600_000).since, RECAP_LIST_MAX);
  const proposals = stores.proposals.list(scope, 'pending', RECAP_LIST_MAX);
  return {
    kind: 'pending',
    title: 'Pending work',
    items: [
      ...notes.map((n) => ({ source: 'scratchpad', id: n.key, text: n.content })),
      ...gaps.map((g) => ({ source: 'gap', id: g.last_miss, text: `no memory answered "${g.query}" (${g.misses} empty dream${g.misses === 1 ? '' : 's'})` })),
      ...proposals.map((p) => ({
        source: 'proposal',
        id: p.proposal_id,
        text: p.payload.kind === 'core_write' ? `core_write ${p.payload.key} = ${p.payload.value}` : `wiki_write "${p.payload.title}" (${p.payload.wiki_type})`,
      })),
    ],
  };
}
