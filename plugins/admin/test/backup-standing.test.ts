import fs from 'node:fs';
import path from 'node:path';
import insight from '@memory-service/plugin-insight';
import write from '@memory-service/plugin-write';
import { createTestServer } from '@memory-service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, ManualClock, primitives, storesOf, type TestServer } from './helpers.js';

/**
 * memory_backup and the standing queries (memory_standing), which live only as YAML files under
 * <data_dir>/.meta/standing/: a backup holds them, a restore brings back exactly those it holds.
 */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const start = () => createTestServer({ plugins: [primitives, write, insight, admin], expose: 'all', clock: new ManualClock() });

/** Every file under the standing folder, relative, with its text. */
function standingOnDisk(dataDir: string): Record<string, string> {
  const root = path.join(dataDir, '.meta', 'standing');
  if (!fs.existsSync(root)) return {};
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(root, { recursive: true }).map(String)) {
    const abs = path.join(root, rel);
    if (fs.statSync(abs).isFile()) out[rel.split(path.sep).join('/')] = fs.readFileSync(abs, 'utf8');
  }
  return out;
}

async function listed(user_id: string): Promise<{ name: string; description: string }[]> {
  return (await s.call('memory_standing', { action: 'list', layer: 'user', user_id })).queries;
}

describe('memory_backup and standing queries', () => {
  it('a restore brings back exactly the standing queries backed up, with their text; the pre-restore backup undoes it', async () => {
    s = await start();
    await s.call('memory_remember', { key: 'pref:editor', value: 'Uses Vim', importance: 0.9, layer: 'user', user_id: 'ana' });
    await s.call('memory_standing', { action: 'save', name: 'prefs', spec_json: { key_like: 'pref:', description: 'preferences' }, layer: 'user', user_id: 'ana' });
    await s.call('memory_standing', { action: 'save', name: 'Important', spec_json: { importance_min: 0.8, description: 'what matters' }, layer: 'user', user_id: 'bo' });
    const atBackup = standingOnDisk(s.dataDir);
    expect(Object.keys(atBackup).sort()).toEqual(['user/ana/prefs.yaml', 'user/bo/important.yaml']);

    const taken = (await s.call('memory_backup', { action: 'now' })).backup;
    expect(taken.standing_files).toEqual({ saved: 2, left_out: 0 });
    expect((await s.call('memory_backup', { action: 'list' })).backups).toEqual([{ name: taken.name, kind: 'manual', size_bytes: taken.size_bytes, created: taken.created }]);

    await s.call('memory_standing', { action: 'save', name: 'prefs', spec_json: { key_like: 'pref:', description: 'changed later' }, layer: 'user', user_id: 'ana' });
    await s.call('memory_standing', { action: 'delete', name: 'Important', layer: 'user', user_id: 'bo' });
    await s.call('memory_standing', { action: 'save', name: 'third', spec_json: { content_like: 'x' }, layer: 'user', user_id: 'ana' });
    const beforeRestore = standingOnDisk(s.dataDir);

    const r = await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(r.standing_files).toEqual({ restored: true, written: 2, removed: 1, kept_unchanged: 0, left_alone: 0, failed: 0, renamed: [], skipped_reason: null });
    expect(r.safety_backup.standing_files).toEqual({ saved: 2, left_out: 0 });
    expect(standingOnDisk(s.dataDir)).toEqual(atBackup);
    expect(await listed('ana')).toEqual([{ name: 'prefs', description: 'preferences' }]);
    expect(await listed('bo')).toEqual([{ name: 'Important', description: 'what matters' }]);
    const run = await s.call('memory_standing', { action: 'run', name: 'prefs', layer: 'user', user_id: 'ana' });
    expect(run.facts.map((f: { value: string }) => f.value)).toEqual(['Uses Vim']);

    const back = await s.call('memory_backup', { action: 'restore', name: r.safety_backup.name });
    expect(back.standing_files).toMatchObject({ restored: true, written: 2, removed: 1, failed: 0 });
    expect(standingOnDisk(s.dataDir)).toEqual(beforeRestore);
    expect((await listed('ana')).map((q) => q.description).sort()).toEqual(['', 'changed later']);
    expect(await listed('bo')).toEqual([]);
  });

  it('a backup an older build took, naming queries with _ or -, restores them renamed (letters and digits only) and says so', async () => {
    s = await start();
    await s.call('memory_remember', { key: 'pref:editor', value: 'Uses Vim', importance: 0.9, layer: 'user' });
    await s.call('memory_standing', { action: 'save', name: 'ab', spec_json: { key_like: 'held' }, layer: 'user' });
    const taken = (await s.call('memory_backup', { action: 'now' })).backup;
    // As an older build wrote its backup: file names and saved names with _ and -.
    const Db = storesOf(s).ctx.db.constructor as new (file: string) => { prepare(sql: string): { run(...a: unknown[]): void }; close(): void };
    const db = new Db(path.join(s.dataDir, 'backups', taken.name));
    const text = (name: string, key: string) => `name: ${name}\ndescription: older\nfilters:\n  target: core\n  key_like: "${key}"\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\n`;
    db.prepare('INSERT INTO backup_files (path, content) VALUES (?, ?)').run('.meta/standing/user/default/my_prefs-1.yaml', text('My_Prefs-1', 'pref:'));
    db.prepare('INSERT INTO backup_files (path, content) VALUES (?, ?)').run('.meta/standing/user/default/a-b.yaml', text('a-b', 'a'));
    db.close();
    const r = await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(r.standing_files).toMatchObject({
      restored: true,
      failed: 0,
      renamed: [
        { folder: '.meta/standing/user/default', from: 'a-b', to: 'ab1' },
        { folder: '.meta/standing/user/default', from: 'My_Prefs-1', to: 'MyPrefs1' },
      ],
    });
    expect(Object.keys(standingOnDisk(s.dataDir)).sort()).toEqual(['user/default/ab.yaml', 'user/default/ab1.yaml', 'user/default/myprefs1.yaml']);
    expect(await listed('default')).toEqual([
      { name: 'ab', description: '' },
      { name: 'ab1', description: 'older' },
      { name: 'MyPrefs1', description: 'older' },
    ]);
    const run = await s.call('memory_standing', { action: 'run', name: 'MyPrefs1', layer: 'user' });
    expect(run.facts.map((f: { value: string }) => f.value)).toEqual(['Uses Vim']);
  });

  it('a backup without standing queries in it (taken before they were backed up) leaves them as they are and says why', async () => {
    s = await start();
    const taken = (await s.call('memory_backup', { action: 'now' })).backup;
    // As a backup of the version before: the table is not there.
    const Db = storesOf(s).ctx.db.constructor as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Db(path.join(s.dataDir, 'backups', taken.name));
    db.exec('DROP TABLE backup_files');
    db.close();
    await s.call('memory_standing', { action: 'save', name: 'kept', spec_json: { key_like: 'k' }, layer: 'user' });
    const r = await s.call('memory_backup', { action: 'restore', name: taken.name });
    expect(r.standing_files).toMatchObject({ restored: false, written: 0, removed: 0, skipped_reason: expect.stringContaining('left as they are') });
    expect((await s.call('memory_standing', { action: 'list', layer: 'user' })).queries).toEqual([{ name: 'kept', description: '' }]);
  });
});
