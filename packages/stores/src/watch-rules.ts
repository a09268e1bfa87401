import { checkNewName, cutChars, toNfc } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import type { EpisodeStore } from './episodes.js';
import { notFound, StoreError, validationError } from './errors.js';
import { recordSlug } from './record-name.js';
import type { ScratchpadStore } from './scratchpad.js';
import type { Layer, Scope } from './types.js';
import { foldText } from './retrieval/query.js';
import { recentWindow } from './iso-time.js';
import { checkScope, checkText, foldedNameEquals, keywordInFolded, makeId, parseId, parseJson } from './util.js';

export const WATCH_RULE_PREFIX = 'watch';
/**
 * What a watch rule watches: think (message_received), the new_message and auto_save_candidate
 * lifecycle events, and memory_remember (remember, through its importance gate).
 */
export const WATCH_TRIGGERS = ['message_received', 'new_message', 'auto_save_candidate', 'remember'] as const;
export type WatchTrigger = (typeof WATCH_TRIGGERS)[number];
/**
 * What a match does (every match also counts a hit): `log` writes an audit_log row (action
 * watch_hit); `tag` adds the tag `watch:<rule name slug>` to the episodes the event wrote; `note`
 * writes the scratchpad entry `watch:<rule name slug>` (upserted; daily_brief lists it as pending).
 * The slug is watchTag's.
 */
export const WATCH_ACTIONS = ['log', 'tag', 'note'] as const;
export type WatchAction = (typeof WATCH_ACTIONS)[number];
export const WATCH_PREDICATE_KEYS = ['min_importance', 'l4_min_importance', 'keywords', 'sender'] as const;
/** Triggers whose events write no episode (tag has nothing to tag) or carry no sender. */
const NO_EPISODE: readonly WatchTrigger[] = ['remember'];
const NO_SENDER: readonly WatchTrigger[] = ['message_received', 'remember'];
export const WATCH_NAME_MAX = 100;
export const WATCH_KEYWORDS_MAX = 20;
export const WATCH_RULES_MAX = 100;
export const WATCH_HITS_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface WatchPredicate {
  min_importance?: number;
  l4_min_importance?: number;
  keywords?: string[];
  sender?: string;
}

export interface WatchRule {
  id: string;
  layer: Layer;
  user_id: string;
  name: string;
  trigger: WatchTrigger;
  predicate: WatchPredicate;
  action: WatchAction;
  enabled: boolean;
  created: string;
  updated: string;
  /** Matches in the 24 hours before now (by the clock), not those dated after now. */
  hits_24h: number;
}

/** What a watched event carries for the predicates. */
export interface WatchEvent {
  text: string;
  importance: number;
  /** Importance of the L4 fact the event wrote; null when it wrote none. */
  l4_importance: number | null;
  sender: string | null;
  /** Records the event wrote (`l3:ep_1`, `l4:fact_2`, ...); the episodes among them are what `tag` tags. */
  refs: { store: string; id: string }[];
}

export interface WatchFired {
  rule_id: string;
  name: string;
  action: WatchAction;
  /** What the action did, e.g. the tagged episode ids or the scratchpad key. */
  effect: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  name: string;
  trigger: WatchTrigger;
  predicate: string;
  action: WatchAction;
  enabled: number;
  created: string;
  updated: string;
  hits: number;
}

const num01 = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;

/** Check a predicate object (memory_watch's predicate_json); every error names `field`. */
export function checkWatchPredicate(raw: unknown, trigger: WatchTrigger, field = 'predicate_json'): WatchPredicate {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw validationError(field, `${field} must be a JSON object with any of the keys ${WATCH_PREDICATE_KEYS.join(', ')}`, WATCH_PREDICATE_KEYS);
  }
  const p = raw as Record<string, unknown>;
  const unknown = Object.keys(p).filter((k) => !(WATCH_PREDICATE_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw validationError(field, `${field} has unknown key(s) ${unknown.map((k) => JSON.stringify(k.slice(0, 60))).join(', ')}; allowed keys: ${WATCH_PREDICATE_KEYS.join(', ')}`, WATCH_PREDICATE_KEYS);
  }
  const out: WatchPredicate = {};
  for (const k of ['min_importance', 'l4_min_importance'] as const) {
    if (p[k] === undefined) continue;
    if (!num01(p[k])) throw validationError(field, `${field}.${k} must be a number from 0 to 1`, WATCH_PREDICATE_KEYS);
    out[k] = p[k] as number;
  }
  if (p.keywords !== undefined) {
    const list = typeof p.keywords === 'string' ? [p.keywords] : p.keywords;
    if (!Array.isArray(list) || list.length === 0 || list.length > WATCH_KEYWORDS_MAX || list.some((w) => typeof w !== 'string' || w.trim().length === 0 || w.length > 200)) {
      throw validationError(field, `${field}.keywords must be a keyword or a list of 1 to ${WATCH_KEYWORDS_MAX} non-blank strings of at most 200 characters`, WATCH_PREDICATE_KEYS);
    }
    out.keywords = [...new Set((list as string[]).map((w) => w.trim()))];
  }
  if (p.sender !== undefined) {
    if (typeof p.sender !== 'string' || p.sender.trim().length === 0 || p.sender.length > 200) {
      throw validationError(field, `${field}.sender must be a non-blank string of at most 200 characters`, WATCH_PREDICATE_KEYS);
    }
    if (NO_SENDER.includes(trigger)) {
      throw validationError(field, `${field}.sender cannot match trigger ${trigger}: only new_message and auto_save_candidate events carry a sender (payload.sender)`, WATCH_PREDICATE_KEYS);
    }
    // In NFC, as names and tags are stored; matching folds it anyway (foldedNameEquals).
    out.sender = toNfc(p.sender.trim());
  }
  return out;
}

/** Whether an event satisfies every key of the predicate (an empty predicate matches every event). */
export function watchPredicateMatches(p: WatchPredicate, e: WatchEvent): boolean {
  if (p.min_importance !== undefined && !(e.importance >= p.min_importance)) return false;
  if (p.l4_min_importance !== undefined && (e.l4_importance === null || !(e.l4_importance >= p.l4_min_importance))) return false;
  if (p.keywords !== undefined) {
    // Folded as dream and forget fold words (util.keywordInFolded): NFC and NFD, case, ß and ss.
    const text = foldText(e.text);
    if (!p.keywords.some((w) => keywordInFolded(text, w))) return false;
  }
  // Equal once folded as keywords are (util.foldedNameEquals): NFC and NFD, case, accents, ß and ss, İ and i.
  if (p.sender !== undefined && (e.sender === null || !foldedNameEquals(p.sender, e.sender))) return false;
  return true;
}

/**
 * The tag and scratchpad key a rule's actions use: `watch:` and the slug of its name in the letters
 * of every script, as a procedure's name is stored (recordSlug; an ASCII name keeps the key it
 * always had), or `watch:` and the rule's id for a name with no letter or digit. The file slug
 * made every name without a Latin letter `watch:untitled`, one rule's note overwriting another's;
 * an id holds `_`, which no slug does, so it never meets a named rule's key.
 */
export function watchTag(rule: Pick<WatchRule, 'id' | 'name'>): string {
  return `watch:${recordSlug(rule.name) || rule.id}`;
}

/** Watch rules of each layer and user_id (memory_watch), evaluated on the events they watch. */
export class WatchRuleStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly episodes: EpisodeStore,
    private readonly scratchpad: ScratchpadStore,
  ) {}

  /** The bounds of hits_24h: the 24 hours up to now, so a hit dated after now (the clock stepped back) is not counted. */
  private hitsWindow(): [string, string] {
    const w = recentWindow(this.ctx.clock.now(), WATCH_HITS_WINDOW_MS);
    return [w.since, w.until];
  }

  private toRule(r: Row): WatchRule {
    return {
      id: makeId(WATCH_RULE_PREFIX, r.id),
      layer: r.layer,
      user_id: r.user_id,
      name: r.name,
      trigger: r.trigger,
      predicate: parseJson<WatchPredicate>(r.predicate, {}),
      action: r.action,
      enabled: r.enabled === 1,
      created: r.created,
      updated: r.updated,
      hits_24h: r.hits,
    };
  }

  private select(where: string): string {
    return `SELECT r.*, (SELECT COUNT(*) FROM watch_hits h WHERE h.rule_id = r.id AND h.ts >= ? AND h.ts <= ?) AS hits FROM watch_rules r WHERE ${where}`;
  }

  add(scope: Scope, input: { name: string; trigger: string; predicate: unknown; action: string }): WatchRule {
    checkScope(scope);
    // In NFC, as fact keys and wiki titles are: "Café" sent decomposed and precomposed names one rule.
    const name = toNfc(checkText(input.name, 'name', WATCH_NAME_MAX).trim());
    // One line with nothing hidden, as a new fact key or wiki title (kernel checkNewName): "deploys\u3164"
    // listed as "deploys" beside it, with a note and tag of its own, and a line break in a name
    // forged a line of its scratchpad note.
    checkNewName('name', name);
    if (!(WATCH_TRIGGERS as readonly string[]).includes(input.trigger)) {
      throw validationError('trigger', `trigger must be one of ${WATCH_TRIGGERS.join(', ')}`, WATCH_TRIGGERS);
    }
    const trigger = input.trigger as WatchTrigger;
    if (!(WATCH_ACTIONS as readonly string[]).includes(input.action)) {
      throw validationError('action_kind', `action_kind must be one of ${WATCH_ACTIONS.join(', ')}`, WATCH_ACTIONS);
    }
    const action = input.action as WatchAction;
    if (action === 'tag' && NO_EPISODE.includes(trigger)) {
      const ok = WATCH_ACTIONS.filter((a) => a !== 'tag');
      throw validationError('action_kind', `action_kind tag needs an event that writes an episode; trigger ${trigger} writes none: use ${ok.join(' or ')}`, ok);
    }
    const predicate = checkWatchPredicate(input.predicate, trigger);
    return this.ctx.tx(() => {
      // A conflict with a record, as a disclosure rule's or a branch's taken name is: a client that retries on conflicts tells it from bad input.
      const taken = this.taken(scope, name);
      if (taken?.same) throw new StoreError('STORES_ERR_CONFLICT', `a watch rule named ${JSON.stringify(taken.rule.name)} exists in this layer and user_id: choose another name or delete it first`, { field: 'name' });
      if (taken) {
        throw new StoreError(
          'STORES_ERR_CONFLICT',
          `the name ${JSON.stringify(name)} gives the tag and scratchpad key ${watchTag({ id: '', name })}, which watch rule ${taken.rule.id} (${JSON.stringify(taken.rule.name)}) already uses: names differing only in case, accents or punctuation share one key; choose another name or delete that rule first`,
          { field: 'name' },
        );
      }
      const count = this.ctx.stmt('SELECT COUNT(*) FROM watch_rules WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (count >= WATCH_RULES_MAX) throw validationError('name', `at most ${WATCH_RULES_MAX} watch rules per layer and user_id: delete one first`, { max: WATCH_RULES_MAX });
      const now = this.ctx.iso();
      const info = this.ctx
        .stmt('INSERT INTO watch_rules (layer, user_id, name, trigger, predicate, action, enabled, created, updated) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)')
        .run(scope.layer, scope.user_id, name, trigger, JSON.stringify(predicate), action, now, now);
      const id = makeId(WATCH_RULE_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'create', 'watch_rule', id, { name, trigger, action });
      return this.get(scope, id) as WatchRule;
    });
  }

  /**
   * The scope's rule a new rule of this name (trimmed, in NFC) would clash with: one of the same
   * name in NFC (`same`; a rule stored in NFD before names were taken in NFC, and kept so by
   * migration 28 because its NFC twin existed, counts too), else one whose tag and scratchpad key
   * (watchTag) the name would share, since two rules writing one `watch:` note overwrite each
   * other's. A name with no letter or digit has its rule's id as key, which nothing shares. Reads
   * the scope's names (at most WATCH_RULES_MAX rows).
   */
  private taken(scope: Scope, name: string): { rule: { id: string; name: string }; same: boolean } | null {
    const rows = this.ctx.stmt('SELECT id, name FROM watch_rules WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as { id: number; name: string }[];
    const rules = rows.map((r) => ({ id: makeId(WATCH_RULE_PREFIX, r.id), name: r.name }));
    const same = rules.find((r) => toNfc(r.name) === name);
    if (same) return { rule: same, same: true };
    const slug = recordSlug(name);
    const shared = slug ? rules.find((r) => recordSlug(r.name) === slug) : undefined;
    return shared ? { rule: shared, same: false } : null;
  }

  get(scope: Scope, id: string): WatchRule | null {
    checkScope(scope);
    const n = parseId(WATCH_RULE_PREFIX, id);
    if (n === null) return null;
    const r = this.ctx.stmt(this.select('r.id = ? AND r.layer = ? AND r.user_id = ?')).get(...this.hitsWindow(), n, scope.layer, scope.user_id) as Row | undefined;
    return r ? this.toRule(r) : null;
  }

  /** The scope's rules, oldest first, each with its hits of the last 24 hours. */
  list(scope: Scope): WatchRule[] {
    checkScope(scope);
    const rows = this.ctx.stmt(this.select('r.layer = ? AND r.user_id = ? ORDER BY r.id')).all(...this.hitsWindow(), scope.layer, scope.user_id) as Row[];
    return rows.map((r) => this.toRule(r));
  }

  private checkId(id: string): void {
    if (parseId(WATCH_RULE_PREFIX, id.trim()) === null) {
      throw validationError('rule_id', `rule_id must be an id of the form ${WATCH_RULE_PREFIX}_<number> (e.g. ${WATCH_RULE_PREFIX}_3)`, `${WATCH_RULE_PREFIX}_<number>`);
    }
  }

  /** Disable (or enable) a rule; `changed` is false when it already was. Unknown id: an error naming rule_id. */
  setEnabled(scope: Scope, id: string, enabled: boolean): { rule: WatchRule; changed: boolean } {
    checkScope(scope);
    this.checkId(id);
    return this.ctx.tx(() => {
      const rule = this.get(scope, id.trim());
      if (!rule) throw notFound(`watch rule of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, id.trim(), 'rule_id');
      if (rule.enabled === enabled) return { rule, changed: false };
      this.ctx.stmt('UPDATE watch_rules SET enabled = ?, updated = ? WHERE id = ?').run(enabled ? 1 : 0, this.ctx.iso(), parseId(WATCH_RULE_PREFIX, rule.id));
      this.audit.log(scope, enabled ? 'enable' : 'disable', 'watch_rule', rule.id, { name: rule.name });
      return { rule: this.get(scope, rule.id) as WatchRule, changed: true };
    });
  }

  /** Delete a rule and its hits; returns the rule as it was. Unknown id: an error naming rule_id. */
  delete(scope: Scope, id: string): WatchRule {
    checkScope(scope);
    this.checkId(id);
    return this.ctx.tx(() => {
      const rule = this.get(scope, id.trim());
      if (!rule) throw notFound(`watch rule of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, id.trim(), 'rule_id');
      this.ctx.stmt('DELETE FROM watch_rules WHERE id = ?').run(parseId(WATCH_RULE_PREFIX, rule.id));
      this.audit.log(scope, 'delete', 'watch_rule', rule.id, { name: rule.name });
      return rule;
    });
  }

  /**
   * Add a rule as add() does, then give it the state and times the record holds (memory_data
   * import; its hits are telemetry and start at none). A name the scope holds already, in either
   * form or sharing its key (`taken`), is left as it is: null.
   */
  restore(scope: Scope, r: { name: string; trigger: string; predicate: unknown; action: string; enabled: boolean; created: string; updated: string }): WatchRule | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      if (typeof r.name === 'string' && this.taken(scope, toNfc(r.name.trim()))) return null;
      const made = this.add(scope, r);
      this.ctx.stmt('UPDATE watch_rules SET enabled = ?, created = ?, updated = ? WHERE id = ?').run(r.enabled ? 1 : 0, r.created, r.updated, parseId(WATCH_RULE_PREFIX, made.id));
      return this.get(scope, made.id);
    });
  }

  /**
   * Delete the scope's rules created at or after the ISO time, and the hits every rule of the scope
   * counted since then (they name the window's records); forget recent, memory_lucidity_purge.
   * Returns the rules deleted.
   */
  deleteSince(scope: Scope, sinceIso: string): number {
    checkScope(scope);
    const w = this.ctx.window(sinceIso);
    return this.ctx.tx(() => {
      this.ctx
        .stmt('DELETE FROM watch_hits WHERE ts >= ? AND ts <= ? AND rule_id IN (SELECT id FROM watch_rules WHERE layer = ? AND user_id = ?)')
        .run(w.since, w.until, scope.layer, scope.user_id);
      return this.ctx.stmt('DELETE FROM watch_rules WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?').run(scope.layer, scope.user_id, w.since, w.until).changes;
    });
  }

  /** Delete every rule of the scope with its hits (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('watch_rules', scope);
  }

  /** Whether the scope has an enabled rule on this trigger (one index lookup; the taps skip the rest when not). */
  watching(scope: Scope, trigger: WatchTrigger): boolean {
    return this.ctx.stmt('SELECT 1 FROM watch_rules WHERE layer = ? AND user_id = ? AND trigger = ? AND enabled = 1 LIMIT 1').get(scope.layer, scope.user_id, trigger) !== undefined;
  }

  /** The scope's enabled rules on this trigger whose predicate the event satisfies. */
  matching(scope: Scope, trigger: WatchTrigger, event: WatchEvent): WatchRule[] {
    checkScope(scope);
    const rows = this.ctx
      .stmt(this.select('r.layer = ? AND r.user_id = ? AND r.trigger = ? AND r.enabled = 1 ORDER BY r.id'))
      .all(...this.hitsWindow(), scope.layer, scope.user_id, trigger) as Row[];
    return rows.map((r) => this.toRule(r)).filter((r) => watchPredicateMatches(r.predicate, event));
  }

  /** Evaluate the scope's rules on an event: each match counts a hit and runs its action, in one transaction. */
  fire(scope: Scope, trigger: WatchTrigger, event: WatchEvent): WatchFired[] {
    if (!this.watching(scope, trigger)) return [];
    return this.ctx.tx(() => {
      const fired: WatchFired[] = [];
      const refs = event.refs.map((r) => `${r.store}:${r.id}`);
      for (const rule of this.matching(scope, trigger, event)) {
        const n = parseId(WATCH_RULE_PREFIX, rule.id);
        this.ctx.stmt('INSERT INTO watch_hits (rule_id, ts, refs) VALUES (?, ?, ?)').run(n, this.ctx.iso(), JSON.stringify(refs));
        fired.push({ rule_id: rule.id, name: rule.name, action: rule.action, effect: this.run(scope, rule, trigger, event, refs) });
      }
      return fired;
    });
  }

  private run(scope: Scope, rule: WatchRule, trigger: WatchTrigger, event: WatchEvent, refs: string[]): string {
    if (rule.action === 'log') {
      this.audit.log(scope, 'watch_hit', 'watch_rule', rule.id, { name: rule.name, trigger, refs });
      return 'audit_log watch_hit';
    }
    const tag = watchTag(rule);
    if (rule.action === 'tag') {
      const tagged: string[] = [];
      for (const r of event.refs) {
        if (r.store !== 'l3') continue;
        const ep = this.episodes.get(scope, r.id);
        if (!ep) continue;
        if (!ep.tags.includes(tag)) this.episodes.setTags(scope, ep.id, [...ep.tags, tag]);
        tagged.push(ep.id);
      }
      return tagged.length > 0 ? `tagged ${tagged.join(', ')} ${tag}` : 'no episode written: nothing tagged';
    }
    const content = `${rule.name} (${trigger}) matched at ${this.ctx.iso()}: ${cutChars(event.text.replace(/\s+/g, ' ').trim(), 300)}`;
    this.scratchpad.write(scope, tag, content);
    return `scratchpad ${tag}`;
  }
}
