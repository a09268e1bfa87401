import fs from 'node:fs';
import { HIDDEN_FORMAT_ACCEPTED, hiddenFormatAt, toNfc } from '@memory-service/kernel';
import type { EpisodeStore, Episode } from './episodes.js';
import type { StoreContext } from './context.js';
import { safeJoin } from './paths.js';
import type { Scope } from './types.js';
import { clampImportance } from './facts.js';
import { foldText } from './retrieval/query.js';
import { keywordInFolded } from './util.js';
import { yaml } from './yaml.js';

/** The rules file, directly in the data dir. */
export const WRITE_GATE_FILE = 'rules.yaml';
/** The most the matching rules together add to an importance. */
export const WRITE_GATE_BOOST_CAP = 0.3;
/** The most rules one file may hold, and the most phrases and tags one rule may hold. */
export const WRITE_GATE_MAX_RULES = 200;
export const WRITE_GATE_MAX_ITEMS = 50;
/**
 * How long a write trusts the last look at rules.yaml (monotonic ms): a hand edit applies to writes
 * from at most this much later; memory_load_rules (list and reload) always looks. Every think asked
 * the file system (a stat, about 25 µs on a call after idle, 4 % of think).
 */
export const WRITE_GATE_RECHECK_MS = 1000;
/** The fields a rule may have. */
export const WRITE_GATE_RULE_FIELDS = ['name', 'when_content_contains', 'importance_boost', 'tags'] as const;

export interface WriteGateRule {
  /** Position in the file (0-based). */
  index: number;
  name: string;
  /** Phrases matched as substrings once phrase and text are folded (util.keywordInFolded); any one matches (OR). */
  when_content_contains: string[];
  importance_boost: number;
  tags: string[];
}

export interface WriteGateError {
  /** The rule's position in the file, or null for an error about the whole file. */
  index: number | null;
  field: string;
  message: string;
}

export interface WriteGateRuleset {
  path: string;
  exists: boolean;
  /** Modification time of the file read, ISO; null when there is no file. */
  mtime: string | null;
  rules: WriteGateRule[];
  /** Problems of the file as it is now; when any, `rules` is the last good ruleset (or none). */
  errors: WriteGateError[];
  /** Where the rules in force come from: the current file, the last good file, or none. */
  in_force: 'file' | 'previous' | 'none';
}

export interface WriteGateMatch {
  /** Sum of the matching rules' boosts, capped at WRITE_GATE_BOOST_CAP. */
  boost: number;
  /** Tags of the matching rules, in rule order, without repeats. */
  tags: string[];
  /** Names of the matching rules. */
  matched: string[];
}

interface Loaded {
  mtimeMs: number | null;
  size: number;
  result: WriteGateRuleset;
}

function err(index: number | null, field: string, message: string): WriteGateError {
  return { index, field, message };
}

/** A rule of the file, or the errors that make it invalid. */
function checkRule(raw: unknown, index: number, errors: WriteGateError[]): WriteGateRule | null {
  const before = errors.length;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(err(index, 'rule', 'a rule must be a mapping with when_content_contains, importance_boost and tags'));
    return null;
  }
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    if (!(WRITE_GATE_RULE_FIELDS as readonly string[]).includes(k)) errors.push(err(index, k, `unknown field ${JSON.stringify(k)}; accepted: ${WRITE_GATE_RULE_FIELDS.join(', ')}`));
  }
  let phrases: string[] = [];
  const w = r.when_content_contains;
  const list = typeof w === 'string' ? [w] : Array.isArray(w) ? w : null;
  if (list === null || list.length === 0) {
    errors.push(err(index, 'when_content_contains', 'when_content_contains is required: a phrase or a non-empty list of phrases'));
  } else if (list.length > WRITE_GATE_MAX_ITEMS) {
    errors.push(err(index, 'when_content_contains', `at most ${WRITE_GATE_MAX_ITEMS} phrases`));
  } else if (list.some((p) => typeof p !== 'string' || p.trim().length === 0 || p.length > 200)) {
    errors.push(err(index, 'when_content_contains', 'every phrase must be a non-blank string of at most 200 characters'));
  } else {
    phrases = (list as string[]).map((p) => p.trim());
  }
  const b = r.importance_boost ?? 0;
  if (typeof b !== 'number' || !Number.isFinite(b) || b < 0 || b > 1) {
    errors.push(err(index, 'importance_boost', 'importance_boost must be a number from 0 to 1 (the sum over matching rules is capped at 0.3)'));
  }
  let tags: string[] = [];
  const t = r.tags ?? [];
  const tagList = typeof t === 'string' ? [t] : t;
  if (!Array.isArray(tagList) || tagList.length > WRITE_GATE_MAX_ITEMS || tagList.some((x) => typeof x !== 'string' || x.trim().length === 0 || x.length > 200)) {
    errors.push(err(index, 'tags', `tags must be a tag or a list of at most ${WRITE_GATE_MAX_ITEMS} non-blank strings of at most 200 characters`));
  } else if ((tagList as string[]).some((x) => hiddenFormatAt(x) !== -1)) {
    // The rule's tags go on episodes, whose new tags may not hold one (util.normalizeTags).
    errors.push(err(index, 'tags', `a tag must not hold an invisible format character; accepted: ${HIDDEN_FORMAT_ACCEPTED}`));
  } else {
    // In NFC, the form tags are stored in.
    tags = [...new Set((tagList as string[]).map((x) => toNfc(x.trim())))];
  }
  const n = r.name;
  if (n !== undefined && (typeof n !== 'string' || n.trim().length === 0 || n.length > 100)) {
    errors.push(err(index, 'name', 'name must be a non-blank string of at most 100 characters'));
  }
  if (errors.length > before) return null;
  return {
    index,
    name: typeof n === 'string' ? n.trim() : `rule_${index}`,
    when_content_contains: phrases,
    importance_boost: b as number,
    tags,
  };
}

/**
 * Parse and validate the text of a rules file: a list of rules, or a mapping with a `rules` list.
 * Returns the rules, or the errors (each naming the rule index and field) when any rule is bad:
 * a file is taken whole or not at all.
 */
export function parseWriteGateRules(text: string): { rules: WriteGateRule[]; errors: WriteGateError[] } {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    return { rules: [], errors: [err(null, 'file', `not valid YAML: ${(e as Error).message.split('\n')[0]}`)] };
  }
  if (doc === null || doc === undefined) return { rules: [], errors: [] };
  let list: unknown = doc;
  if (!Array.isArray(doc)) {
    if (typeof doc !== 'object') return { rules: [], errors: [err(null, 'file', 'the file must hold a list of rules, or a mapping with a rules list')] };
    const keys = Object.keys(doc as object);
    const extra = keys.filter((k) => k !== 'rules');
    if (extra.length > 0) return { rules: [], errors: [err(null, extra[0]!, `unknown top-level field ${JSON.stringify(extra[0])}; accepted: rules`)] };
    list = (doc as { rules?: unknown }).rules ?? [];
    if (!Array.isArray(list)) return { rules: [], errors: [err(null, 'rules', 'rules must be a list of rules')] };
  }
  const items = list as unknown[];
  if (items.length > WRITE_GATE_MAX_RULES) return { rules: [], errors: [err(null, 'rules', `at most ${WRITE_GATE_MAX_RULES} rules`)] };
  const errors: WriteGateError[] = [];
  const rules: WriteGateRule[] = [];
  items.forEach((raw, i) => {
    const rule = checkRule(raw, i, errors);
    if (rule) rules.push(rule);
  });
  return errors.length > 0 ? { rules: [], errors } : { rules, errors };
}

/** What a set of rules does to a text: the capped boost and the tags of the rules whose phrases it holds. */
export function matchWriteGate(rules: readonly WriteGateRule[], text: string): WriteGateMatch {
  // Folded as watch and disclosure keywords are (util.keywordInFolded): NFC and NFD, case, accents,
  // ß and ss, İ and i; a phrase that folds to nothing is in no text.
  const folded = rules.length > 0 ? foldText(text) : '';
  let sum = 0;
  const tags: string[] = [];
  const matched: string[] = [];
  for (const r of rules) {
    if (!r.when_content_contains.some((p) => keywordInFolded(folded, p))) continue;
    sum += r.importance_boost;
    matched.push(r.name);
    for (const t of r.tags) if (!tags.includes(t)) tags.push(t);
  }
  return { boost: Math.round(Math.min(sum, WRITE_GATE_BOOST_CAP) * 10_000) / 10_000, tags, matched };
}

/**
 * The write-gate rules of `<data_dir>/rules.yaml`: read once and again only when the file's
 * modification time (or size) changes, or on reload(). A file that fails validation is reported
 * (rule index and field) and the last good ruleset stays in force.
 */
export class WriteGate {
  private loaded: Loaded | null = null;
  /** The last ruleset read without errors, kept in force while the file is bad. */
  private good: { rules: WriteGateRule[]; mtime: string | null } | null = null;

  constructor(
    private readonly ctx: StoreContext,
    private readonly episodes: EpisodeStore,
  ) {}

  /** Worked out once: every think asks for the ruleset, and the data dir does not move. */
  private file: string | null = null;

  get path(): string {
    return (this.file ??= safeJoin(this.ctx.dataDir, WRITE_GATE_FILE));
  }

  /** When the file was last looked at (performance.now()). */
  private checkedAt = Number.NEGATIVE_INFINITY;

  /**
   * The ruleset in force, re-read when the file changed since the last read. The file is looked at
   * again only when the last look is older than `maxAgeMs` (WRITE_GATE_RECHECK_MS for writes; 0 to look now).
   */
  ruleset(maxAgeMs = WRITE_GATE_RECHECK_MS): WriteGateRuleset {
    const now = performance.now();
    if (this.loaded && now - this.checkedAt < maxAgeMs) return this.loaded.result;
    this.checkedAt = now;
    const file = this.path;
    // No file is the common case: a stat that does not throw for it (an error's stack costs more than the stat).
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(file, { throwIfNoEntry: false }) ?? null;
    } catch {
      st = null;
    }
    const mtimeMs = st ? st.mtimeMs : null;
    const size = st ? st.size : 0;
    if (this.loaded && this.loaded.mtimeMs === mtimeMs && this.loaded.size === size) return this.loaded.result;
    return this.read(file, st);
  }

  /** Read the file again whatever its modification time. */
  reload(): WriteGateRuleset {
    this.loaded = null;
    return this.ruleset(0);
  }

  private read(file: string, st: fs.Stats | null): WriteGateRuleset {
    let result: WriteGateRuleset;
    if (!st) {
      this.good = { rules: [], mtime: null };
      result = { path: file, exists: false, mtime: null, rules: [], errors: [], in_force: 'none' };
    } else {
      const mtime = new Date(st.mtimeMs).toISOString();
      let parsed: { rules: WriteGateRule[]; errors: WriteGateError[] };
      if (!st.isFile()) parsed = { rules: [], errors: [err(null, 'file', 'rules.yaml is not a regular file')] };
      else if (st.size > 1_000_000) parsed = { rules: [], errors: [err(null, 'file', 'rules.yaml is larger than 1 MB')] };
      else {
        try {
          parsed = parseWriteGateRules(fs.readFileSync(file, 'utf8'));
        } catch (e) {
          parsed = { rules: [], errors: [err(null, 'file', `cannot read rules.yaml: ${(e as Error).message}`)] };
        }
      }
      if (parsed.errors.length === 0) {
        this.good = { rules: parsed.rules, mtime };
        result = { path: file, exists: true, mtime, rules: parsed.rules, errors: [], in_force: parsed.rules.length > 0 ? 'file' : 'none' };
      } else {
        const kept = this.good?.rules ?? [];
        // With no earlier ruleset (or an empty one) nothing stays in force: in_force is 'none'.
        const outcome = kept.length > 0 ? `the previous ruleset (${kept.length} rule(s)) stays in force` : 'no rules are in force until it is fixed';
        this.ctx.logger.warn(`rules.yaml is invalid (${parsed.errors.length} problem(s), first: rule ${parsed.errors[0]!.index ?? '-'} field ${parsed.errors[0]!.field}); ${outcome}`);
        result = { path: file, exists: true, mtime, rules: kept, errors: parsed.errors, in_force: kept.length > 0 ? 'previous' : 'none' };
      }
    }
    this.loaded = { mtimeMs: st ? st.mtimeMs : null, size: st ? st.size : 0, result };
    return result;
  }

  /** The boost and tags the rules in force give this text. */
  evaluate(text: string): WriteGateMatch {
    return matchWriteGate(this.ruleset().rules, text);
  }

  /** The importance after the rules' boost, within 0.05..1.0. */
  boosted(importance: number, text: string): number {
    return clampImportance(importance + this.evaluate(text).boost);
  }

  /**
   * Apply the rules to an episode already written (think's): its importance gets the boost and
   * its tags the rules' tags. Returns the match and the updated episode, or null when the episode
   * is gone or no rule matches.
   */
  applyToEpisode(scope: Scope, id: string): { match: WriteGateMatch; episode: Episode } | null {
    // No rule in force (no rules.yaml, the common case): nothing to read.
    if (this.ruleset().rules.length === 0) return null;
    const ep = this.episodes.get(scope, id);
    if (!ep) return null;
    const match = this.evaluate(ep.summary);
    if (match.matched.length === 0) return null;
    return this.ctx.tx(() => {
      if (match.boost > 0) this.episodes.setImportance(scope, id, clampImportance(ep.importance + match.boost), 'write_gate');
      const tags = [...ep.tags, ...match.tags.filter((t) => !ep.tags.includes(t))];
      const episode = tags.length !== ep.tags.length ? this.episodes.setTags(scope, id, tags) : this.episodes.get(scope, id);
      return { match, episode: episode as Episode };
    });
  }
}
