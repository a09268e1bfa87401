import { cutChars, isBlank, overChars } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { substringLike } from './memory-query.js';
import { MAX_WORD_CHARS, STOP_WORDS, wordTokens } from './retrieval/query.js';
import { stemWord } from './retrieval/stemmer.js';
import type { Scope } from './types.js';
import { checkScope, foldedNameEquals, isoOf, makeId, parseJson } from './util.js';
import { checkPeriodHours } from './wiki-reflect.js';

export const REFLECTION_PREFIX = 'refl';
export const REFLECT_HOURS_DEFAULT = 24;
export const REFLECT_TOPIC_MAX = 200;
/** Rows of each ranked list a reflection keeps. */
export const REFLECT_TOP_TAGS = 5;
export const REFLECT_TOP_RECALLED = 5;
export const REFLECT_TOP_TERMS = 10;
/** A term recurs when this many records of the period hold it. */
export const REFLECT_TERM_MIN_RECORDS = 2;
export const REFLECT_LIST_DEFAULT = 10;
export const REFLECT_LIST_MAX = 50;

export interface ReflectionCounts {
  facts: number;
  episodes: number;
  wiki_pages: number;
  graph_nodes: number;
  events: number;
  sessions_closed: number;
  recalls: number;
}

export interface Reflection {
  id: string;
  topic: string | null;
  period_hours: number;
  period_start: string;
  period_end: string;
  summary: string;
  counts: ReflectionCounts;
  top_tags: { tag: string; count: number }[];
  most_recalled: { source: 'l3' | 'l4'; id: string; text: string; access_count: number }[];
  recurring_terms: { term: string; records: number }[];
  created: string;
}

interface Row {
  id: number;
  topic: string | null;
  period_hours: number;
  period_start: string;
  period_end: string;
  summary: string;
  body: string;
  created: string;
}

function toReflection(r: Row): Reflection {
  const body = parseJson<Partial<Reflection>>(r.body, {});
  return {
    id: makeId(REFLECTION_PREFIX, r.id),
    topic: r.topic,
    period_hours: r.period_hours,
    period_start: r.period_start,
    period_end: r.period_end,
    summary: r.summary,
    counts: body.counts as ReflectionCounts,
    top_tags: body.top_tags ?? [],
    most_recalled: body.most_recalled ?? [],
    recurring_terms: body.recurring_terms ?? [],
    created: r.created,
  };
}

/** A topic: 1 to REFLECT_TOPIC_MAX characters with a visible one, trimmed; undefined stays undefined. */
export function checkTopic(topic: unknown): string | undefined {
  if (topic === undefined || topic === null) return undefined;
  // Characters are code points, and a topic of spaces or zero-width characters alone is blank (kernel isBlank).
  if (typeof topic !== 'string' || isBlank(topic)) {
    throw validationError('topic', 'topic must be a text with a visible character', `1..${REFLECT_TOPIC_MAX} characters, one visible`);
  }
  if (overChars(topic, REFLECT_TOPIC_MAX)) {
    throw validationError('topic', `topic is longer than ${REFLECT_TOPIC_MAX} characters`, `1..${REFLECT_TOPIC_MAX} characters, one visible`);
  }
  return topic.trim();
}

function excerpt(text: string, max = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  // Cut in characters, never through a surrogate pair (the excerpt is stored in the reflection too).
  return overChars(t, max) ? `${cutChars(t, max - 3)}...` : t;
}

/**
 * memory_reflect's reflections: a deterministic digest (no language model) of what one layer and
 * user_id recorded over the last period_hours, optionally only the records holding a topic
 * (a plain substring, ignoring ASCII case): counts of new facts, episodes, wiki pages written,
 * graph nodes, timeline events, closed sessions and recalls; the top episode tags; the memories
 * most recalled (accessed) in the period; the terms recurring across its records. Each is stored.
 */
export class ReflectionStore {
  /** `writeQueued` writes the bookkeeping still queued (Stores.writeDeferred): the recalls and access counts a reflection reads. */
  constructor(
    private readonly ctx: StoreContext,
    private readonly writeQueued: () => void = () => undefined,
  ) {}

  /** Compute a reflection over the period ending now and store it. */
  write(scope: Scope, opts: { period_hours?: number; topic?: string } = {}): Reflection {
    checkScope(scope);
    const hours = checkPeriodHours(opts.period_hours ?? REFLECT_HOURS_DEFAULT);
    const topic = checkTopic(opts.topic);
    // The dreams of the last second are queued (their recall_events rows and access counts): written first, they are counted.
    this.writeQueued();
    const nowMs = this.ctx.clock.now();
    const end = isoOf(nowMs);
    const start = isoOf(nowMs - hours * 3_600_000);
    const like = topic === undefined ? null : substringLike(topic);
    // One condition per table: the scope, the period, and the topic when there is one.
    const where = (time: string, texts: string[]) =>
      `layer = ? AND user_id = ? AND ${time} >= ? AND ${time} <= ?${like === null ? '' : ` AND (${texts.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`}`;
    const args = (texts: string[]) => [scope.layer, scope.user_id, start, end, ...(like === null ? [] : texts.map(() => like))];
    const count = (table: string, time: string, texts: string[]) =>
      (this.ctx.stmt(`SELECT COUNT(*) FROM ${table} WHERE ${where(time, texts)}`).pluck(true).get(...args(texts)) as number);
    const T = {
      facts: ['key', 'value'],
      episodes: ['summary', 'tags'],
      wiki: ['title', 'content'],
      graph: ['content'],
      events: ['summary'],
      sessions: ['summary', 'topics'],
      recalls: ['query'],
    };
    const counts: ReflectionCounts = {
      facts: count('facts', 'created', T.facts),
      episodes: count('episodes', 'created', T.episodes),
      wiki_pages: count('wiki_pages', 'updated', T.wiki),
      graph_nodes: count('graph_nodes', 'created', T.graph),
      events: count('timeline_events', 'created', T.events),
      sessions_closed: count('sessions', 'ended', T.sessions),
      recalls: count('recall_events', 'created', T.recalls),
    };
    const top_tags = this.ctx
      .stmt(
        `SELECT t.tag AS tag, COUNT(*) AS count FROM episode_tags t WHERE t.episode_id IN (SELECT id FROM episodes WHERE ${where('created', T.episodes)})
         GROUP BY t.tag ORDER BY count DESC, t.tag ASC LIMIT ${REFLECT_TOP_TAGS}`,
      )
      .all(...args(T.episodes)) as { tag: string; count: number }[];
    const recalled = [
      ...(this.ctx
        .stmt(`SELECT 'l4' AS source, id, key || ': ' || value AS text, access_count FROM facts WHERE ${where('last_access', T.facts)} AND access_count > 0 ORDER BY access_count DESC, id ASC LIMIT ${REFLECT_TOP_RECALLED}`)
        .all(...args(T.facts)) as { source: 'l4'; id: number; text: string; access_count: number }[]),
      ...(this.ctx
        .stmt(`SELECT 'l3' AS source, id, summary AS text, access_count FROM episodes WHERE ${where('last_access', T.episodes)} AND access_count > 0 ORDER BY access_count DESC, id ASC LIMIT ${REFLECT_TOP_RECALLED}`)
        .all(...args(T.episodes)) as { source: 'l3'; id: number; text: string; access_count: number }[]),
    ];
    const most_recalled = recalled
      .map((r) => ({ source: r.source, id: makeId(r.source === 'l4' ? 'fact' : 'ep', r.id), text: excerpt(r.text), access_count: r.access_count }))
      .sort((a, b) => b.access_count - a.access_count || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) || a.id.length - b.id.length || (a.id < b.id ? -1 : 1))
      .slice(0, REFLECT_TOP_RECALLED);
    const texts: string[] = [
      ...(this.ctx.stmt(`SELECT value FROM facts WHERE ${where('created', T.facts)}`).pluck(true).all(...args(T.facts)) as string[]),
      ...(this.ctx.stmt(`SELECT summary FROM episodes WHERE ${where('created', T.episodes)}`).pluck(true).all(...args(T.episodes)) as string[]),
      ...(this.ctx.stmt(`SELECT title FROM wiki_pages WHERE ${where('updated', T.wiki)}`).pluck(true).all(...args(T.wiki)) as string[]),
      ...(this.ctx.stmt(`SELECT content FROM graph_nodes WHERE ${where('created', T.graph)}`).pluck(true).all(...args(T.graph)) as string[]),
      ...(this.ctx.stmt(`SELECT query FROM recall_events WHERE ${where('created', T.recalls)}`).pluck(true).all(...args(T.recalls)) as string[]),
    ];
    const recurring_terms = recurringTerms(texts, topic);
    const summary = describeReflection({ hours, topic, counts, top_tags, most_recalled, recurring_terms });
    const body = JSON.stringify({ counts, top_tags, most_recalled, recurring_terms });
    return this.ctx.tx(() => {
      const info = this.ctx
        .stmt('INSERT INTO reflections (layer, user_id, topic, period_hours, period_start, period_end, summary, body, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(scope.layer, scope.user_id, topic ?? null, hours, start, end, summary, body, end);
      return toReflection(this.ctx.stmt('SELECT * FROM reflections WHERE id = ?').get(info.lastInsertRowid) as Row);
    });
  }

  /** Every reflection of the scope, oldest first (memory_data export). */
  all(scope: Scope): Reflection[] {
    checkScope(scope);
    return (this.ctx.stmt('SELECT * FROM reflections WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as Row[]).map(toReflection);
  }

  /** Store a reflection as the record gives it (memory_data import: computed elsewhere, kept as it was). */
  restore(scope: Scope, r: Omit<Reflection, 'id'>): Reflection {
    checkScope(scope);
    const body = JSON.stringify({ counts: r.counts, top_tags: r.top_tags, most_recalled: r.most_recalled, recurring_terms: r.recurring_terms });
    return this.ctx.tx(() => {
      const info = this.ctx
        .stmt('INSERT INTO reflections (layer, user_id, topic, period_hours, period_start, period_end, summary, body, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(scope.layer, scope.user_id, r.topic, r.period_hours, r.period_start, r.period_end, r.summary, body, r.created);
      return toReflection(this.ctx.stmt('SELECT * FROM reflections WHERE id = ?').get(info.lastInsertRowid) as Row);
    });
  }

  /** Delete the scope's reflections written at or after the ISO time (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('reflections', scope, sinceIso);
  }

  /** Delete every reflection of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('reflections', scope);
  }

  /**
   * What forget leaves of a reflection: the most-recalled rows naming records it deleted (`fact_<n>`,
   * `ep_<n>`) go with their excerpts, and so do the recurring terms that are words of the forgotten
   * texts (same stem); the summary is written again without them. The counts stay (no words).
   * Returns how many reflections changed.
   */
  forget(scope: Scope, ids: ReadonlySet<string>, texts: readonly string[]): number {
    checkScope(scope);
    const stems = new Set(texts.flatMap((t) => wordTokens(t)).map((w) => stemWord(w)));
    if (ids.size === 0 && stems.size === 0) return 0;
    return this.ctx.tx(() => {
      let n = 0;
      const rows = this.ctx.stmt('SELECT * FROM reflections WHERE layer = ? AND user_id = ?').all(scope.layer, scope.user_id) as Row[];
      for (const row of rows) {
        const r = toReflection(row);
        const kept = r.most_recalled.filter((m) => !ids.has(m.id));
        const terms = r.recurring_terms.filter((t) => !wordTokens(t.term).some((w) => stems.has(stemWord(w))));
        if (kept.length === r.most_recalled.length && terms.length === r.recurring_terms.length) continue;
        const summary = describeReflection({ hours: r.period_hours, topic: r.topic ?? undefined, counts: r.counts, top_tags: r.top_tags, most_recalled: kept, recurring_terms: terms });
        const body = JSON.stringify({ counts: r.counts, top_tags: r.top_tags, most_recalled: kept, recurring_terms: terms });
        this.ctx.stmt('UPDATE reflections SET summary = ?, body = ? WHERE id = ?').run(summary, body, row.id);
        n++;
      }
      return n;
    });
  }

  /**
   * The scope's reflections, newest first; with a topic, only those written for it: the whole
   * topic, equal once folded as names are (util.foldedNameEquals: case beyond ASCII, NFC or NFD,
   * accents, ß, İ), or the same text (a topic that folds to nothing). SQLite's lower() folds ASCII
   * only, so the scope's topical reflections are read newest first until `limit` match.
   */
  list(scope: Scope, opts: { topic?: string; limit?: number } = {}): Reflection[] {
    checkScope(scope);
    const topic = checkTopic(opts.topic);
    const limit = opts.limit ?? REFLECT_LIST_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > REFLECT_LIST_MAX) throw validationError('limit', `limit must be a whole number from 1 to ${REFLECT_LIST_MAX}`, `1..${REFLECT_LIST_MAX}`);
    if (topic === undefined) {
      const rows = this.ctx.stmt('SELECT * FROM reflections WHERE layer = ? AND user_id = ? ORDER BY id DESC LIMIT ?').all(scope.layer, scope.user_id, limit) as Row[];
      return rows.map(toReflection);
    }
    const out: Reflection[] = [];
    const rows = this.ctx.stmt('SELECT * FROM reflections WHERE layer = ? AND user_id = ? AND topic IS NOT NULL ORDER BY id DESC').iterate(scope.layer, scope.user_id) as IterableIterator<Row>;
    for (const r of rows) {
      if (r.topic !== topic && !foldedNameEquals(topic, r.topic!)) continue;
      out.push(toReflection(r));
      if (out.length >= limit) break;
    }
    return out;
  }
}

/**
 * The terms held by at least REFLECT_TERM_MIN_RECORDS of the texts (each text counts a term once),
 * words of one stem counted as one term (deploy, deploys) shown by its shortest form (then the
 * first alphabetically), most records first, then alphabetically; stop words, numbers, words under
 * three characters and the topic's own words are left out.
 */
export function recurringTerms(texts: readonly string[], topic?: string): { term: string; records: number }[] {
  const skip = new Set(topic === undefined ? [] : wordTokens(topic).map((w) => stemWord(w)));
  const byStem = new Map<string, StemCount>();
  // Each distinct word is tested and stemmed once: a period's texts say a few thousand words again
  // and again, and stemming every word of 100,000 episodes took most of memory_reflect's time.
  // null: a word left out.
  const byWord = new Map<string, StemCount | null>();
  const resolve = (w: string): StemCount | null => {
    let r = byWord.get(w);
    if (r !== undefined) return r;
    r = null;
    if (w.length >= 3 && !/^\d+$/.test(w) && !STOP_WORDS.has(w)) {
      const stem = stemWord(w);
      if (!skip.has(stem)) {
        r = byStem.get(stem) ?? null;
        if (r === null) byStem.set(stem, (r = { n: 0, form: w, text: -1 }));
      }
    }
    byWord.set(w, r);
    return r;
  };
  // Each text counts a stem once; its shown form is the shortest (then first alphabetically) of every text's words.
  const count = (r: StemCount | null, w: string, text: number) => {
    if (r === null) return;
    if (r.text !== text) {
      r.text = text;
      r.n++;
    }
    if (w.length < r.form.length || (w.length === r.form.length && w < r.form)) r.form = w;
  };
  const ascii = new AsciiWords();
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    // eslint-disable-next-line no-control-regex -- as wordTokens tells ASCII text
    if (/^[\x00-\x7f]*$/.test(text)) ascii.each(text, resolve, (e) => count(e.r, e.word, i));
    else for (const w of wordTokens(text)) count(resolve(w), w, i);
  }
  return [...byStem.values()]
    .filter((r) => r.n >= REFLECT_TERM_MIN_RECORDS)
    .sort((a, b) => b.n - a.n || (a.form < b.form ? -1 : a.form > b.form ? 1 : 0))
    .slice(0, REFLECT_TOP_TERMS)
    .map((r) => ({ term: r.form, records: r.n }));
}

/** A word of ASCII text met before, by the hash of its characters (AsciiWords), with what it counts for. */
interface AsciiWord {
  word: string;
  r: StemCount | null;
  /** Another word of the same hash. */
  next: AsciiWord | null;
}

/**
 * The words of ASCII texts as wordTokens gives them (runs of letters and digits, lower-cased, cut
 * at MAX_WORD_CHARS), each looked up by a hash of its characters as they are read: a word met
 * before costs no string, where wordTokens made a lower-cased copy of the text and a string of
 * each of its words.
 */
class AsciiWords {
  private readonly byHash = new Map<number, AsciiWord>();

  each(text: string, resolve: (w: string) => StemCount | null, visit: (e: AsciiWord) => void): void {
    const n = text.length;
    let j = 0;
    while (j < n) {
      let c = text.charCodeAt(j);
      if (!isAsciiWordChar(c)) {
        j++;
        continue;
      }
      const start = j;
      let len = 0;
      let h = 0x811c9dc5;
      for (; j < n && isAsciiWordChar((c = text.charCodeAt(j))); j++) {
        if (len === MAX_WORD_CHARS) continue;
        h = Math.imul(h ^ lower(c), 0x01000193);
        len++;
      }
      let e = this.byHash.get(h);
      while (e && !sameLowered(text, start, len, e.word)) e = e.next ?? undefined;
      if (!e) {
        const word = text.slice(start, start + len).toLowerCase();
        e = { word, r: resolve(word), next: this.byHash.get(h) ?? null };
        this.byHash.set(h, e);
      }
      visit(e);
    }
  }
}

function isAsciiWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** Whether `len` characters of `text` from `start`, lower-cased, are `word`. */
function sameLowered(text: string, start: number, len: number, word: string): boolean {
  if (word.length !== len) return false;
  for (let k = 0; k < len; k++) if (lower(text.charCodeAt(start + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** A stem's count in recurringTerms: the records holding it, its shown form, the last text that counted it. */
interface StemCount {
  n: number;
  form: string;
  text: number;
}

/** A reflection's summary from its parts (write, forget, and memory_data import re-pointing its most recalled). */
export function describeReflection(r: {
  hours: number;
  topic?: string;
  counts: ReflectionCounts;
  top_tags: Reflection['top_tags'];
  most_recalled: Reflection['most_recalled'];
  recurring_terms: Reflection['recurring_terms'];
}): string {
  const c = r.counts;
  const lines = [
    `Reflection over the last ${r.hours} h${r.topic === undefined ? '' : ` on "${excerpt(r.topic, 80)}"`}: ${c.facts} new facts, ${c.episodes} new episodes, ` +
      `${c.wiki_pages} wiki pages written, ${c.graph_nodes} graph nodes, ${c.events} timeline events, ${c.sessions_closed} sessions closed, ${c.recalls} recalls.`,
  ];
  if (r.top_tags.length) lines.push(`Top tags: ${r.top_tags.map((t) => `${t.tag} (${t.count})`).join(', ')}.`);
  if (r.most_recalled.length) lines.push(`Most recalled: ${r.most_recalled.map((m) => `${m.id} "${excerpt(m.text, 60)}" (${m.access_count})`).join('; ')}.`);
  if (r.recurring_terms.length) lines.push(`Recurring terms: ${r.recurring_terms.map((t) => `${t.term} (${t.records})`).join(', ')}.`);
  if (c.facts + c.episodes + c.wiki_pages + c.graph_nodes + c.events + c.sessions_closed + c.recalls === 0) lines.push('Nothing was recorded in this period.');
  return lines.join('\n');
}
