import fs from 'node:fs';
import path from 'node:path';
import { tempNameFor, type MigrationStatus, type WriteWait } from '@memory-service/kernel';
import type { StoreContext } from '../context.js';
import type { L1Ring } from '../l1.js';
import { safeJoin } from '../paths.js';
import { isoOf } from '../util.js';
import { BACKUP_DIR } from './backups.js';
import type { BreakerName, BreakerRegistry, BreakerSnapshot } from './breakers.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';
export type OverallStatus = 'ok' | 'degraded';

export interface HealthCheck {
  name: string;
  status: CheckStatus;
  detail: string;
}

export interface Diagnosis {
  status: OverallStatus;
  checks: HealthCheck[];
  breakers: BreakerSnapshot[];
}

/** The kernel's migration bookkeeping (PluginContext.storage): what /ready reports and remigrate re-applies. */
export interface MigrationHost {
  status(): MigrationStatus[];
  remigrate(): Record<string, number[]>;
}

/** Pending proposals at which the backlog check warns. */
export const PROPOSAL_BACKLOG_WARN = 100;
/** A pending proposal older than this makes the backlog check warn. */
export const PROPOSAL_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** The actions of memory_heal, in the order it runs them when none is named. */
export const HEAL_ACTIONS = ['remigrate', 'reset_breakers', 'purge_invalid_l1'] as const;
export type HealAction = (typeof HEAL_ACTIONS)[number];
/** Where purge_invalid_l1 keeps a copy of each invalid L1 file before removing it (under backups/, one folder per run). */
export const L1_QUARANTINE_DIR = 'l1-invalid';

export interface HealResult {
  action: HealAction;
  detail: string;
  /** remigrate: ids applied per owner; reset_breakers: the breakers that were not closed; purge_invalid_l1: files removed and their copies. */
  applied?: Record<string, number[]>;
  reset?: BreakerName[];
  removed?: string[];
  backed_up?: string[];
}

const worst = (checks: HealthCheck[]): OverallStatus => (checks.every((c) => c.status === 'ok') ? 'ok' : 'degraded');

/**
 * memory_diagnose and memory_heal over the whole data dir: the checks never throw (a check that
 * cannot run is a `fail` naming why), the heal actions are each idempotent.
 */
/** memory_diagnose warns below this much free space on the data dir's disk: a few backups' worth at an agent's scale. */
export const LOW_DISK_BYTES = 64 * 1024 * 1024;

/**
 * The data_dir check's probe file: `<data_dir>/write-probe.<pid>.<12 hex>.tmp` (kernel tempNameFor),
 * so one a kill left between its creation and removal is removed by the next start's stale-temp
 * cleanup (stale-temps.ts: the data dir is one of its folders).
 */
export const WRITE_PROBE_NAME = 'write-probe';
/** What the probe writes: a few bytes, synced to the disk. */
const WRITE_PROBE_BYTES = Buffer.from('memory-service write probe\n');

/** What an OS error code means for a data dir that cannot be written, in words. */
const WRITE_FAILURE_CAUSE: Record<string, string> = {
  EROFS: 'the file system holding it is mounted read-only',
  EACCES: 'this process may not write there (permissions)',
  EPERM: 'this process may not write there (permissions)',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  ENOENT: 'the data dir is gone (moved or deleted while the server runs)',
  EIO: 'the disk reported an I/O error',
};

export class Health {
  constructor(
    private readonly ctx: StoreContext,
    private readonly l1: L1Ring,
    private readonly breakers: BreakerRegistry,
    /** The checks of background work: the nightly run (Nightly.check) and the saga journal (SagaWatchdog.diagnose). */
    private readonly background: Record<'nightly' | 'sagas', () => Omit<HealthCheck, 'name'>>,
  ) {}

  diagnose(migrations: MigrationHost): Diagnosis {
    const checks = [
      this.guard('database', () => this.database()),
      this.guard('data_dir', () => this.dataDirWritable()),
      this.guard('migrations', () => this.migrations(migrations)),
      this.guard('l1_files', () => this.l1Files()),
      this.guard('proposals', () => this.proposals()),
      this.guard('breakers', () => this.breakerCheck()),
      this.guard('nightly', () => this.background.nightly()),
      this.guard('sagas', () => this.background.sagas()),
    ];
    return { status: worst(checks), checks, breakers: this.breakers.list() };
  }

  /**
   * Run the actions in order. remigrate opens a transaction per migration (applied or not): while
   * another process holds the write lock it waits in the kernel's write queue (StoreContext.writeWhenFree,
   * within the busy timeout counted from `wait.since`), not in SQLite's busy handler, and is run again
   * once it may take it (it applies only what is still pending).
   */
  async heal(actions: readonly HealAction[], migrations: MigrationHost, wait?: WriteWait): Promise<HealResult[]> {
    const out: HealResult[] = [];
    for (const a of actions) out.push(a === 'remigrate' ? await this.remigrate(migrations, wait) : this.healNow(a));
    return out;
  }

  private async remigrate(migrations: MigrationHost, wait?: WriteWait): Promise<HealResult> {
    const applied = await this.ctx.writeWhenFree(() => migrations.remigrate(), wait);
    const n = Object.values(applied).reduce((k, ids) => k + ids.length, 0);
    return { action: 'remigrate', applied, detail: n === 0 ? 'every migration was already applied' : `applied ${n} pending migration(s)` };
  }

  private healNow(a: Exclude<HealAction, 'remigrate'>): HealResult {
    if (a === 'reset_breakers') {
      const reset = this.breakers.resetAll();
      return { action: a, reset, detail: reset.length === 0 ? 'every breaker was already closed' : `closed ${reset.join(', ')}` };
    }
    const dir = safeJoin(this.ctx.dataDir, BACKUP_DIR, L1_QUARANTINE_DIR, isoOf(this.ctx.clock.now()).replace(/[-:.]/g, ''));
    const { removed, backed_up } = this.l1.purgeInvalid(dir);
    const rel = (f: string) => path.relative(this.ctx.dataDir, f);
    return {
      action: a,
      removed: removed.map(rel),
      backed_up: backed_up.map(rel),
      detail: removed.length === 0 ? 'every L1 file is valid' : `removed ${removed.length} invalid L1 file(s), copies kept under ${rel(dir)}`,
    };
  }

  private guard(name: string, check: () => Omit<HealthCheck, 'name'>): HealthCheck {
    try {
      return { name, ...check() };
    } catch (err) {
      return { name, status: 'fail', detail: `the check could not run: ${(err as Error).message}` };
    }
  }

  private database(): Omit<HealthCheck, 'name'> {
    const file = this.ctx.db.name;
    if (!this.ctx.db.open) return { status: 'fail', detail: 'the database connection is closed' };
    if (!fs.existsSync(file)) return { status: 'fail', detail: `${path.basename(file)} is missing from the data dir (moved or deleted while the server runs)` };
    const rows = this.ctx.db.pragma('quick_check') as { quick_check: string }[];
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
    if (problems.length > 0) return { status: 'fail', detail: `quick_check found ${problems.length} problem(s): ${problems.slice(0, 3).join('; ')}` };
    const free = this.freeBytes();
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    const head = `${path.basename(file)} exists; quick_check ok`;
    if (free === null) return { status: 'ok', detail: head };
    if (free === 0) return { status: 'fail', detail: `${head}; the disk holding the data dir is full: every write fails until space is freed` };
    if (free < LOW_DISK_BYTES) return { status: 'warn', detail: `${head}; only ${mib(free)} free on the disk holding the data dir (writes fail once it is full)` };
    return { status: 'ok', detail: `${head}; ${mib(free)} free on its disk` };
  }

  /**
   * Whether the data dir can be written now: a probe file is created, written, synced and removed
   * (WRITE_PROBE_NAME); memory.db and every other file are left untouched. A read-only remount, a
   * data dir whose permissions changed or a full disk fails here, naming the dir, the step and the
   * OS error code, where the database check (reads only) said ok.
   */
  private dataDirWritable(): Omit<HealthCheck, 'name'> {
    const dir = this.ctx.dataDir;
    const probe = tempNameFor(path.join(dir, WRITE_PROBE_NAME));
    let step = 'create';
    let fd: number | undefined;
    try {
      fd = fs.openSync(probe, 'wx', 0o600);
      step = 'write';
      for (let at = 0; at < WRITE_PROBE_BYTES.length; ) at += fs.writeSync(fd, WRITE_PROBE_BYTES, at);
      step = 'sync';
      fs.fsyncSync(fd);
      step = 'close';
      const opened = fd;
      fd = undefined;
      fs.closeSync(opened);
      step = 'remove';
      fs.unlinkSync(probe);
    } catch (err) {
      if (fd !== undefined) {
        try {
          fs.closeSync(fd);
        } catch {
          // Closed or gone: nothing left to release.
        }
      }
      // A probe that was made is not left behind (the next start would remove it anyway).
      if (step !== 'create' && step !== 'remove') {
        try {
          fs.rmSync(probe, { force: true });
        } catch {
          // Left for the next start's stale-temp cleanup.
        }
      }
      const e = err as NodeJS.ErrnoException;
      const code = e.code ?? 'an unknown error';
      const cause = e.code && WRITE_FAILURE_CAUSE[e.code] ? `: ${WRITE_FAILURE_CAUSE[e.code]}` : '';
      return {
        status: 'fail',
        detail: `the data dir ${dir} cannot be written now (${step} of a probe file failed with ${code}${cause}): writes that make files there (memory.db's journal, L1 files, backups, exports) fail until it can be written again`,
      };
    }
    return { status: 'ok', detail: `${dir} is writable: a probe file was created, written, synced and removed` };
  }

  /** Bytes this process may still write on the disk holding the data dir, or null when the system cannot say. */
  private freeBytes(): number | null {
    try {
      const st = fs.statfsSync(this.ctx.dataDir);
      return Number(st.bavail) * Number(st.bsize);
    } catch {
      return null;
    }
  }

  private migrations(host: MigrationHost): Omit<HealthCheck, 'name'> {
    const owners = host.status();
    const behind = owners.filter((o) => o.pending.length > 0);
    if (behind.length > 0) {
      return { status: 'fail', detail: `pending migrations (run memory_heal remigrate): ${behind.map((o) => `${o.owner} ${o.pending.join(',')}`).join('; ')}` };
    }
    return { status: 'ok', detail: `at head: ${owners.map((o) => `${o.owner} ${o.applied}/${o.head}`).join(', ') || 'no migrations'}` };
  }

  private l1Files(): Omit<HealthCheck, 'name'> {
    const files = this.l1.validate();
    const bad = files.filter((f) => !f.valid);
    if (bad.length > 0) {
      const shown = bad.slice(0, 5).map((f) => `${path.relative(this.ctx.dataDir, f.file)} (${f.error})`);
      return { status: 'warn', detail: `${bad.length} of ${files.length} L1 file(s) invalid (memory_heal purge_invalid_l1 removes them): ${shown.join('; ')}` };
    }
    return { status: 'ok', detail: `${files.length} L1 file(s), all valid JSON rings` };
  }

  private proposals(): Omit<HealthCheck, 'name'> {
    const row = this.ctx.db.prepare("SELECT count(*) AS n, min(created) AS oldest FROM proposals WHERE status = 'pending'").get() as { n: number; oldest: string | null };
    const age = row.oldest === null ? 0 : this.ctx.clock.now() - Date.parse(row.oldest);
    const detail = `${row.n} pending proposal(s)${row.oldest ? `, oldest from ${row.oldest}` : ''}`;
    if (row.n >= PROPOSAL_BACKLOG_WARN) return { status: 'warn', detail: `${detail}: at least ${PROPOSAL_BACKLOG_WARN} wait for a decision (memory_proposals decide)` };
    if (age > PROPOSAL_MAX_AGE_MS) return { status: 'warn', detail: `${detail}: one has waited more than ${PROPOSAL_MAX_AGE_MS / 86_400_000} days (memory_proposals decide)` };
    return { status: 'ok', detail };
  }

  private breakerCheck(): Omit<HealthCheck, 'name'> {
    const all = this.breakers.list();
    const open = all.filter((b) => b.state === 'open');
    const half = all.filter((b) => b.state === 'half-open');
    const show = (bs: BreakerSnapshot[]) => bs.map((b) => `${b.name} (${b.failures} failure(s)${b.last_error ? `: ${b.last_error}` : ''})`).join('; ');
    if (open.length > 0) return { status: 'fail', detail: `open (its work is skipped; memory_heal reset_breakers closes it): ${show(open)}` };
    if (half.length > 0) return { status: 'warn', detail: `half-open (on trial after a cooldown): ${show(half)}` };
    return { status: 'ok', detail: `all ${all.length} closed` };
  }
}
