import { checkNewName, toNfc } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, StoreError, validationError } from './errors.js';
import type { Layer, Scope } from './types.js';
import { foldText } from './retrieval/query.js';
import { checkScope, checkText, keywordInFolded, makeId, parseId, parseJson } from './util.js';

export const DISCLOSURE_PREFIX = 'disc';
/** The score a matching disclosure rule's block carries (spec: disclosure match score). */
export const DISCLOSURE_MATCH_SCORE = 0.95;
export const DISCLOSURE_NAME_MAX = 100;
export const DISCLOSURE_KEYWORDS_MAX = 20;
export const DISCLOSURE_KEYWORD_MAX = 100;
export const DISCLOSURE_CONTENT_MAX = 4000;
/** Rules one scope holds at most. */
export const DISCLOSURE_RULES_MAX = 200;

export interface DisclosureRule {
  /** `disc_<n>`. */
  rule_id: string;
  layer: Layer;
  user_id: string;
  name: string;
  trigger_keywords: string[];
  content: string;
  enabled: boolean;
  created: string;
  updated: string;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  name: string;
  trigger_keywords: string;
  content: string;
  enabled: number;
  created: string;
  updated: string;
}

function toRule(r: Row): DisclosureRule {
  return {
    rule_id: makeId(DISCLOSURE_PREFIX, r.id),
    layer: r.layer,
    user_id: r.user_id,
    name: r.name,
    trigger_keywords: parseJson<string[]>(r.trigger_keywords, []),
    content: r.content,
    enabled: r.enabled === 1,
    created: r.created,
    updated: r.updated,
  };
}

/**
 * Disclosure rules (memory_disclose): content surfaced when a text holds any of a rule's trigger
 * keywords (OR, a substring once both are folded as dream folds words). Added enabled; enable, disable and delete by rule_id.
 */
export class DisclosureStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  add(scope: Scope, input: { name: string; trigger_keywords: string[]; content: string }): DisclosureRule {
    checkScope(scope);
    // Trimmed, in NFC, one line with nothing hidden, as a new fact key, wiki title or watch rule name
    // (kernel checkNewName): "Café" sent decomposed and precomposed, or "allergy" and "allergy\u200B",
    // were two rules that listed alike.
    const name = toNfc(checkText(input.name, 'name', DISCLOSURE_NAME_MAX).trim());
    checkNewName('name', name);
    if (!Array.isArray(input.trigger_keywords) || input.trigger_keywords.length === 0 || input.trigger_keywords.length > DISCLOSURE_KEYWORDS_MAX) {
      throw validationError('trigger_keywords', `trigger_keywords must be a list of 1 to ${DISCLOSURE_KEYWORDS_MAX} keywords`, `1..${DISCLOSURE_KEYWORDS_MAX} strings`);
    }
    const keywords: string[] = [];
    for (const [i, k] of input.trigger_keywords.entries()) {
      // Named by its place in the list, as the tool's schema names an item it refuses.
      const kw = checkText(k, `trigger_keywords.${i}`, DISCLOSURE_KEYWORD_MAX).trim();
      if (!keywords.some((x) => foldText(x) === foldText(kw))) keywords.push(kw);
    }
    const content = checkText(input.content, 'content', DISCLOSURE_CONTENT_MAX);
    return this.ctx.tx(() => {
      const held = this.taken(scope, name);
      if (held) {
        throw new StoreError('STORES_ERR_CONFLICT', `a disclosure rule named ${JSON.stringify(held.name)} (${held.rule_id}) already exists in this layer and user_id: choose another name or delete it first`, {
          field: 'name',
        });
      }
      const n = this.ctx.stmt('SELECT COUNT(*) FROM disclosure_rules WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      if (n >= DISCLOSURE_RULES_MAX) throw validationError('name', `this layer and user_id already hold ${DISCLOSURE_RULES_MAX} disclosure rules (the most); delete one first`);
      const now = this.ctx.iso();
      const info = this.ctx
        .stmt('INSERT INTO disclosure_rules (layer, user_id, name, trigger_keywords, content, enabled, created, updated) VALUES (?, ?, ?, ?, ?, 1, ?, ?)')
        .run(scope.layer, scope.user_id, name, JSON.stringify(keywords), content, now, now);
      const id = makeId(DISCLOSURE_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'create', 'disclosure_rule', id, { name });
      return this.get(scope, id) as DisclosureRule;
    });
  }

  /**
   * The scope's rule of this name (trimmed, in NFC): the one stored so, or one stored in another
   * form before names were taken in NFC and kept so by migration 29 because its NFC twin existed.
   * One indexed lookup for the name as given; the scope's names (at most DISCLOSURE_RULES_MAX) are
   * read only when that misses and the scope holds a name beyond ASCII.
   */
  private taken(scope: Scope, name: string): { rule_id: string; name: string } | null {
    const exact = this.ctx.stmt('SELECT id, name FROM disclosure_rules WHERE layer = ? AND user_id = ? AND name = ?').get(scope.layer, scope.user_id, name) as
      | { id: number; name: string }
      | undefined;
    const other = exact
      ? undefined
      : (
          this.ctx
            .stmt('SELECT id, name FROM disclosure_rules WHERE layer = ? AND user_id = ? AND length(CAST(name AS BLOB)) <> length(name) ORDER BY id')
            .all(scope.layer, scope.user_id) as { id: number; name: string }[]
        ).find((r) => toNfc(r.name) === name);
    const r = exact ?? other;
    return r ? { rule_id: makeId(DISCLOSURE_PREFIX, r.id), name: r.name } : null;
  }

  get(scope: Scope, ruleId: string): DisclosureRule | null {
    checkScope(scope);
    const n = parseId(DISCLOSURE_PREFIX, ruleId.trim());
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM disclosure_rules WHERE id = ? AND layer = ? AND user_id = ?').get(n, scope.layer, scope.user_id) as Row | undefined;
    return r ? toRule(r) : null;
  }

  /** The scope's rules, oldest first. */
  list(scope: Scope): DisclosureRule[] {
    checkScope(scope);
    const rows = this.ctx.stmt('SELECT * FROM disclosure_rules WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as Row[];
    return rows.map(toRule);
  }

  private mustGet(scope: Scope, ruleId: string): DisclosureRule {
    const r = this.get(scope, ruleId);
    if (!r) throw notFound(`disclosure rule of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, ruleId.trim().slice(0, 100), 'rule_id');
    return r;
  }

  /** Enable or disable a rule; `changed` is false when it already was. */
  setEnabled(scope: Scope, ruleId: string, enabled: boolean): { rule: DisclosureRule; changed: boolean } {
    checkScope(scope);
    return this.ctx.tx(() => {
      const r = this.mustGet(scope, ruleId);
      if (r.enabled === enabled) return { rule: r, changed: false };
      this.ctx.stmt('UPDATE disclosure_rules SET enabled = ?, updated = ? WHERE id = ?').run(enabled ? 1 : 0, this.ctx.iso(), parseId(DISCLOSURE_PREFIX, r.rule_id));
      this.audit.log(scope, enabled ? 'enable' : 'disable', 'disclosure_rule', r.rule_id, { name: r.name });
      return { rule: this.get(scope, r.rule_id) as DisclosureRule, changed: true };
    });
  }

  delete(scope: Scope, ruleId: string): DisclosureRule {
    checkScope(scope);
    return this.ctx.tx(() => {
      const r = this.mustGet(scope, ruleId);
      this.ctx.stmt('DELETE FROM disclosure_rules WHERE id = ?').run(parseId(DISCLOSURE_PREFIX, r.rule_id));
      this.audit.log(scope, 'delete', 'disclosure_rule', r.rule_id, { name: r.name });
      return r;
    });
  }

  /**
   * Add a rule as add() does, then give it the state and times the record holds (memory_data
   * import). A name the scope holds already, in either form (`taken`), is left as it is: null.
   */
  restore(scope: Scope, r: { name: string; trigger_keywords: string[]; content: string; enabled: boolean; created: string; updated: string }): DisclosureRule | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      if (typeof r.name === 'string' && this.taken(scope, toNfc(r.name.trim()))) return null;
      const made = this.add(scope, r);
      this.ctx.stmt('UPDATE disclosure_rules SET enabled = ?, created = ?, updated = ? WHERE id = ?').run(r.enabled ? 1 : 0, r.created, r.updated, parseId(DISCLOSURE_PREFIX, made.rule_id));
      return this.get(scope, made.rule_id);
    });
  }

  /** Delete the scope's rules created at or after the ISO time (forget recent, memory_lucidity_purge); returns how many. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.ctx.deleteScoped('disclosure_rules', scope, sinceIso);
  }

  /** Delete every rule of the scope (memory_data import replace); returns how many. */
  clear(scope: Scope): number {
    return this.ctx.deleteScoped('disclosure_rules', scope);
  }

  /**
   * The scope's enabled rules with a trigger keyword in the text (a substring once both are folded
   * as dream and forget fold them, util.keywordInFolded: case, accents, NFC and NFD, ß and ss; any
   * keyword), oldest first.
   */
  matching(scope: Scope, text: string): DisclosureRule[] {
    checkScope(scope);
    if (typeof text !== 'string' || text.length === 0) return [];
    const hay = foldText(text);
    return this.list(scope).filter((r) => r.enabled && r.trigger_keywords.some((k) => keywordInFolded(hay, k)));
  }
}
