import { shownValue, userIdSchema, type Logger, type NightlyScopes, type NightlyScopesContext } from '@memory-service/kernel';
import type { Scope } from './types.js';

/**
 * The scopes (layer, user_id) a nightly run visits: those of the stores' own tables with a write
 * since the run before (storeScopesSince), and those the plugins' `nightly_scopes` taps list for
 * their own tables (pluginScopes), merged (mergeScopes): one entry per scope, in layer then user_id
 * order.
 */

/** The stores' tables whose records bring a scope into the run, each with the column of its write time. */
const STORE_TABLES: readonly (readonly [table: string, column: string])[] = [
  ['episodes', 'created'],
  ['facts', 'updated'],
  ['wiki_pages', 'updated'],
  ['graph_nodes', 'created'],
  ['timeline_events', 'created'],
  ['sessions', 'started'],
  ['sessions', 'ended'],
  ['scratchpad', 'updated'],
  ['recall_events', 'created'],
];

const STORE_SCOPES_SQL = STORE_TABLES.map(([t, c]) => `SELECT layer, user_id FROM ${t} WHERE ${c} > @since`).join(' UNION ') + ' ORDER BY layer, user_id';

/** The scopes with a record of the stores written (created or updated) after `since`, in layer then user_id order. */
export function storeScopesSince(stmt: (sql: string) => { all(params: { since: string }): unknown[] }, since: string): Scope[] {
  return stmt(STORE_SCOPES_SQL).all({ since }) as Scope[];
}

/** The `nightly_scopes` hook as the run calls it (the kernel's SyncWaterfallHook). */
export interface NightlyScopesHook {
  readonly taps: readonly { name: string }[];
  call(found: NightlyScopes, run: NightlyScopesContext): NightlyScopes;
}

/** What one plugin's `nightly_scopes` tap gave a run, recorded on the run (NightlyRun.plugin_scopes). */
export interface PluginScopesOutcome {
  /** The plugin whose tap it is. */
  plugin: string;
  /** failed: the tap threw, or answered something other than a list under its name; its scopes were not visited. */
  status: 'ok' | 'failed';
  /** The valid scopes it listed (some may have had writes of the stores too). */
  scopes: number;
  /** Entries of its list dropped as not a scope. */
  dropped: number;
  /** What the tap threw, or why its answer was refused; null otherwise. */
  error: string | null;
  /** The first entries dropped and why; null when none was. */
  detail: string | null;
}

/** Dropped entries named in an outcome's detail and in the log line, at most. */
const DROPPED_SHOWN = 3;

const LAYERS: readonly string[] = ['user', 'agent'];

/**
 * Why `entry` is not a scope a run may visit, or null when it is one: a layer of "user" or
 * "agent", and a user_id a tool would take (kernel's userIdSchema: a string of 1 to 200
 * characters, no white space first or last, no control character, slash or backslash), so the run never visits a scope no
 * tool could name.
 */
export function scopeProblem(entry: unknown): string | null {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'not an object { layer, user_id }';
  const { layer, user_id: userId } = entry as { layer?: unknown; user_id?: unknown };
  if (typeof layer !== 'string' || !LAYERS.includes(layer)) return `layer must be "user" or "agent", not ${layer === undefined ? 'missing' : shownValue(layer)}`;
  if (typeof userId !== 'string') return `user_id must be a string, not ${userId === undefined ? 'missing' : shownValue(userId)}`;
  const checked = userIdSchema.safeParse(userId);
  if (!checked.success) {
    const why = checked.error.issues[0]?.message ?? 'refused';
    return `user_id ${shownValue(userId)} is not one a tool takes (1 to 200 characters, no white space first or last, no control character, slash or backslash): ${why}`;
  }
  return null;
}

const failed = (plugin: string, error: string): PluginScopesOutcome => ({ plugin, status: 'failed', scopes: 0, dropped: 0, error, detail: null });

/**
 * Call the `nightly_scopes` taps once and take each tapping plugin's list from under its name:
 * its valid scopes, its invalid entries dropped (one warning naming the plugin), or its failure
 * (the `{ error }` the kernel's guard put under its name when the tap threw, or an answer that is
 * not a list). Never throws: a failure of the call itself fails every tapping plugin's outcome.
 */
export function pluginScopes(hook: NightlyScopesHook | null, run: NightlyScopesContext, logger: Logger): { scopes: Scope[]; outcomes: PluginScopesOutcome[] } {
  const names = [...new Set((hook?.taps ?? []).map((t) => t.name))];
  if (!hook || names.length === 0) return { scopes: [], outcomes: [] };
  let found: unknown;
  try {
    found = hook.call({}, run);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    logger.error(`the nightly_scopes taps failed: ${message}`);
    return { scopes: [], outcomes: names.map((n) => failed(n, message)) };
  }
  if (found === null || typeof found !== 'object' || Array.isArray(found)) {
    const why = `the nightly_scopes taps answered ${shownValue(found)}, not lists keyed by plugin name`;
    logger.error(why);
    return { scopes: [], outcomes: names.map((n) => failed(n, why)) };
  }
  const answers = found as Record<string, unknown>;
  const scopes: Scope[] = [];
  const outcomes = names.map((plugin): PluginScopesOutcome => {
    const answer = answers[plugin];
    if (answer === undefined) return { plugin, status: 'ok', scopes: 0, dropped: 0, error: null, detail: null };
    if (!Array.isArray(answer)) {
      const error = (answer as { error?: { message?: unknown } } | null)?.error;
      if (error !== undefined) return failed(plugin, String(error?.message ?? error));
      const why = `answered ${shownValue(answer)} under its name: a nightly_scopes tap adds a list of { layer, user_id } under its plugin name`;
      logger.error(`${plugin} failed on hook nightly_scopes: ${why}`);
      return failed(plugin, why);
    }
    const dropped: string[] = [];
    let kept = 0;
    for (const entry of answer as unknown[]) {
      const problem = scopeProblem(entry);
      if (problem !== null) {
        dropped.push(`${shownValue(entry)}: ${problem}`);
        continue;
      }
      const { layer, user_id } = entry as Scope;
      scopes.push({ layer, user_id });
      kept++;
    }
    let detail: string | null = null;
    if (dropped.length > 0) {
      detail = `dropped ${dropped.slice(0, DROPPED_SHOWN).join('; ')}${dropped.length > DROPPED_SHOWN ? `; and ${dropped.length - DROPPED_SHOWN} more` : ''}`;
      logger.warn(`${plugin} listed ${dropped.length} invalid scope(s) on hook nightly_scopes, not visited: ${detail}`);
    }
    return { plugin, status: 'ok', scopes: kept, dropped: dropped.length, error: null, detail };
  });
  const strays = Object.keys(answers).filter((k) => !names.includes(k));
  if (strays.length > 0) {
    logger.warn(`nightly_scopes: lists under ${strays.map((k) => shownValue(k)).join(', ')}, which name no plugin tapping the hook, were left out (a tap adds its list under its own plugin name)`);
  }
  return { scopes, outcomes };
}

/**
 * SQLite's BINARY order of two texts (their UTF-8 bytes), which is code point order: UTF-16 units
 * compare the same except that a surrogate (half of a code point past U+FFFF) must sort after
 * U+E000..U+FFFF, hence the shift.
 */
export function compareBinary(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** The scopes of every list, each once, in layer then user_id order as SQLite orders them. */
export function mergeScopes(...lists: readonly (readonly Scope[])[]): Scope[] {
  const seen = new Map<string, Set<string>>();
  const out: Scope[] = [];
  for (const list of lists) {
    for (const s of list) {
      let ids = seen.get(s.layer);
      if (!ids) seen.set(s.layer, (ids = new Set()));
      if (ids.has(s.user_id)) continue;
      ids.add(s.user_id);
      out.push({ layer: s.layer, user_id: s.user_id });
    }
  }
  return out.sort((a, b) => compareBinary(a.layer, b.layer) || compareBinary(a.user_id, b.user_id));
}
