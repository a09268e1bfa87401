import { invalid, isBlank, type Clock } from '@memory-service/kernel';
import {
  cleanForgottenLinks,
  derivedNodeIds,
  holdsWord,
  purgeRecordsSince,
  recentWindow,
  wordsMatcher,
  writtenText,
  type Episode,
  type Fact,
  type GraphNode,
  type LinksCleaned,
  type RecordsPurged,
  type Scope,
  type Stores,
  type WikiPage,
  type WikiPageInfo,
} from '@memory-service/stores';
import { ForgottenTexts, isDistinctive, norm, WINDOW } from './forgotten-texts.js';

export type ForgetScope = 'exact' | 'fuzzy' | 'recent';

export interface ForgetInput extends Scope {
  key: string;
  scope: ForgetScope;
  minutes: number;
  shadow_bin: boolean;
}

export interface ForgetResult {
  scope: ForgetScope;
  deleted_l4: number;
  deleted_l3: number;
  deleted_graph: number;
  archived: number;
  purged_shadow: number;
  /** Episodes whose neighbouring context held the forgotten text and was cleared. */
  scrubbed_context: number;
  /** Wiki pages deleted: recent, those created in the window; exact and fuzzy, the page of a long thought whose link they deleted. */
  deleted_wiki: number;
}

/** A project's spec page (ProjectService.saveSpec): it belongs to the project, which is global, so recent spares it. */
function isProjectSpec(page: WikiPageInfo): boolean {
  return page.wiki_type === 'project_spec' && page.tags.includes('project');
}

/** A ForgetResult plus what a forget clears outside the memory stores. */
export interface ForgetReport extends ForgetResult {
  /** Items of the L1 ring that held the forgotten text (recent: that were pushed in the window). */
  deleted_l1: number;
  /** Timeline events whose summary or metadata held it, or that referred to a deleted record (recent: made in the window). */
  deleted_timeline: number;
  /** Sessions whose summary, topics or state deltas held it and were cleared. */
  scrubbed_sessions: number;
  /**
   * Rows of recall_events (dream's telemetry, which keeps each query's text) whose query named it:
   * exact, the key as whole words or the fact's value; fuzzy, the pattern as whole words, both
   * folded as dream folds; recent, those recorded in the window.
   */
  deleted_recall_events: number;
  /** recent: the records of the other kinds (counterfactuals, procedures, stashes, ...) created in the window. */
  deleted_records?: RecordsPurged;
  /** exact and fuzzy: what the records pointing at or copying the deleted facts and episodes had cleared. */
  cleaned_records?: LinksCleaned;
}

const NO_LINKS: LinksCleaned = { branch_entries: 0, proposals: 0, reflections: 0, transitions: 0 };

const NOTHING_ELSE = { deleted_wiki: 0, deleted_l1: 0, deleted_timeline: 0, scrubbed_sessions: 0, deleted_recall_events: 0 } as const;


/**
 * Records that carry a forgotten fact's value: exact forget cleans these from L3 and the graph.
 * A value of at least 3 words or 16 characters (folded) matches where it is contained; a shorter
 * one only where the whole record says exactly that, so forgetting "yes" never sweeps unrelated
 * memories. Both are folded as dream folds them, so "café zurich" carries "Café Zürich".
 */
export function carriesValue(recordText: string, value: string): boolean {
  const r = norm(recordText);
  const v = norm(value);
  if (!v) return false;
  return isDistinctive(v) ? r.includes(v) : r === v;
}

/**
 * A run of characters that any record holding a text (carriesValue), an excerpt of it (isExcerptOf)
 * or its cut start (holdsStartOf) also holds, folded (a store's deleteWhere prefilter folds them
 * too): the longest piece of the text's first WINDOW characters between white space and characters
 * JSON would escape (metadata is matched in its stored JSON), the first of those of one length.
 * Every such record holds those WINDOW characters; the longest piece finds fewer of the records
 * that do not than the first word does ("the" is in nearly every event). Empty when there is none.
 */
export function prefilterTerm(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
  const pieces = norm(text).slice(0, WINDOW).split(/[ "\\\u0000-\u001f]+/);
  let best = '';
  for (const p of pieces) if (p.length > best.length) best = p;
  return best;
}

/** The first words of a value, for a store's whole-word prefilter of records that may hold an excerpt of it. */
function excerptHead(value: string): string {
  return value.trim().split(/\s+/).slice(0, 3).join(' ');
}

/**
 * A record that holds the start of a forgotten value cut short (an excerpt ending in "…", as a
 * graph node or timeline event made from a long text keeps): at least 16 characters of it.
 */
export function isExcerptOf(recordText: string, value: string): boolean {
  // The ellipsis is looked for before folding, which spells it "...".
  const r = recordText.trimEnd();
  if (!r.endsWith('…')) return false;
  const head = norm(r.slice(0, -1));
  return head.length >= WINDOW && norm(value).startsWith(head);
}

/**
 * Whether another episode's neighbouring context (think: the thoughts just before, joined and cut
 * at 1000 characters) holds a forgotten text: whole, or its start (at least 16 characters) cut off
 * at the context's end, as a long thought's is.
 */
export function holdsStartOf(context: string, text: string): boolean {
  return holdsNormedStart(norm(context), norm(text));
}

/** holdsStartOf of a context and a text both folded already (norm). */
function holdsNormedStart(c: string, t: string): boolean {
  if (!t) return false;
  if (c.includes(t)) return true;
  const head = t.slice(0, WINDOW);
  if (head.length < WINDOW) return false;
  for (let i = c.indexOf(head); i >= 0; i = c.indexOf(head, i + 1)) if (t.startsWith(c.slice(i))) return true;
  return false;
}

/** Clear the contexts that hold a forgotten text or its cut start (holdsStartOf); returns how many. */
function scrubContextsHolding(stores: Stores, scope: Scope, texts: readonly string[]): number {
  if (texts.length === 0) return 0;
  const terms = texts.map(prefilterTerm);
  // Every context tested against all the texts in one pass (a forget of thousands of episodes
  // tested each context against each of them).
  const forgotten = new ForgottenTexts(texts);
  return stores.episodes.scrubContextWhere(scope, terms.includes('') ? [] : terms, (c) => forgotten.startHeldBy(c));
}

/** Whether a timeline event's metadata names one of these records in its refs (think: `l4:<entry_id>`, `l3:<id>`, `wiki:<id>`, `graph:<id>`, `l1:<id>`). */
function refersTo(meta: Record<string, unknown>, refs: ReadonlySet<string>): boolean {
  return Array.isArray(meta.refs) && meta.refs.some((r) => typeof r === 'string' && refs.has(r));
}

/** The forget primitive: exact (one L4 key and what carries it), fuzzy (a pattern) and recent (a time window). */
export class Forgetter {
  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
  ) {}

  forget(input: ForgetInput): ForgetReport {
    const key = input.key.trim();
    if (isBlank(key) && input.scope !== 'recent') throw invalid('key', 'must not be empty', 'a fact key or a search pattern');
    // Punctuation alone has no word to match: as a bare substring it matched nearly every memory.
    if (input.scope === 'fuzzy' && !holdsWord(key)) {
      throw invalid('key', `must hold at least one letter or digit (or an emoji) for scope fuzzy (got ${JSON.stringify(key).slice(0, 40)})`, 'a word or phrase with a letter or digit, or an emoji');
    }
    const scope: Scope = { layer: input.layer, user_id: input.user_id };
    let changes = null as [number, number] | null;
    // The recall_events rows of the dream calls made just before are queued: written now, they are there to delete.
    this.stores.writeDeferred();
    // One transaction with no savepoint per store call (StoreContext.bulk): a statement inside a
    // savepoint costs more the more was written since it opened, and a forget of thousands of
    // records grew with their square. Nothing here catches a store error and goes on.
    const result = this.stores.ctx.bulk((): ForgetReport => {
      // The writer's lock is held: the change log rows past `before` are this forget's.
      const before = this.stores.retrieval.changeSeq();
      const out =
        input.scope === 'recent'
          ? this.recent(scope, input.minutes)
          : input.scope === 'fuzzy'
            ? this.fuzzy(scope, key, input.shadow_bin)
            : this.exact(scope, key, input.shadow_bin);
      changes = [before, this.stores.retrieval.changeSeq()];
      return out;
    });
    // The log's copies of the deleted and scrubbed texts go once the indexes here have taken them in.
    if (changes && changes[1] > changes[0]) this.stores.retrieval.dropOldTexts(changes[0], changes[1]);
    return result;
  }

  /** Blank the audit details of deleted records (AuditLog.redact). */
  private redact(scope: Scope, targets: readonly string[]): void {
    if (targets.length > 0) this.stores.audit.redact(scope, targets, 'forget without the Shadow Bin');
  }

  private archive(scope: Scope, store: 'l4' | 'l3' | 'graph' | 'wiki', id: string, content: Fact | Episode | GraphNode | WikiPage, reason: string): void {
    this.stores.shadowBin.archive(scope, { origin_store: store, origin_id: id, content, reason });
  }

  /**
   * Delete the pages of long thoughts whose link (think routing rule 1: an L4 fact or L3 episode
   * whose metadata names the page's path) was just deleted, archiving each first when `shadow`: the
   * link is an excerpt of the page, and forgetting it left the thought's whole text recallable.
   * Only a page of the same scope that think made for a long thought (tag long_thought) goes.
   */
  private deleteLinkedPages(scope: Scope, metas: readonly Record<string, unknown>[], shadow: boolean, reason: string, more: readonly string[] = []): WikiPage[] {
    const paths = new Set([...metas.filter((m) => m.origin === 'think' && typeof m.wiki_path === 'string').map((m) => m.wiki_path as string), ...more]);
    const out: WikiPage[] = [];
    for (const p of paths) {
      const page = this.stores.wiki.read(scope, p);
      if (!page || !page.tags.includes('long_thought')) continue;
      if (shadow) this.archive(scope, 'wiki', page.title, page, reason);
      this.stores.wiki.delete(scope, page.title);
      out.push(page);
    }
    return out;
  }

  /**
   * Delete the links (think's L4 fact or L3 episode naming the page, origin think) of these long
   * thoughts' pages; returns them. Found by their metadata: their text is matched without the
   * page's path (writtenText), so a word match no longer finds them by it.
   */
  private linksTo(scope: Scope, paths: readonly string[]) {
    const out: { store: 'l4' | 'l3'; id: string; record: Fact | Episode; meta: Record<string, unknown>; refs: string[]; eventRef: string }[] = [];
    const byThink = (m: Record<string, unknown>) => m.origin === 'think';
    for (const p of paths) {
      for (const f of this.stores.facts.namingWikiPath(scope, p).filter((f) => byThink(f.metadata))) {
        this.stores.facts.delete(scope, f.key);
        out.push({ store: 'l4', id: f.key, record: f, meta: f.metadata, refs: [f.entry_id, `l4:${f.key}`], eventRef: `l4:${f.entry_id}` });
      }
      for (const e of this.stores.episodes.namingWikiPath(scope, p).filter((e) => byThink(e.meta))) {
        this.stores.episodes.delete(scope, e.id);
        out.push({ store: 'l3', id: e.id, record: e, meta: e.meta, refs: [e.id], eventRef: `l3:${e.id}` });
      }
    }
    return out;
  }

  private exact(scope: Scope, key: string, shadow: boolean): ForgetReport {
    const out: ForgetReport = { scope: 'exact', deleted_l4: 0, deleted_l3: 0, deleted_graph: 0, archived: 0, purged_shadow: 0, scrubbed_context: 0, ...NOTHING_ELSE };
    const fact = this.stores.facts.get(scope, key);
    // The queries that named the key go even when the fact is gone already (forgotten before they were).
    const byKey = holdsWord(key) ? this.stores.recallEvents.deleteMatching(scope, key) : 0;
    out.deleted_recall_events = byKey;
    if (!fact) return { ...out, cleaned_records: { ...NO_LINKS } };
    out.deleted_recall_events += this.stores.recallEvents.deleteWhere(scope, [prefilterTerm(fact.value)], (q) => carriesValue(q, fact.value));
    // Older archived copies of this fact go (not those of another fact that held the key before);
    // the copy taken now stays restorable when shadow_bin is on.
    out.purged_shadow += this.stores.shadowBin.purgeFactCopies(scope, fact);
    if (shadow) {
      this.archive(scope, 'l4', key, fact, 'forget exact');
      out.archived++;
    }
    this.stores.facts.delete(scope, key);
    out.deleted_l4 = 1;
    // A long thought's link carries what the thought says, not its page's title and path (writtenText).
    const episodes = this.stores.episodes.findMatching(scope, fact.value).filter((e) => carriesValue(writtenText(e.summary), fact.value));
    // Archived episodes that said the value go as the live ones do (a save forgotten before, then
    // said again): taken before this call archives its own copies, which stay restorable.
    out.purged_shadow += this.stores.shadowBin.purgeHolding(scope, 'l3', (c) => {
      const summary = typeof c === 'object' && c !== null ? (c as { summary?: unknown }).summary : undefined;
      return typeof summary === 'string' && carriesValue(writtenText(summary), fact.value);
    });
    for (const ep of episodes) {
      out.purged_shadow += this.stores.shadowBin.purgeFor(scope, 'l3', ep.id);
      if (shadow) {
        this.archive(scope, 'l3', ep.id, ep, `forget exact ${key}`);
        out.archived++;
      }
      this.stores.episodes.delete(scope, ep.id);
      out.deleted_l3++;
    }
    // The nodes made from the fact's thought and from those of the episodes deleted with it.
    const derived = [fact.metadata, ...episodes.map((e) => e.meta)].flatMap(derivedNodeIds);
    const found = [
      ...derived.map((id) => this.stores.graph.getNode(scope, id)).filter((n): n is GraphNode => n !== null),
      ...this.stores.graph.findMatching(scope, fact.value).filter((n) => carriesValue(n.content, fact.value) && !derived.includes(n.node_id)),
      // A node made from a long text holds an excerpt of it, which never contains the whole value.
      ...this.stores.graph.findMatching(scope, excerptHead(fact.value)).filter((n) => isExcerptOf(n.content, fact.value) && !derived.includes(n.node_id)),
    ];
    const nodes = [...new Map(found.map((n) => [n.node_id, n])).values()];
    for (const node of nodes) {
      out.purged_shadow += this.stores.shadowBin.purgeFor(scope, 'graph', node.node_id);
      if (shadow) {
        this.archive(scope, 'graph', node.node_id, node, `forget exact ${key}`);
        out.archived++;
      }
      this.stores.graph.deleteNode(scope, node.node_id);
      out.deleted_graph++;
    }
    const pages = this.deleteLinkedPages(scope, [fact.metadata, ...episodes.map((e) => e.meta)], shadow, `forget exact ${key}`);
    out.deleted_wiki = pages.length;
    if (shadow) out.archived += pages.length;
    out.scrubbed_context = this.stores.episodes.scrubContext(scope, fact.value);
    // The L1 ring, the timeline and the sessions hold the fact's text, or that of an episode or long thought's page deleted with it.
    const texts = [fact.value, ...episodes.map((e) => e.summary), ...pages.map((p) => p.content)];
    out.scrubbed_context += scrubContextsHolding(this.stores, scope, texts.slice(1));
    // carriesValue or isExcerptOf of any of the texts, tested against all of them in one pass.
    const forgotten = new ForgottenTexts(texts);
    const holds = (text: string) => forgotten.carriedBy(text);
    const epIds = new Set(episodes.map((e) => e.id));
    // Another fact saying the same (exact deletes one key) keeps its thought's L1 item and event.
    const others = this.stores.facts.findMatching(scope, fact.value).filter((f) => carriesValue(f.value, fact.value));
    const otherValues = new Set(others.map((f) => f.value));
    const otherRefs = new Set(others.map((f) => `l4:${f.entry_id}`));
    const l1 = this.stores.l1.deleteWhere(scope, (item) => (holds(item.text) && !otherValues.has(item.text.trim())) || (item.ref !== null && epIds.has(item.ref)));
    const refs = new Set([
      `l4:${fact.entry_id}`,
      ...episodes.map((e) => `l3:${e.id}`),
      ...nodes.map((n) => `graph:${n.node_id}`),
      ...l1.map((i) => `l1:${i.id}`),
    ]);
    out.deleted_l1 = l1.length;
    // Every event the test takes holds a piece of a text's start, or a ref in its metadata: only those are read.
    const terms = texts.map(prefilterTerm);
    const everyEvent = terms.includes('');
    out.deleted_timeline = this.stores.timeline.deleteWhere(
      scope,
      everyEvent ? [] : terms,
      (e) => ((holds(e.summary) || holds(JSON.stringify(e.metadata))) && !refersTo(e.metadata, otherRefs)) || refersTo(e.metadata, refs),
      everyEvent ? [] : [...refs],
    ).length;
    out.scrubbed_sessions = this.stores.sessions.scrubWhere(scope, holds);
    out.cleaned_records = cleanForgottenLinks(this.stores, scope, {
      facts: [fact],
      episodeIds: episodes.map((e) => e.id),
      holds: (t) => carriesValue(t, fact.value),
      texts: [fact.value, ...episodes.map((e) => e.summary)],
    });
    // Without the Shadow Bin nothing of it stays: the audit rows keep what happened, not the words.
    if (!shadow) this.redact(scope, [fact.entry_id, `l4:${key}`, ...episodes.map((e) => e.id), ...nodes.map((n) => n.node_id), ...pages.map((p) => p.id)]);
    return out;
  }

  private fuzzy(scope: Scope, pattern: string, shadow: boolean): ForgetReport {
    const out: ForgetReport = { scope: 'fuzzy', deleted_l4: 0, deleted_l3: 0, deleted_graph: 0, archived: 0, purged_shadow: 0, scrubbed_context: 0, ...NOTHING_ELSE };
    const reason = `forget fuzzy "${pattern}"`;
    const deleted: string[] = [];
    // The refs a timeline event names the deleted facts and episodes by (think: `l4:<entry_id>`, `l3:<id>`).
    const recordRefs: string[] = [];
    // The texts of the deleted episodes, which other episodes' contexts may hold cut short.
    const deletedTexts: string[] = [];
    const metas: Record<string, unknown>[] = [];
    const facts: Fact[] = [];
    const episodeIds: string[] = [];
    for (const f of this.stores.facts.deleteMatching(scope, pattern)) {
      facts.push(f);
      if (shadow) this.archive(scope, 'l4', f.key, f, reason);
      deleted.push(f.entry_id, `l4:${f.key}`);
      recordRefs.push(`l4:${f.entry_id}`);
      metas.push(f.metadata);
      out.deleted_l4++;
    }
    for (const e of this.stores.episodes.deleteMatching(scope, pattern)) {
      episodeIds.push(e.id);
      if (shadow) this.archive(scope, 'l3', e.id, e, reason);
      deleted.push(e.id);
      recordRefs.push(`l3:${e.id}`);
      deletedTexts.push(e.summary);
      metas.push(e.meta);
      out.deleted_l3++;
    }
    // A long thought's page holds its whole text, its link only the first lines: a page think made
    // for one (tag long_thought) that holds the pattern goes, with its link.
    const longPages = this.stores.wiki.findMatching(scope, pattern, 'long_thought').map((p) => p.path);
    for (const link of this.linksTo(scope, longPages)) {
      if (shadow) this.archive(scope, link.store, link.id, link.record, reason);
      deleted.push(...link.refs);
      recordRefs.push(link.eventRef);
      metas.push(link.meta);
      if (link.store === 'l4') {
        facts.push(link.record as Fact);
        out.deleted_l4++;
      } else {
        episodeIds.push(link.id);
        out.deleted_l3++;
      }
    }
    const nodes = this.stores.graph.deleteMatching(scope, pattern);
    // A relation node words its thought differently ("my name is Alice"): it goes with the fact or episode made with it.
    const matched = new Set(nodes.map((n) => n.node_id));
    for (const id of new Set(metas.flatMap(derivedNodeIds))) {
      const node = matched.has(id) ? null : this.stores.graph.deleteNode(scope, id);
      if (node) nodes.push(node);
    }
    for (const n of nodes) {
      if (shadow) this.archive(scope, 'graph', n.node_id, n, reason);
      deleted.push(n.node_id);
      out.deleted_graph++;
    }
    const pages = this.deleteLinkedPages(scope, metas, shadow, reason, longPages);
    deleted.push(...pages.map((p) => p.id));
    out.deleted_wiki = pages.length;
    if (!shadow) this.redact(scope, deleted);
    if (shadow) out.archived = out.deleted_l4 + out.deleted_l3 + out.deleted_graph + out.deleted_wiki;
    out.scrubbed_context = this.stores.episodes.scrubContext(scope, pattern);
    // A context keeps the first 1000 characters of the thoughts before it: a deleted one's start, though the pattern lay further in.
    const texts = [...deletedTexts, ...pages.map((p) => p.content)];
    out.scrubbed_context += scrubContextsHolding(this.stores, scope, texts);
    const l1 = this.stores.l1.deleteMatching(scope, pattern);
    out.deleted_l1 = l1.length;
    out.deleted_timeline = this.stores.timeline.deleteMatching(scope, pattern).length;
    // A thought's event keeps only its first 200 characters: the one naming a deleted record goes even when the pattern lay further in.
    const refs = [...recordRefs, ...nodes.map((n) => `graph:${n.node_id}`), ...pages.map((p) => `wiki:${p.id}`), ...l1.map((i) => `l1:${i.id}`)];
    const named = new Set(refs);
    if (named.size > 0) out.deleted_timeline += this.stores.timeline.deleteWhere(scope, [], (e) => refersTo(e.metadata, named), refs).length;
    out.scrubbed_sessions = this.stores.sessions.scrubMatching(scope, pattern);
    out.deleted_recall_events = this.stores.recallEvents.deleteMatching(scope, pattern);
    out.cleaned_records = cleanForgottenLinks(this.stores, scope, { facts, episodeIds, holds: wordsMatcher(pattern), texts: [pattern] });
    return out;
  }

  /**
   * Mass purge of what was created in the last `minutes`: facts, episodes, graph nodes, wiki pages
   * (not a project's spec page), L1 items, timeline events and recall_events rows, and the summaries of the sessions
   * that ended in the window (the session rows stay). Never archives (the spec skips the
   * Shadow Bin here); a record created before the window and only updated inside it stays. The
   * records of the other kinds created in the window go too (purgeRecordsSince, as memory_lucidity_purge).
   */
  private recent(scope: Scope, minutes: number): ForgetReport {
    const since = recentWindow(this.clock.now(), minutes * 60_000).since;
    return {
      scope: 'recent',
      deleted_l4: this.stores.facts.deleteSince(scope, since),
      deleted_l3: this.stores.episodes.deleteSince(scope, since),
      deleted_graph: this.stores.graph.deleteSince(scope, since),
      archived: 0,
      purged_shadow: 0,
      scrubbed_context: 0,
      deleted_wiki: this.stores.wiki.deleteSince(scope, since, isProjectSpec).length,
      deleted_l1: this.stores.l1.deleteSince(scope, since),
      deleted_timeline: this.stores.timeline.deleteSince(scope, since),
      scrubbed_sessions: this.stores.sessions.scrubEndedSince(scope, since),
      deleted_recall_events: this.stores.recallEvents.deleteSince(scope, since),
      deleted_records: purgeRecordsSince(this.stores, scope, since),
    };
  }
}
