import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { createHooks, pluginHooks, type Hooks } from '@memory-service/kernel';
import { Consolidator } from './consolidation.js';
import { NIGHTLY_CHECK_EVERY_MS, NIGHTLY_FIRST_CHECK_MS, NIGHTLY_PHASES, type NightlyRun } from './nightly.js';
import { compareBinary, mergeScopes, scopeProblem } from './nightly-scopes.js';
import { A, U, U2, makeEnv, recordingLogger, type Env, type RecordingLogger } from './test-helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  await env.stores.nightly.stop();
  env.close();
});

/** The phases of one scope of a run, as [phase, status]. */
function phasesOf(run: NightlyRun, scope: { layer: string; user_id: string }): [string, string][] {
  const r = run.results.find((s) => s.layer === scope.layer && s.user_id === scope.user_id);
  if (!r) throw new Error(`scope ${scope.layer}/${scope.user_id} was not visited`);
  return r.phases.map((p) => [p.phase, p.status]);
}
const phase = (run: NightlyRun, scope: { layer: string; user_id: string }, name: string) =>
  run.results.find((s) => s.layer === scope.layer && s.user_id === scope.user_id)!.phases.find((p) => p.phase === name)!;
const scopesOf = (run: NightlyRun) => run.results.map((r) => `${r.layer}/${r.user_id}`);

/** A plugin view of fresh kernel hooks, as the kernel hands one to a plugin (its taps fail alone). */
function hooksFor(plugin: string, hooks = createHooks()): { hooks: Readonly<Hooks>; view: Readonly<Hooks> } {
  return { hooks, view: pluginHooks(hooks, plugin, { logger: recordingLogger(), canTap: () => true }) };
}

describe('Nightly scheduling (catch-up)', () => {
  it('a fresh data dir runs first a whole interval after its first start (ready), then an interval after each run', async () => {
    const n = env.stores.nightly;
    n.startScheduler(DAY);
    // Before the first check records the first start, the next run is already due a day after it.
    expect(n.firstStart(false)).toBeNull();
    expect(n.check().detail).toBe('no nightly run yet; next run due at 2026-01-02T00:00:00.000Z');
    // Written after ready, before the first check: the first start is ready's time, so the first run visits it.
    env.clock.advance(2000);
    env.stores.episodes.add(U, { summary: 'a day one note' });
    env.clock.advance(NIGHTLY_FIRST_CHECK_MS - 2000);
    expect(await n.tick()).toBeNull();
    expect(n.firstStart(false)).toBe('2026-01-01T00:00:00.000Z');
    expect(n.nextDue()).toBe('2026-01-02T00:00:00.000Z');
    env.clock.t = Date.UTC(2026, 0, 2) - 1;
    expect(await n.tick()).toBeNull();
    expect(n.lastRun()).toBeNull();
    env.clock.advance(1);
    const first = await n.tick();
    expect(first).toMatchObject({ id: 'night_1', trigger: 'scheduled', status: 'ok', started: '2026-01-02T00:00:00.000Z', scopes: 1 });
    expect(await n.tick()).toBeNull();
    env.clock.advance(DAY - HOUR);
    expect(await n.tick()).toBeNull();
    env.clock.advance(HOUR);
    expect((await n.tick())?.id).toBe('night_2');
  });

  it('does not wait for another process\'s write lock to record the first start: the check is skipped at once, the next one records it', async () => {
    const logger = recordingLogger();
    env.close();
    env = makeEnv({}, logger);
    const n = env.stores.nightly;
    env.db.pragma('busy_timeout = 2000');
    n.startScheduler(DAY);
    const other = env.second();
    other.db.exec('BEGIN IMMEDIATE');
    try {
      const started = performance.now();
      expect(await n.tick()).toBeNull();
      // Before, the INSERT waited in SQLite's busy handler (the event loop stopped) for the whole busy timeout, then failed.
      expect(performance.now() - started).toBeLessThan(1000);
      expect(n.firstStart(false)).toBeNull();
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(env.db.pragma('busy_timeout', { simple: true })).toBe(2000);
    } finally {
      other.db.exec('ROLLBACK');
    }
    expect(await n.tick()).toBeNull();
    expect(n.firstStart(false)).toBe('2026-01-01T00:00:00.000Z');
  });

  it('catches up once after days down, and a restarted server (another Stores) finds the run due from the database', async () => {
    const n = env.stores.nightly;
    n.startScheduler(DAY);
    await n.tick();
    env.clock.advance(DAY);
    expect((await n.tick())?.id).toBe('night_1');
    env.clock.advance(3 * DAY + 5 * HOUR);
    const second = env.second().stores.nightly;
    second.startScheduler(DAY);
    expect((await second.tick())?.id).toBe('night_2');
    expect(await second.tick()).toBeNull();
    expect(await n.tick()).toBeNull();
    // Both processes found it due at once: the one that begins second sees the other's run inside its transaction.
    env.clock.advance(DAY);
    vi.spyOn(n as unknown as { isDue(): boolean }, 'isDue').mockReturnValueOnce(true);
    await second.tick();
    expect(await n.tick()).toBeNull();
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM nightly_runs').get()).toEqual({ n: 3 });
    await second.stop();
  });

  it('is off at interval 0 and after stop; the timers check shortly after start and then hourly', async () => {
    const n = env.stores.nightly;
    n.startScheduler(0);
    env.clock.advance(10 * DAY);
    expect(await n.tick()).toBeNull();
    expect(n.firstStart(false)).toBeNull();
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const tick = vi.spyOn(n, 'tick');
    n.startScheduler(DAY);
    vi.advanceTimersByTime(NIGHTLY_FIRST_CHECK_MS - 1);
    expect(tick).toHaveBeenCalledTimes(0);
    vi.advanceTimersByTime(1);
    expect(tick).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(NIGHTLY_CHECK_EVERY_MS * 3);
    expect(tick).toHaveBeenCalledTimes(4);
    await n.stop();
    vi.advanceTimersByTime(NIGHTLY_CHECK_EVERY_MS * 3);
    expect(tick).toHaveBeenCalledTimes(4);
  });
});

describe('Nightly run', () => {
  it('runs the phases in order in each scope written since the run before, then the hook taps, and records the run', async () => {
    const { hooks, view } = hooksFor('night-plugin');
    view.nightly.tapPromise('x', async (results, run) => ({ ...results, 'night-plugin': { counts: { seen: 1, bogus: 'x' }, detail: `${run.run_id} ${run.layer}` } }));
    env.stores.nightly.attach(hooks.nightly);
    env.stores.episodes.add(U, { summary: 'The deploy runs on Fridays.', importance: 0.9 });
    env.stores.episodes.add(A, { summary: 'Rebase before merge.' });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    expect(run).toMatchObject({ id: 'night_1', trigger: 'manual', status: 'ok', scopes: 2, phases_failed: 0, since: '0000-01-01T00:00:00.000Z' });
    expect(scopesOf(run)).toEqual(['agent/default', 'user/default']);
    expect(phasesOf(run, U)).toEqual([...NIGHTLY_PHASES.map((p) => [p, 'ok']), ['night-plugin', 'ok']]);
    expect(phase(run, U, 'night-plugin')).toMatchObject({ counts: { seen: 1 }, detail: 'night_1 user' });
    expect(phase(run, U, 'consolidation').counts).toEqual({ facts: 1 });
    expect(env.stores.facts.holding(U, 'The deploy runs on Fridays.')).toHaveLength(1);
    expect(env.stores.reflections.list(U)).toHaveLength(1);
    expect(env.stores.reflections.list(U)[0]!.period_hours).toBe(24);
    expect(env.stores.nightly.lastRun()).toEqual(run);
    const audit = env.db.prepare("SELECT action, target_id, detail FROM audit_log WHERE action = 'nightly_run'").all() as { target_id: string; detail: string }[];
    expect(audit).toHaveLength(1);
    expect(audit[0]!.target_id).toBe('night_1');
    expect(JSON.parse(audit[0]!.detail)).toMatchObject({ status: 'ok', scopes: 2, phases_failed: 0 });
  });

  it('a failing phase is recorded with its error, the later phases and taps still run, and the breaker counts it', async () => {
    const { hooks, view } = hooksFor('broken-plugin');
    view.nightly.tapPromise('x', async () => {
      throw new Error('plugin phase broke');
    });
    const other = pluginHooks(hooks, 'fine-plugin', { logger: recordingLogger(), canTap: () => true });
    other.nightly.tapPromise('x', async (results) => ({ ...results, 'fine-plugin': { counts: { done: 1 } } }));
    env.stores.nightly.attach(hooks.nightly);
    vi.spyOn(Consolidator.prototype, 'consolidate').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    env.stores.episodes.add(U, { summary: 'A skill', tags: ['dream_skill'] });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    expect(phasesOf(run, U)).toEqual([
      ['consolidation', 'failed'],
      ['dream_buffer', 'ok'],
      ['index_refresh', 'ok'],
      ['skill_promotion', 'ok'],
      ['reflection', 'ok'],
      ['broken-plugin', 'failed'],
      ['fine-plugin', 'ok'],
    ]);
    expect(phase(run, U, 'consolidation').error).toBe('disk I/O error');
    expect(phase(run, U, 'broken-plugin').error).toBe('plugin phase broke');
    expect(run).toMatchObject({ status: 'failed', phases_failed: 2 });
    expect(env.stores.wiki.count(U, 'skill')).toBe(1);
    expect(env.stores.breakers.get('nightly').failures).toBe(1);
    expect(env.stores.nightly.check()).toMatchObject({ status: 'warn', detail: expect.stringContaining('2 phase(s) failed (user/default consolidation: disk I/O error') });
    vi.restoreAllMocks();
    env.clock.advance(DAY);
    env.stores.episodes.add(U, { summary: 'next day' });
    const next = await env.stores.nightly.run();
    expect(next.phases_failed).toBe(1);
    expect(phase(next, U, 'consolidation').status).toBe('ok');
  });

  it('a run that fails itself (listing the scopes) is recorded failed with its error, not ok with no scope', async () => {
    env.stores.episodes.add(U, { summary: 'something happened' });
    env.clock.advance(HOUR);
    vi.spyOn(env.stores.nightly, 'scopesSince').mockImplementation(() => {
      throw new Error('database disk image is malformed');
    });
    await expect(env.stores.nightly.run()).rejects.toThrow('database disk image is malformed');
    expect(env.stores.nightly.lastRun()).toMatchObject({ status: 'failed', scopes: 0, phases_failed: 0, error: 'database disk image is malformed' });
    expect(env.stores.nightly.check()).toMatchObject({ status: 'warn', detail: expect.stringContaining('failed: database disk image is malformed') });
    vi.restoreAllMocks();
    const next = await env.stores.nightly.run();
    expect(next).toMatchObject({ status: 'ok', error: null });
    expect(scopesOf(next)).toContain('user/default');
  });

  it('promotes each fresh dream_skill episode once, and a too-large one is counted as refused without stopping the others', async () => {
    const promoted = env.stores.episodes.add(U, { summary: 'Already a skill', tags: ['dream_skill'] });
    env.stores.skills.promoteEpisodes(U, [promoted.id]);
    env.stores.episodes.add(U, { summary: '# Bisect\nUse git bisect run.', tags: ['dream_skill'] });
    env.stores.episodes.add(U, { summary: 'x'.repeat(5000), tags: ['dream_skill'] });
    env.stores.episodes.add(U, { summary: 'Not a skill' });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    expect(phase(run, U, 'skill_promotion')).toMatchObject({ status: 'ok', counts: { candidates: 2, promoted: 1, refused: 1 }, detail: expect.stringContaining('ep_3: ') });
    expect(env.stores.wiki.count(U, 'skill')).toBe(2);
    expect(env.stores.wiki.getByTitle(U, 'Bisect')?.wiki_type).toBe('skill');
    // The next night: a new write to the scope, the same episodes: nothing is promoted twice.
    env.clock.advance(DAY);
    env.stores.episodes.add(U, { summary: 'Another day.' });
    env.clock.advance(HOUR);
    const again = await env.stores.nightly.run();
    expect(phase(again, U, 'skill_promotion').counts).toEqual({ candidates: 0, promoted: 0, refused: 0 });
    expect(env.stores.wiki.count(U, 'skill')).toBe(2);
  });

  it('visits only scopes written since the run before: an idle scope gets nothing, its own writes do not bring it back', async () => {
    env.stores.episodes.add(U, { summary: 'Important: the backup runs nightly.', importance: 0.95, tags: ['dream_skill'] });
    env.clock.advance(HOUR);
    const first = await env.stores.nightly.run();
    expect(scopesOf(first)).toEqual(['user/default']);
    expect(phase(first, U, 'skill_promotion').counts.promoted).toBe(1);
    expect(phase(first, U, 'consolidation').counts.facts).toBe(1);
    env.clock.advance(DAY);
    const idle = await env.stores.nightly.run();
    expect(idle).toMatchObject({ scopes: 0, results: [], since: first.ended });
    expect(env.stores.reflections.list(U)).toHaveLength(1);
    // Only the scratchpad was written: visited, but nothing a reflection counts, so none is written.
    env.clock.advance(HOUR);
    env.stores.scratchpad.write(U, 'todo', 'water the plants');
    env.clock.advance(HOUR);
    const quiet = await env.stores.nightly.run();
    expect(scopesOf(quiet)).toEqual(['user/default']);
    expect(phase(quiet, U, 'reflection')).toMatchObject({ status: 'skipped', counts: { reflections: 0 } });
    expect(env.stores.reflections.list(U)).toHaveLength(1);
  });

  it('keeps layers and user_ids apart: each scope is consolidated, promoted and reflected in itself only', async () => {
    env.stores.episodes.add(U2, { summary: 'Bob deploys with blue-green.', importance: 0.9, tags: ['dream_skill'] });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    expect(scopesOf(run)).toEqual(['user/bob']);
    expect(env.stores.wiki.count(U2, 'skill')).toBe(1);
    for (const other of [U, A]) {
      expect(env.stores.wiki.count(other, 'skill')).toBe(0);
      expect(env.stores.facts.holding(other, 'Bob deploys with blue-green.')).toHaveLength(0);
      expect(env.stores.reflections.list(other)).toHaveLength(0);
    }
    expect(env.stores.reflections.list(U2)[0]!.counts.episodes).toBe(1);
  });

  it('runs once at a time: a second request joins the run, stop waits for it; a run cut short is marked interrupted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { hooks, view } = hooksFor('slow-plugin');
    view.nightly.tapPromise('x', async (results) => {
      await gate;
      return { ...results, 'slow-plugin': { counts: { waited: 1 } } };
    });
    env.stores.nightly.attach(hooks.nightly);
    env.stores.episodes.add(U, { summary: 'note' });
    env.clock.advance(HOUR);
    const a = env.stores.nightly.run();
    const b = env.stores.nightly.run();
    expect(b).toBe(a);
    expect(env.stores.nightly.busy).toBe(true);
    let stopped = false;
    const stop = env.stores.nightly.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    expect(env.stores.nightly.check()).toMatchObject({ status: 'ok', detail: expect.stringContaining('in progress') });
    release();
    await stop;
    expect((await a).status).toBe('ok');
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM nightly_runs').get()).toEqual({ n: 1 });
    // A row left 'running' by a killed process: the next run marks it and takes its whole window
    // again (the scopes it had not reached are visited; those it had are harmless to visit twice).
    // (This process's own pid while it runs none: a process that stopped and whose pid came back.)
    env.db.prepare("UPDATE nightly_runs SET status = 'running', ended = NULL").run();
    expect(env.stores.nightly.check()).toMatchObject({ status: 'warn', detail: expect.stringContaining('was interrupted') });
    env.clock.advance(HOUR);
    const next = await env.stores.nightly.run();
    expect(env.stores.nightly.list(2).map((r) => r.status)).toEqual(['ok', 'interrupted']);
    expect(next.since).toBe(env.stores.nightly.list(2)[1]!.since);
    expect(scopesOf(next)).toContain('user/default');
  });

  // Regression guard, fixed: a run whose process was killed stayed "in progress" (diagnose ok) until the next run, a day later.
  it('a run left running by a stopped process of this host is marked interrupted at the next check; a live owner, another host or no owner is left', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const insert = env.db.prepare("INSERT INTO nightly_runs (trigger, started, since, status, owner_pid, owner_host) VALUES ('scheduled', ?, ?, 'running', ?, ?)");
    const at = '2026-01-01T00:00:00.000Z';
    insert.run(at, at, null, null);
    insert.run(at, at, process.ppid, hostname());
    insert.run(at, at, gone, 'another-host');
    insert.run(at, at, gone, hostname());
    expect(env.stores.nightly.check()).toMatchObject({ status: 'warn', detail: expect.stringContaining('was interrupted') });
    expect(env.db.prepare('SELECT status FROM nightly_runs ORDER BY id').pluck(true).all()).toEqual(['running', 'running', 'running', 'interrupted']);
    expect(env.stores.nightly.markStopped()).toBe(0);
  });

  it("memory_diagnose's nightly check: ok with no run yet, ok after a clean run", async () => {
    expect(env.stores.health.diagnose({ status: () => [], remigrate: () => ({}) }).checks.find((c) => c.name === 'nightly')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('no nightly run yet'),
    });
    env.stores.nightly.startScheduler(DAY);
    await env.stores.nightly.tick();
    expect(env.stores.nightly.check().detail).toBe('no nightly run yet; next run due at 2026-01-02T00:00:00.000Z');
    env.clock.advance(DAY);
    await env.stores.nightly.tick();
    expect(env.stores.nightly.check()).toEqual({
      status: 'ok',
      detail: 'last run night_1 started 2026-01-02T00:00:00.000Z, ended 2026-01-02T00:00:00.000Z: ok, 0 scope(s) visited; next run due at 2026-01-03T00:00:00.000Z',
    });
  });
});

describe("Nightly run: the plugins' own scopes (nightly_scopes)", () => {
  const CAROL = { layer: 'user' as const, user_id: 'carol' };
  /** A plugin keeping its own table: lists the scopes it wrote since `since`, and records a phase in each scope visited. */
  function ownTablePlugin(hooks: ReturnType<typeof createHooks>, name: string, rows: { layer: string; user_id: string; at: string }[]) {
    const view = pluginHooks(hooks, name, { logger: recordingLogger(), canTap: () => true });
    view.nightly_scopes.tap(name, (found, run) => ({
      ...found,
      [name]: rows.filter((r) => r.at > run.since).map((r) => ({ layer: r.layer as 'user', user_id: r.user_id })),
    }));
    view.nightly.tapPromise(name, async (results, run) => ({
      ...results,
      [name]: { counts: { rows: rows.filter((r) => r.layer === run.layer && r.user_id === run.user_id && r.at > run.since).length } },
    }));
  }
  const logged = () => (env.stores.ctx.logger as RecordingLogger).lines;

  it("visits a scope whose only writes were to a plugin's own tables, each scope once, in layer then user_id order", async () => {
    const hooks = createHooks();
    ownTablePlugin(hooks, 'bookmarks', [
      { ...CAROL, at: '2026-01-01T00:10:00.000Z' },
      { ...U, at: '2026-01-01T00:20:00.000Z' },
      { layer: 'user', user_id: '\u{1F600}', at: '2026-01-01T00:30:00.000Z' },
    ]);
    env.stores.nightly.attach(hooks.nightly, hooks.nightly_scopes);
    env.stores.episodes.add(U, { summary: 'The deploy runs on Fridays.' });
    env.stores.episodes.add({ layer: 'user', user_id: '\uFF5A' }, { summary: 'A full-width z user.' });
    env.stores.episodes.add(A, { summary: 'Rebase before merge.' });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    // user/default is the stores' and the plugin's: visited once. SQLite's order: U+FF5A before U+1F600.
    expect(scopesOf(run)).toEqual(['agent/default', 'user/carol', 'user/default', 'user/\uFF5A', 'user/\u{1F600}']);
    expect(run).toMatchObject({ status: 'ok', scopes: 5, plugin_scopes: [{ plugin: 'bookmarks', status: 'ok', scopes: 3, dropped: 0, error: null, detail: null }] });
    // The plugin-only scope gets every phase (the reflection skipped: the stores recorded nothing there) and the plugin's own.
    expect(phasesOf(run, CAROL)).toEqual([...NIGHTLY_PHASES.map((p) => [p, p === 'reflection' ? 'skipped' : 'ok']), ['bookmarks', 'ok']]);
    expect(phase(run, CAROL, 'bookmarks').counts).toEqual({ rows: 1 });
    expect(env.stores.nightly.lastVisit(CAROL)?.run_id).toBe('night_1');
    // The next run's window starts at this one's end: the plugin's old rows bring no scope back.
    env.clock.advance(DAY);
    const next = await env.stores.nightly.run();
    expect(next).toMatchObject({ scopes: 0, plugin_scopes: [{ plugin: 'bookmarks', status: 'ok', scopes: 0 }] });
    expect(env.stores.nightly.list(2)[1]!.plugin_scopes).toHaveLength(1);
  });

  it('drops an invalid entry with a warning naming the plugin and why, and visits the valid ones', async () => {
    const hooks = createHooks();
    const view = pluginHooks(hooks, 'sloppy', { logger: recordingLogger(), canTap: () => true });
    const entries: unknown[] = [
      { layer: 'team', user_id: 'x' },
      { user_id: 'x' },
      { layer: 'user', user_id: '' },
      { layer: 'user', user_id: 'x'.repeat(201) },
      { layer: 'user', user_id: 7 },
      { layer: 'user', user_id: 'a/b' },
      { layer: 'user', user_id: '   ' },
      'user/bob',
      null,
      { layer: 'agent', user_id: 'x'.repeat(200), extra: true },
    ];
    view.nightly_scopes.tap('x', (found) => ({ ...found, sloppy: entries as never }));
    env.stores.nightly.attach(hooks.nightly, hooks.nightly_scopes);
    const run = await env.stores.nightly.run();
    expect(scopesOf(run)).toEqual([`agent/${'x'.repeat(200)}`]);
    expect(run).toMatchObject({ status: 'ok', phases_failed: 0 });
    expect(run.plugin_scopes).toEqual([
      {
        plugin: 'sloppy',
        status: 'ok',
        scopes: 1,
        dropped: 9,
        error: null,
        detail: expect.stringMatching(/^dropped \{"layer":"team","user_id":"x"\}: layer must be "user" or "agent", not "team"; \{"user_id":"x"\}: layer must be "user" or "agent", not missing; \{"layer":"user","user_id":""\}: user_id "" is not one a tool takes .*; and 6 more$/),
      },
    ]);
    expect(env.stores.breakers.get('nightly').failures).toBe(0);
    const warnings = logged().filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([expect.stringMatching(/^sloppy listed 9 invalid scope\(s\) on hook nightly_scopes, not visited: dropped /)]);
    expect(env.stores.nightly.check()).toMatchObject({ status: 'warn', detail: expect.stringContaining('invalid scopes listed on nightly_scopes dropped (sloppy: 9)') });
    // Each rule, as the detail and the log name it.
    expect(entries.map((e) => scopeProblem(e))).toEqual([
      'layer must be "user" or "agent", not "team"',
      'layer must be "user" or "agent", not missing',
      expect.stringMatching(/^user_id "" is not one a tool takes \(1 to 200 characters, no white space first or last, no control character, slash or backslash\): /),
      expect.stringMatching(/^user_id "x{56}\.\.\. is not one a tool takes .*: Too big: expected string to have <=200 characters$/),
      'user_id must be a string, not 7',
      expect.stringContaining('must not start or end with white space, nor contain a control character'),
      expect.stringContaining('must not start or end with white space'),
      'not an object { layer, user_id }',
      'not an object { layer, user_id }',
      null,
    ]);
  });

  it('a nightly_scopes tap that throws is recorded failed under its plugin name; the run still visits every other scope and closes its window', async () => {
    const hooks = createHooks();
    const broken = pluginHooks(hooks, 'broken-lister', { logger: env.stores.ctx.logger, canTap: () => true });
    broken.nightly_scopes.tap('x', () => {
      throw new Error('bookmarks table is locked');
    });
    const wrong = pluginHooks(hooks, 'wrong-shape', { logger: env.stores.ctx.logger, canTap: () => true });
    wrong.nightly_scopes.tap('x', (found) => ({ ...found, 'wrong-shape': { layer: 'user', user_id: 'dave' } as never, 'not-a-plugin': [U2] }));
    ownTablePlugin(hooks, 'fine-lister', [{ ...CAROL, at: '2026-01-01T00:10:00.000Z' }]);
    env.stores.nightly.attach(hooks.nightly, hooks.nightly_scopes);
    env.stores.episodes.add(U, { summary: 'something happened' });
    env.clock.advance(HOUR);
    const run = await env.stores.nightly.run();
    expect(scopesOf(run)).toEqual(['user/carol', 'user/default']);
    expect(run).toMatchObject({ status: 'failed', phases_failed: 0, error: null });
    expect(run.plugin_scopes).toEqual([
      { plugin: 'broken-lister', status: 'failed', scopes: 0, dropped: 0, error: 'bookmarks table is locked', detail: null },
      {
        plugin: 'wrong-shape',
        status: 'failed',
        scopes: 0,
        dropped: 0,
        error: 'answered {"layer":"user","user_id":"dave"} under its name: a nightly_scopes tap adds a list of { layer, user_id } under its plugin name',
        detail: null,
      },
      { plugin: 'fine-lister', status: 'ok', scopes: 1, dropped: 0, error: null, detail: null },
    ]);
    expect(phase(run, CAROL, 'fine-lister').status).toBe('ok');
    expect(logged().map((l) => `${l.level} ${l.message}`)).toEqual(
      expect.arrayContaining([
        'error broken-lister failed on hook nightly_scopes: bookmarks table is locked',
        expect.stringMatching(/^error wrong-shape failed on hook nightly_scopes: answered /),
        expect.stringMatching(/^warn nightly_scopes: lists under "not-a-plugin", which name no plugin tapping the hook, were left out/),
      ]),
    );
    expect(env.stores.breakers.get('nightly').failures).toBe(1);
    const audit = env.db.prepare("SELECT detail FROM audit_log WHERE action = 'nightly_run'").pluck(true).get() as string;
    expect(JSON.parse(audit)).toMatchObject({ status: 'failed', phases_failed: 0, plugin_scopes_failed: 2, error: null });
    expect(env.stores.nightly.check()).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('2 plugin(s) failed to list their scopes on nightly_scopes (broken-lister: bookmarks table is locked; wrong-shape: answered'),
    });
    // A failed listing is not a failed run: the next run's window starts at this one's end.
    env.clock.advance(DAY);
    expect((await env.stores.nightly.run()).since).toBe(run.ended);
  });

  it('merges in SQLite order: code points, not UTF-16 units', () => {
    expect(compareBinary('\uFF5A', '\u{1F600}')).toBeLessThan(0);
    expect(compareBinary('a', 'ab')).toBeLessThan(0);
    expect(compareBinary('b', 'a')).toBeGreaterThan(0);
    const rows = env.db
      .prepare("SELECT value FROM json_each(?) ORDER BY value")
      .pluck(true)
      .all(JSON.stringify(['\u{1F600}', '\uFF5A', 'z', '\u00E9', '\uD7FF', '\uE000', '\u{10000}'])) as string[];
    const merged = mergeScopes(rows.map((user_id) => ({ layer: 'user' as const, user_id })).reverse(), [{ layer: 'agent', user_id: 'z' }, { layer: 'user', user_id: 'z' }]);
    expect(merged.map((s) => `${s.layer}/${s.user_id}`)).toEqual(['agent/z', ...rows.map((r) => `user/${r}`)]);
  });
});
