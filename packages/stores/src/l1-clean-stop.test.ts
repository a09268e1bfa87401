import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { L1_CLEAN_FILE, L1_FILES_FORMAT, L1_RUNNING_DIR, L1CleanStop } from './l1-clean-stop.js';
import { RECONCILE_SLICE } from './l1-reconcile.js';
import { U, U2, makeEnv, recordingLogger, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv({ l1Size: 5 });
});
afterEach(() => env.close());

const marker = () => new L1CleanStop(env.dir, recordingLogger());
const notes = () => fs.readdirSync(path.join(env.dir, 'l1', L1_RUNNING_DIR));
const cleanFile = () => path.join(env.dir, 'l1', L1_CLEAN_FILE);
/** A stop that comes after the comparison, with every file written. */
const cleanRun = () => {
  const m = marker();
  m.begin();
  m.reconciled();
  m.end(true);
};

describe('L1CleanStop', () => {
  it('asks for the comparison at the first start, and not after a clean stop', () => {
    const first = marker();
    expect(first.begin()).toBe(true);
    expect(notes()).toHaveLength(1);
    first.reconciled();
    first.end(true);
    expect(notes()).toEqual([]);
    expect(JSON.parse(fs.readFileSync(cleanFile(), 'utf8'))).toEqual({ format: L1_FILES_FORMAT });
    const next = marker();
    expect(next.begin()).toBe(false);
    expect(next.mustReconcile).toBe(false);
    // Removed at start: a kill of this process leaves no clean stop behind.
    expect(fs.existsSync(cleanFile())).toBe(false);
  });

  it('asks for it after a process killed (its note left, no clean stop), and removes the note of a process gone', () => {
    cleanRun();
    const killed = marker();
    expect(killed.begin()).toBe(false);
    // Never ended: its note stays (its pid is this process's, as a container's server at every start).
    const next = marker();
    expect(next.begin()).toBe(true);
    expect(notes()).toHaveLength(1);
    // A process gone (no such pid) is taken for killed too.
    next.reconciled();
    next.end(true);
    fs.writeFileSync(path.join(env.dir, 'l1', L1_RUNNING_DIR, '999999999.0123456789ab'), '');
    expect(marker().begin()).toBe(true);
  });

  it("asks for it while another process's note is there, and keeps that note", () => {
    cleanRun();
    const live = `${process.ppid}.0123456789ab`;
    fs.writeFileSync(path.join(env.dir, 'l1', L1_RUNNING_DIR, live), '');
    const m = marker();
    expect(m.begin()).toBe(true);
    expect(notes()).toContain(live);
  });

  it('records no clean stop while files are behind, nor when the comparison asked for never ran', () => {
    const behind = marker();
    behind.begin();
    behind.reconciled();
    behind.end(false);
    expect(fs.existsSync(cleanFile())).toBe(false);
    const notCompared = marker();
    expect(notCompared.begin()).toBe(true);
    notCompared.end(true);
    expect(fs.existsSync(cleanFile())).toBe(false);
    expect(marker().begin()).toBe(true);
  });

  it("asks for it after a clean stop of a build that wrote the files otherwise", () => {
    cleanRun();
    fs.writeFileSync(cleanFile(), JSON.stringify({ format: L1_FILES_FORMAT - 1 }));
    expect(marker().begin()).toBe(true);
  });

  it('Stores.repairAfterStop compares the files after a kill, and skips them after a clean stop', () => {
    env.stores.l1.push(U, { text: 'flushed' });
    env.stores.flush();
    cleanRun();
    // A file changed while no process ran (by hand): a clean stop is trusted, so it is left.
    fs.writeFileSync(env.stores.l1.fileFor(U), JSON.stringify({ layer: 'user', user_id: 'default', size: 5, items: [] }));
    const afterClean = env.second().stores;
    expect(afterClean.l1Stop.begin()).toBe(false);
    expect(afterClean.repairAfterStop().l1_files).toBe(0);
    // That process pushes and is killed before its flush: the next start rewrites both files.
    afterClean.l1.push(U2, { text: 'pushed, never flushed' });
    const afterKill = env.second().stores;
    expect(afterKill.l1Stop.begin()).toBe(true);
    expect(afterKill.repairAfterStop().l1_files).toBe(2);
    afterKill.flush();
    const texts = (scope: typeof U) => JSON.parse(fs.readFileSync(afterKill.l1.fileFor(scope), 'utf8')).items.map((i: { text: string }) => i.text);
    expect(texts(U)).toEqual(['flushed']);
    expect(texts(U2)).toEqual(['pushed, never flushed']);
    expect(afterKill.l1Stop.mustReconcile).toBe(false);
    afterKill.l1Stop.end(afterKill.l1.filesBehind === 0);
    expect(env.second().stores.l1Stop.begin()).toBe(false);
  });
});

describe('L1Ring.reconcileFilesInSlices', () => {
  const scopes = Array.from({ length: RECONCILE_SLICE * 2 + 50 }, (_, i) => ({ layer: 'user' as const, user_id: `s${i}` }));

  it('marks what reconcileFiles marks, yielding to the event loop between slices', async () => {
    for (const s of scopes) env.stores.l1.push(s, { text: `first ${s.user_id}` });
    env.stores.flush();
    // Pushed by a process killed before its flush: every file is behind, and one file has no ring.
    const killed = env.second();
    for (const s of scopes) killed.stores.l1.push(s, { text: `never flushed ${s.user_id}` });
    killed.db.close();
    fs.writeFileSync(env.stores.l1.fileFor(U2), JSON.stringify({ layer: 'user', user_id: 'bob', size: 5, items: [{ id: 'l1_999999', text: 'forgotten' }] }));
    const fresh = env.second().stores;
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const counted = await fresh.l1.reconcileFilesInSlices();
    clearInterval(tick);
    expect(counted).toBe(scopes.length + 1);
    expect(turns).toBeGreaterThan(0);
    fresh.flush();
    const texts = (scope: typeof U) => JSON.parse(fs.readFileSync(fresh.l1.fileFor(scope), 'utf8')).items.map((i: { text: string }) => i.text);
    expect(texts(scopes.at(-1)!)).toEqual([`first ${scopes.at(-1)!.user_id}`, `never flushed ${scopes.at(-1)!.user_id}`]);
    expect(texts(U2)).toEqual([]);
    expect(env.second().stores.l1.reconcileFiles()).toBe(0);
  });

  it('stops at a slice when asked (close), and the comparison then counts as not done', async () => {
    for (const s of scopes) env.stores.l1.push(s, { text: 'x' });
    const fresh = env.second().stores;
    expect(fresh.l1Stop.begin()).toBe(true);
    let slices = 0;
    expect(await fresh.repairAfterStopInSlices(() => ++slices > 1)).toMatchObject({ l1_files: 0 });
    expect(fresh.l1Stop.mustReconcile).toBe(true);
    fresh.l1Stop.end(true);
    expect(fs.existsSync(cleanFile())).toBe(false);
  });
});
