import fs from 'node:fs';
import path from 'node:path';
import type { WriteWait } from '@memory-service/kernel';
import { validationError } from './errors.js';
import type { Fact } from './facts.js';
import type { Episode } from './episodes.js';
import { derivedNodeIds, type GraphNode } from './graph.js';
import { safeJoin } from './paths.js';
import { BACKUP_NAME } from './ops/backups.js';
import { RECALL_TRIM_MAX_ROWS } from './recall-events.js';
import { foldText } from './retrieval/query.js';
import type { Stores } from './stores.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';

export const CLEANUP_TASKS = ['dedup_core', 'compress_episodes', 'dream_buffer', 'audit', 'backups', 'compaction'] as const;
export type CleanupTask = (typeof CLEANUP_TASKS)[number];

export const AUDIT_RETENTION_DAYS_DEFAULT = 90;
export const AUDIT_RETENTION_DAYS_MAX = 3650;
export const BACKUPS_KEEP_DEFAULT = 10;
export const BACKUPS_KEEP_MAX = 1000;
/** The folder of the data dir whose oldest backups the backups task prunes. */
export const BACKUPS_DIR = 'backups';
/** Names (keys, ids, files) a task lists of what it removed or would remove; the counts are whole. */
export const CLEANUP_LIST_MAX = 50;

export interface CleanupOptions {
  dryRun: boolean;
  tasks?: readonly CleanupTask[];
  auditRetentionDays?: number;
  backupsKeep?: number;
}

export interface DedupCoreResult {
  groups: number;
  removed: number;
  /** Graph nodes made from a removed fact (its metadata derived_nodes) that no remaining fact or episode names. */
  removed_nodes: number;
  /** Facts and graph nodes archived in the Shadow Bin (applied runs). */
  archived: number;
  removed_keys: string[];
}
export interface CompressEpisodesResult {
  groups: number;
  removed: number;
  archived: number;
  /** Survivors whose tags took in their duplicates' tags. */
  retagged: number;
  removed_ids: string[];
}
export interface DreamBufferResult {
  rows: number;
  keep: number;
  removed: number;
}
export interface AuditTrimResult {
  retention_days: number;
  cutoff: string;
  removed: number;
}
export interface BackupsResult {
  dir_exists: boolean;
  files: number;
  keep: number;
  removed: number;
  removed_files: string[];
  /** Whether the database has the saga journal (memory_saga's saga_runs). */
  saga_table: boolean;
  /** Finished saga runs (completed, rolled_back) older than the audit retention removed from the journal; rollback_failed and unfinished runs stay. */
  saga_rows_removed: number;
  /** audit_log rows of no scope (project's, the nightly run's) older than the audit retention, removed (or that would be). */
  scopeless_audit_removed: number;
}
export interface CompactionResult {
  /** Old texts of deleted or changed records the retrieval change log still held (cleared). */
  old_texts: number;
  freelist_pages_before: number;
  freelist_pages_after: number;
  /** 'vacuum', 'incremental' (auto_vacuum is incremental), 'none' (no free page, or a dry run) or 'busy' (another connection held the database). */
  vacuum: 'vacuum' | 'incremental' | 'none' | 'busy';
  indexes_refreshed: boolean;
}

export interface CleanupResult {
  dry_run: boolean;
  tasks: CleanupTask[];
  dedup_core?: DedupCoreResult;
  compress_episodes?: CompressEpisodesResult;
  dream_buffer?: DreamBufferResult;
  audit?: AuditTrimResult;
  backups?: BackupsResult;
  compaction?: CompactionResult;
}

/** An episode summary as compress_episodes compares it: folded as retrieval folds, punctuation and spacing dropped. */
export function episodeKey(summary: string): string {
  // ASCII alone folds to its lower case, and its letters and digits are a-z and 0-9: the same key
  // without the Unicode classes, which cost most of compress_episodes over 100,000 episodes.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(summary)) return summary.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  return foldText(summary)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A 32-bit hash of a string's characters, one at a time (keyHash). */
function mix(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

/**
 * The hash of a summary's episodeKey, or null when the key is empty. An ASCII summary's key is
 * hashed as its characters are read (lower-cased letters and digits, one space between runs), with
 * no string made; another's key is made (episodeKey) and hashed. Equal keys hash alike.
 */
function keyHash(summary: string): number | null {
  let h = 0x811c9dc5;
  let any = false;
  let gap = false;
  for (let i = 0; i < summary.length; i++) {
    let c = summary.charCodeAt(i);
    if (c > 0x7f) {
      const key = episodeKey(summary);
      if (!key) return null;
      let k = 0x811c9dc5;
      for (let j = 0; j < key.length; j++) k = mix(k, key.charCodeAt(j));
      return k;
    }
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (gap && any) h = mix(h, 0x20);
      h = mix(h, c);
      any = true;
      gap = false;
    } else gap = true;
  }
  return any ? h : null;
}

/**
 * The ids of the rows whose summaries share an episodeKey, by key in the order of each key's first
 * row (ids ascending in, ascending out): only the rows whose key's hash another row shares get their
 * key made, so 100,000 distinct summaries cost a pass over their characters, not 100,000 keys.
 */
export function duplicateKeyGroups(rows: readonly { id: number; summary: string }[]): Map<string, number[]> {
  const byHash = new Map<number, number>();
  const hashes = new Array<number | null>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const h = keyHash(rows[i]!.summary);
    hashes[i] = h;
    if (h !== null) byHash.set(h, (byHash.get(h) ?? 0) + 1);
  }
  const groups = new Map<string, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const h = hashes[i];
    if (h === null || h === undefined || byHash.get(h)! < 2) continue;
    const key = episodeKey(rows[i]!.summary);
    const g = groups.get(key);
    if (g) g.push(rows[i]!.id);
    else groups.set(key, [rows[i]!.id]);
  }
  for (const [key, ids] of groups) if (ids.length < 2) groups.delete(key);
  return groups;
}

const newestFirst = (a: { created: string }, b: { created: string }) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0);

/**
 * memory_cleanup. Scope tasks (dedup_core, compress_episodes, dream_buffer, audit) change only the
 * (layer, user_id) given, in one transaction, archiving every fact, episode and graph node they
 * remove in the Shadow Bin first; backups and compaction act on the data dir and database as a whole. A dry run
 * reads what each task would remove and writes nothing, in the database or on disk (but the dream
 * telemetry already answered and still queued, which any read of it writes first).
 */
export class Cleanup {
  constructor(private readonly stores: Stores) {}

  /**
   * Run the tasks. A bad scope or option rejects before anything is done; the answer comes once
   * every task is done, compaction's index rebuild included (done in slices, so
   * other calls are answered meanwhile). While another process holds the write lock, each write
   * waits for it in the kernel's write queue (Stores.transactionWhenFree, writeWhenFree), not in
   * SQLite's busy handler, which stopped the whole server: within the busy timeout counted from
   * `wait.since` (the tool call's start), then it fails KERNEL_ERR_BUSY with that write undone.
   */
  async run(scope: Scope, opts: CleanupOptions, wait?: WriteWait): Promise<CleanupResult> {
    checkScope(scope);
    const tasks = CLEANUP_TASKS.filter((t) => (opts.tasks ?? CLEANUP_TASKS).includes(t));
    if (opts.tasks !== undefined && opts.tasks.length === 0) throw validationError('tasks', 'tasks must name at least one task (or be left out for all)', CLEANUP_TASKS);
    const retention = opts.auditRetentionDays ?? AUDIT_RETENTION_DAYS_DEFAULT;
    if (!Number.isInteger(retention) || retention < 1 || retention > AUDIT_RETENTION_DAYS_MAX) {
      throw validationError('audit_retention_days', `audit_retention_days must be a whole number from 1 to ${AUDIT_RETENTION_DAYS_MAX}`, `1..${AUDIT_RETENTION_DAYS_MAX}`);
    }
    const keep = opts.backupsKeep ?? BACKUPS_KEEP_DEFAULT;
    if (!Number.isInteger(keep) || keep < 1 || keep > BACKUPS_KEEP_MAX) {
      throw validationError('backups_keep', `backups_keep must be a whole number from 1 to ${BACKUPS_KEEP_MAX}`, `1..${BACKUPS_KEEP_MAX}`);
    }
    const dry = opts.dryRun;
    const out: CleanupResult = { dry_run: dry, tasks };
    const has = (t: CleanupTask) => tasks.includes(t);
    const scoped = () => {
      if (has('dedup_core')) out.dedup_core = this.dedupCore(scope, dry);
      if (has('compress_episodes')) out.compress_episodes = this.compressEpisodes(scope, dry);
      if (has('dream_buffer')) out.dream_buffer = this.dreamBuffer(scope, dry);
      if (has('audit')) out.audit = this.auditTrim(scope, retention, dry);
      if (!dry) {
        this.stores.audit.log(scope, 'cleanup', 'scope', `${scope.layer}:${scope.user_id}`, { tasks, ...summarize(out) });
      }
    };
    if (dry) {
      // dream_buffer's count writes the telemetry still queued first: in the write queue, not in SQLite's busy handler.
      if (has('dream_buffer')) await this.stores.writeDeferredWhenFree(wait);
      scoped();
    } else await this.stores.transactionWhenFree(scoped, wait);
    if (has('backups')) out.backups = await this.backups(keep, retention, dry, wait);
    if (has('compaction')) out.compaction = await this.compaction(dry, wait);
    return out;
  }

  /**
   * Facts of the scope holding the same value: the most important (then the latest updated, then
   * the newest) stays. The graph nodes a removed fact names as made from it (derived_nodes, as
   * forget exact removes them) go with it, archived like it, unless a fact that stays or an episode
   * names them too (think's and memory_hook's saves share one node between a fact and an episode).
   */
  private dedupCore(scope: Scope, dry: boolean): DedupCoreResult {
    const s = this.stores;
    const values = s.ctx
      .stmt('SELECT value FROM facts WHERE layer = ? AND user_id = ? GROUP BY value HAVING COUNT(*) > 1 ORDER BY MIN(id)')
      .pluck(true)
      .all(scope.layer, scope.user_id) as string[];
    const res: DedupCoreResult = { groups: values.length, removed: 0, removed_nodes: 0, archived: 0, removed_keys: [] };
    const plan: { kept: Fact; removed: Fact[] }[] = values.map((value) => {
      const ranked = s.facts.holding(scope, value).sort(
        (a: Fact, b: Fact) => b.importance - a.importance || (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0) || idNum(b.entry_id) - idNum(a.entry_id),
      );
      return { kept: ranked[0]!, removed: ranked.slice(1) };
    });
    const removing = new Set(plan.flatMap((g) => g.removed.map((f) => f.key)));
    // Which nodes are still named is asked only when a fact goes (it reads every fact's and episode's metadata).
    const named = removing.size === 0 ? new Set<string>() : this.nodesStillNamed(scope, removing);
    const taken = new Set<string>();
    for (const { kept, removed } of plan) {
      for (const f of removed) {
        const nodes: GraphNode[] = [];
        for (const id of derivedNodeIds(f.metadata)) {
          const node = named.has(id) || taken.has(id) ? null : s.graph.getNode(scope, id);
          taken.add(id);
          if (node) nodes.push(node);
        }
        if (!dry) {
          const reason = `memory_cleanup dedup_core: same value as ${kept.key}`;
          s.shadowBin.archive(scope, { origin_store: 'l4', origin_id: f.key, content: f, reason });
          s.facts.delete(scope, f.key);
          for (const n of nodes) {
            s.shadowBin.archive(scope, { origin_store: 'graph', origin_id: n.node_id, content: n, reason });
            s.graph.deleteNode(scope, n.node_id);
          }
          res.archived += 1 + nodes.length;
        }
        res.removed++;
        res.removed_nodes += nodes.length;
        if (res.removed_keys.length < CLEANUP_LIST_MAX) res.removed_keys.push(f.key);
      }
    }
    return res;
  }

  /** The node ids the scope's episodes, and its facts other than those of `removing` (keys), name in derived_nodes. */
  private nodesStillNamed(scope: Scope, removing: ReadonlySet<string>): Set<string> {
    const c = this.stores.ctx;
    const out = new Set<string>();
    const facts = c
      .stmt("SELECT f.key, j.value FROM facts f, json_each(f.metadata, '$.derived_nodes') j WHERE f.layer = ? AND f.user_id = ? AND json_valid(f.metadata)")
      .all(scope.layer, scope.user_id) as { key: string; value: unknown }[];
    for (const r of facts) if (!removing.has(r.key) && typeof r.value === 'string') out.add(r.value);
    const episodes = c
      .stmt("SELECT j.value FROM episodes e, json_each(e.meta, '$.derived_nodes') j WHERE e.layer = ? AND e.user_id = ? AND json_valid(e.meta)")
      .pluck(true)
      .all(scope.layer, scope.user_id) as unknown[];
    for (const v of episodes) if (typeof v === 'string') out.add(v);
    return out;
  }

  /**
   * Episodes of the scope whose summaries are the same once folded (case, accents, punctuation,
   * spacing: episodeKey) are merged into one: the most important (then the newest) stays and takes
   * in the others' tags; the others are archived and deleted.
   */
  private compressEpisodes(scope: Scope, dry: boolean): CompressEpisodesResult {
    const s = this.stores;
    const rows = s.ctx.stmt('SELECT id, summary FROM episodes WHERE layer = ? AND user_id = ? ORDER BY id').all(scope.layer, scope.user_id) as { id: number; summary: string }[];
    const groups = duplicateKeyGroups(rows);
    const res: CompressEpisodesResult = { groups: 0, removed: 0, archived: 0, retagged: 0, removed_ids: [] };
    for (const ids of groups.values()) {
      if (ids.length < 2) continue;
      res.groups++;
      const eps = ids.map((n) => s.episodes.get(scope, `ep_${n}`)).filter((e): e is Episode => e !== null);
      eps.sort((a, b) => b.importance - a.importance || newestFirst(a, b) || idNum(b.id) - idNum(a.id));
      const kept = eps[0]!;
      const tags = [...kept.tags];
      for (const e of eps.slice(1)) {
        for (const t of e.tags) if (!tags.includes(t)) tags.push(t);
        if (!dry) {
          s.shadowBin.archive(scope, { origin_store: 'l3', origin_id: e.id, content: e, reason: `memory_cleanup compress_episodes: merged into ${kept.id}` });
          s.episodes.delete(scope, e.id);
          res.archived++;
        }
        res.removed++;
        if (res.removed_ids.length < CLEANUP_LIST_MAX) res.removed_ids.push(e.id);
      }
      if (tags.length !== kept.tags.length) {
        res.retagged++;
        // Every tag merged is one an episode held: kept as it is, even one stored before tags were checked.
        if (!dry) s.episodes.setTags(scope, kept.id, tags, { held: 'any' });
      }
    }
    return res;
  }

  /**
   * recall_events (dream's telemetry) of the scope beyond the keep bound (config recallEventsKeep),
   * oldest first. The count writes the telemetry still queued first (RecallEventStore), in a dry
   * run too: the dry run reports what the applied run then removes.
   */
  private dreamBuffer(scope: Scope, dry: boolean): DreamBufferResult {
    const s = this.stores;
    const keep = s.config.recallEventsKeep;
    const rows = s.recallEvents.count(scope);
    if (dry) return { rows, keep, removed: Math.max(0, rows - keep) };
    let removed = 0;
    for (;;) {
      const n = s.recallEvents.trim(scope, keep);
      removed += n;
      if (n < RECALL_TRIM_MAX_ROWS) break;
    }
    return { rows, keep, removed };
  }

  /** audit_log rows of the scope older than the retention. */
  private auditTrim(scope: Scope, days: number, dry: boolean): AuditTrimResult {
    const cutoff = new Date(this.stores.ctx.clock.now() - days * 86_400_000).toISOString();
    const removed = dry ? this.stores.audit.countBefore(scope, cutoff) : this.stores.audit.deleteBefore(scope, cutoff);
    return { retention_days: days, cutoff, removed };
  }

  /**
   * The backups of `<data_dir>/backups` (BACKUP_NAME) beyond the newest `keep` (by modification time,
   * then name), each with its -journal, -wal and -shm files,
   * the saga journal's finished runs (completed, rolled_back) older than `days`, and the audit_log
   * rows of no scope older than `days`: the audit task trims a scope's own rows, and no scope's call
   * reached the rows project and the nightly run write for the whole data dir. The two trims are
   * one transaction, waiting for another process's write lock in the write queue.
   */
  private async backups(keep: number, days: number, dry: boolean, wait?: WriteWait): Promise<BackupsResult> {
    const dir = safeJoin(this.stores.ctx.dataDir, BACKUPS_DIR);
    const cutoff = new Date(this.stores.ctx.clock.now() - days * 86_400_000).toISOString();
    const trim = () => {
      const sagaTable = (this.stores.ctx.stmt("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'saga_runs'").pluck(true).get() as number) > 0;
      const sagaRows = sagaTable ? this.stores.sagas.journal.prune(cutoff, dry) : 0;
      const audit = this.stores.audit;
      const scopeless = dry ? audit.countScopelessBefore(cutoff) : audit.deleteScopelessBefore(cutoff);
      return { sagaTable, sagaRows, scopeless };
    };
    const { sagaTable, sagaRows, scopeless } = dry ? trim() : await this.stores.transactionWhenFree(trim, wait);
    const res: BackupsResult = {
      dir_exists: false,
      files: 0,
      keep,
      removed: 0,
      removed_files: [],
      saga_table: sagaTable,
      saga_rows_removed: sagaRows,
      scopeless_audit_removed: scopeless,
    };
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return res;
    }
    res.dir_exists = true;
    // Backups only, by their names: a temp copy being taken, a -journal, -wal or -shm file, or a
    // folder (l1-invalid/) is not a backup; each removed backup's own such files go with it.
    const files: { name: string; mtime: number }[] = [];
    for (const name of names) {
      if (!BACKUP_NAME.test(name)) continue;
      const st = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
      if (st?.isFile()) files.push({ name, mtime: st.mtimeMs });
    }
    files.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    res.files = files.length;
    for (const f of files.slice(keep)) {
      if (!dry) this.stores.backups.remove(f.name);
      res.removed++;
      if (res.removed_files.length < CLEANUP_LIST_MAX) res.removed_files.push(f.name);
    }
    return res;
  }

  /**
   * Forgetting compaction: the retrieval change log's copies of deleted and changed texts are
   * cleared (the indexes here take them in first), the indexes due for it are rebuilt, SQLite's
   * statistics refreshed, and the free pages deleted records left are given back (VACUUM, or an
   * incremental vacuum when auto_vacuum is incremental), so what was forgotten is no longer in the file.
   * The rebuild goes in slices a turn apart (Retrieval.refreshInSlices): at 50,000 memories one block
   * left every other call unanswered for seconds. Should the database close meanwhile, the rest is
   * not done (indexes_refreshed false, no vacuum) and nothing is written after the close. Each
   * write (the texts cleared, the statistics, the vacuum) waits for another process's write lock
   * in the write queue (Stores.writeWhenFree: none can run in the kernel's transaction, VACUUM
   * refuses one); a vacuum still refused when the wait ends is `busy`, as before.
   */
  private async compaction(dry: boolean, wait?: WriteWait): Promise<CompactionResult> {
    const s = this.stores;
    const freelist = () => s.ctx.db.pragma('freelist_count', { simple: true }) as number;
    const before = freelist();
    const oldTexts = s.ctx.stmt('SELECT COUNT(*) FROM retrieval_changes WHERE old IS NOT NULL').pluck(true).get() as number;
    const untouched: CompactionResult = { old_texts: oldTexts, freelist_pages_before: before, freelist_pages_after: before, vacuum: 'none', indexes_refreshed: false };
    if (dry || s.ctx.db.inTransaction) return untouched;
    const upTo = s.retrieval.changeSeq();
    await s.writeWhenFree(() => s.retrieval.dropOldTexts(0, upTo), wait);
    if (!(await s.retrieval.refreshInSlices(() => !s.ctx.db.open)) || !s.ctx.db.open) return untouched;
    await s.writeWhenFree(() => s.ctx.db.pragma('optimize'), wait);
    let vacuum: CompactionResult['vacuum'] = 'none';
    if (before > 0) {
      try {
        const incremental = (s.ctx.db.pragma('auto_vacuum', { simple: true }) as number) === 2;
        vacuum = await s.writeWhenFree(() => {
          if (incremental) s.ctx.db.pragma('incremental_vacuum');
          else s.ctx.db.exec('VACUUM');
          return incremental ? 'incremental' : 'vacuum';
        }, wait);
      } catch (err) {
        if (!/busy|locked/i.test((err as Error).message)) throw err;
        vacuum = 'busy';
      }
    }
    return { old_texts: oldTexts, freelist_pages_before: before, freelist_pages_after: freelist(), vacuum, indexes_refreshed: true };
  }
}

function idNum(id: string): number {
  return Number(id.slice(id.lastIndexOf('_') + 1)) || 0;
}

/** The counts of each task, for the audit row (no keys, ids or file names). */
function summarize(r: CleanupResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [task, v] of Object.entries(r)) if (v && typeof v === 'object' && !Array.isArray(v) && 'removed' in v) out[task] = (v as { removed: number }).removed;
  return out;
}
