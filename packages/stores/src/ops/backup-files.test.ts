import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, makeEnv, recordingLogger, type Env, type RecordingLogger } from '../test-helpers.js';
import { idSegment } from '../paths.js';
import type { Scope } from '../types.js';
import { BACKUP_FILE_MAX_BYTES, BACKUP_FILES_TABLE, isStandingFilePath, SKIPPED_NO_FILES } from './backup-files.js';

/** A user_id whose folder is a hashed segment. */
const ALICE: Scope = { layer: 'user', user_id: 'Alice Smith' };

let env: Env;
let log: RecordingLogger;
const outside: string[] = [];
beforeEach(() => {
  log = recordingLogger();
  env = makeEnv({}, log);
});
afterEach(() => {
  env.stores.backups.stopScheduler();
  env.close();
  for (const d of outside.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const standingRoot = () => path.join(env.dir, '.meta', 'standing');

/** Every file under the standing folder (relative, `/`), with its text; symlinks shown as such. */
function standingOnDisk(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = path.join(standingRoot(), rel);
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(path.join(abs, e.name))}`;
      else if (e.isDirectory()) walk(r);
      else out[r] = fs.readFileSync(path.join(abs, e.name), 'utf8');
    }
  };
  if (fs.existsSync(standingRoot())) walk('');
  return out;
}

const backupFile = (name: string) => path.join(env.dir, 'backups', name);

/** Open a backup file to change it by hand (it is one rollback-journal file). */
function editBackup(name: string, fn: (db: any) => void): void {
  const db = new (env.db.constructor as any)(backupFile(name));
  try {
    fn(db);
  } finally {
    db.close();
  }
}

function tableIn(db: any): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(BACKUP_FILES_TABLE);
}

function outsideDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-files-outside-'));
  outside.push(d);
  return d;
}

describe('standing query files in backups', () => {
  it('round trip: a restore brings back exactly the backed-up standing queries, same text, and the live db never holds the table', async () => {
    const st = env.stores.standing;
    st.save(U, 'Prefs', { key_like: 'pref:', description: 'preferences' });
    st.save(ALICE, 'recent', { target: 'episodes', created_since: '2025-01-01T00:00:00Z' });
    const atBackup = standingOnDisk();
    expect(Object.keys(atBackup).sort()).toEqual([`user/${idSegment('Alice Smith')}/recent.yaml`, 'user/default/prefs.yaml']);

    const taken = await env.stores.backups.create();
    expect(taken.standing_files).toEqual({ saved: 2, left_out: 0 });
    // In the backup file, with paths relative to the data dir; never in the live database.
    editBackup(taken.name, (db) => {
      const rows = db.prepare(`SELECT path, content FROM ${BACKUP_FILES_TABLE} ORDER BY path`).all();
      expect(rows.map((r: any) => r.path)).toEqual(Object.keys(atBackup).sort().map((k) => `.meta/standing/${k}`));
      for (const r of rows) expect(r.content).toBe(atBackup[r.path.slice('.meta/standing/'.length)]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    });
    expect(tableIn(env.db)).toBe(false);
    expect(fs.readdirSync(path.join(env.dir, 'backups'))).toEqual([taken.name]);
    env.stores.backups.verify(taken.name);
    expect(env.stores.backups.list()[0]).toEqual({ name: taken.name, kind: 'manual', size_bytes: expect.any(Number), created: taken.created });

    env.clock.advance(1000);
    st.save(U, 'Prefs', { key_like: 'pref:', importance_min: 0.8, description: 'changed after the backup' });
    st.delete(ALICE, 'recent');
    st.save(A, 'third', { content_like: 'added after' });
    const beforeRestore = standingOnDisk();

    const out = await env.stores.backups.restore(taken.name);
    expect(out.standing_files).toEqual({ restored: true, written: 2, removed: 1, kept_unchanged: 0, left_alone: 0, failed: 0, renamed: [], skipped_reason: null });
    expect(standingOnDisk()).toEqual(atBackup);
    expect(st.list(U)).toMatchObject([{ name: 'Prefs', description: 'preferences' }]);
    expect(st.list(ALICE)).toMatchObject([{ name: 'recent' }]);
    expect(st.list(A)).toEqual([]);
    // The restored content was copied in with its table; the live database dropped it.
    expect(tableIn(env.db)).toBe(false);
    expect(env.db.pragma('quick_check', { simple: true })).toBe('ok');
    // The pre-restore copy holds the standing files as they were just before.
    expect(out.safety_backup.standing_files).toEqual({ saved: 2, left_out: 0 });

    // A second restore of the same backup has nothing to change.
    const again = await env.stores.backups.restore(taken.name);
    expect(again.standing_files).toMatchObject({ written: 0, removed: 0, kept_unchanged: 2 });

    // Undone through the first pre-restore copy: the standing files are as they were before the restore.
    const back = await env.stores.backups.restore(out.safety_backup.name);
    expect(back.standing_files).toMatchObject({ restored: true, written: 2, removed: 1, kept_unchanged: 0, failed: 0 });
    expect(standingOnDisk()).toEqual(beforeRestore);
    expect(st.get(U, 'Prefs')?.description).toBe('changed after the backup');
    expect(st.get(A, 'third')).not.toBeNull();
    expect(st.get(ALICE, 'recent')).toBeNull();
  });

  it('a backup taken before backups held standing files leaves them as they are, and says so', async () => {
    const st = env.stores.standing;
    st.save(U, 'kept', { key_like: 'a' });
    const taken = await env.stores.backups.create();
    // As a backup of the version before: no table.
    editBackup(taken.name, (db) => db.exec(`DROP TABLE ${BACKUP_FILES_TABLE}`));
    st.save(U, 'added', { key_like: 'b' });
    st.delete(U, 'kept');
    const before = standingOnDisk();
    const out = await env.stores.backups.restore(taken.name);
    expect(out.standing_files).toEqual({ restored: false, written: 0, removed: 0, kept_unchanged: 0, left_alone: 0, failed: 0, renamed: [], skipped_reason: SKIPPED_NO_FILES });
    expect(standingOnDisk()).toEqual(before);
    expect(tableIn(env.db)).toBe(false);
  });

  it('a backup an older build took, holding query names with _ or -, restores with those files renamed (number added when taken) and logged', async () => {
    const st = env.stores.standing;
    st.save(U, 'ab', { key_like: 'held' });
    const taken = await env.stores.backups.create();
    const old = (name: string, key: string) => `name: ${name}\ndescription: old one\nfilters:\n  target: core\n  key_like: "${key}"\ncreated: 2025-01-01T00:00:00.000Z\nupdated: 2025-01-01T00:00:00.000Z\n`;
    editBackup(taken.name, (db) => {
      const put = db.prepare(`INSERT INTO ${BACKUP_FILES_TABLE} (path, content) VALUES (?, ?)`);
      put.run('.meta/standing/user/default/my_prefs-1.yaml', old('My_Prefs-1', 'pref:'));
      put.run('.meta/standing/user/default/a-b.yaml', old('a-b', 'a'));
      put.run(`.meta/standing/agent/${idSegment('default')}/x_.yaml`, old('x_', 'x'));
    });
    // verify takes them (older backups still restore).
    expect(() => env.stores.backups.verify(taken.name)).not.toThrow();
    const out = await env.stores.backups.restore(taken.name);
    expect(out.standing_files).toMatchObject({ restored: true, written: 3, kept_unchanged: 1, failed: 0 });
    expect(out.standing_files.renamed).toEqual([
      { folder: '.meta/standing/agent/default', from: 'x_', to: 'x' },
      { folder: '.meta/standing/user/default', from: 'a-b', to: 'ab1' },
      { folder: '.meta/standing/user/default', from: 'My_Prefs-1', to: 'MyPrefs1' },
    ]);
    expect(Object.keys(standingOnDisk()).sort()).toEqual(['agent/default/x.yaml', 'user/default/ab.yaml', 'user/default/ab1.yaml', 'user/default/myprefs1.yaml']);
    expect(st.list(U).map((q) => [q.name, q.filters.key_like, q.description])).toEqual([
      ['ab', 'held', ''],
      ['ab1', 'a', 'old one'],
      ['MyPrefs1', 'pref:', 'old one'],
    ]);
    expect(st.list(A).map((q) => q.name)).toEqual(['x']);
    expect(log.lines.filter((l) => l.message.startsWith('restore: standing query renamed')).map((l) => l.message.split(' (')[0])).toEqual([
      'restore: standing query renamed "x_" -> "x"',
      'restore: standing query renamed "a-b" -> "ab1"',
      'restore: standing query renamed "My_Prefs-1" -> "MyPrefs1"',
    ]);
    expect(isStandingFilePath('.meta/standing/user/default/a-b.yaml')).toBe(false);
    expect(isStandingFilePath('.meta/standing/user/default/a-b.yaml', { legacy: true })).toBe(true);
    expect(isStandingFilePath('.meta/standing/user/default/-ab.yaml', { legacy: true })).toBe(false);
  });

  it('a hostile path in the table refuses the restore before anything changes, and nothing outside the data dir is written', async () => {
    const st = env.stores.standing;
    env.stores.facts.upsert(U, { key: 'city', value: 'Lisbon' });
    st.save(U, 'mine', { key_like: 'x' });
    const taken = await env.stores.backups.create();
    env.stores.facts.upsert(U, { key: 'city', value: 'Porto' });
    const away = outsideDir();
    const hostile = [
      '../x.yaml',
      path.join(away, 'abs.yaml'),
      '/etc/x.yaml',
      '.meta/standing/user/default/../../../../x.yaml',
      '.meta/standing/user/../../escape.yaml',
      '.meta/standing/user/default/notes.txt',
      '.meta/standing/user/default/sub/deeper.yaml',
      '.meta/standing/other/default/x.yaml',
      '.meta/standing/user/Default/x.yaml',
      '.meta/standing/user/default/.yaml',
      '.meta\\standing\\user\\default\\x.yaml',
      'rules.yaml',
    ];
    for (const bad of hostile) {
      expect(isStandingFilePath(bad), bad).toBe(false);
      editBackup(taken.name, (db) => db.prepare(`INSERT INTO ${BACKUP_FILES_TABLE} (path, content) VALUES (?, 'pwned')`).run(bad));
      const err = await env.stores.backups.restore(taken.name).catch((e) => e);
      expect(err, bad).toMatchObject({ type: 'ValidationError', field: 'name', message: expect.stringContaining(JSON.stringify(bad)) });
      expect(err.message).toContain('.meta/standing/<layer>/<segment>/<name>.yaml');
      editBackup(taken.name, (db) => db.prepare(`DELETE FROM ${BACKUP_FILES_TABLE} WHERE path = ?`).run(bad));
    }
    // Text that is not a text, or too long, is refused too.
    editBackup(taken.name, (db) => db.prepare(`UPDATE ${BACKUP_FILES_TABLE} SET content = ?`).run(Buffer.from('blob')));
    await expect(env.stores.backups.restore(taken.name)).rejects.toMatchObject({ field: 'name', message: expect.stringContaining('no text of at most') });
    editBackup(taken.name, (db) => db.prepare(`UPDATE ${BACKUP_FILES_TABLE} SET content = ?`).run('x'.repeat(BACKUP_FILE_MAX_BYTES + 1)));
    await expect(env.stores.backups.restore(taken.name)).rejects.toMatchObject({ field: 'name' });
    // A table of other columns.
    editBackup(taken.name, (db) => db.exec(`DROP TABLE ${BACKUP_FILES_TABLE}; CREATE TABLE ${BACKUP_FILES_TABLE} (name TEXT)`));
    await expect(env.stores.backups.restore(taken.name)).rejects.toMatchObject({ field: 'name', message: expect.stringContaining('not a usable memory database') });

    // Nothing changed: no pre-restore copy, the database and the files as they were, nothing written outside.
    expect(env.stores.backups.list().map((b) => b.name)).toEqual([taken.name]);
    expect(env.stores.facts.get(U, 'city')?.value).toBe('Porto');
    expect(Object.keys(standingOnDisk())).toEqual(['user/default/mine.yaml']);
    expect(fs.readdirSync(away)).toEqual([]);
    expect(fs.existsSync(path.join(env.dir, '..', 'x.yaml'))).toBe(false);
    expect(fs.existsSync(path.join(env.dir, 'x.yaml'))).toBe(false);
    expect(fs.existsSync(path.join(env.dir, 'rules.yaml'))).toBe(false);
  });

  it('a standing folder that is a symlink out of the data dir is neither read by a backup nor written through by a restore', async () => {
    const away = outsideDir();
    fs.writeFileSync(path.join(away, 'secret.yaml'), 'name: secret\n');
    env.stores.standing.save(U, 'mine', { key_like: 'x' });
    const taken = await env.stores.backups.create();
    // The backup table names a file of user bob; bob's folder now leads out of the data dir.
    editBackup(taken.name, (db) => db.prepare(`INSERT INTO ${BACKUP_FILES_TABLE} (path, content) VALUES (?, 'pwned')`).run('.meta/standing/user/bob/evil.yaml'));
    fs.symlinkSync(away, path.join(standingRoot(), 'user', 'bob'), 'dir');
    const now = await env.stores.backups.create();
    expect(now.standing_files).toEqual({ saved: 1, left_out: 0 });
    const out = await env.stores.backups.restore(taken.name);
    expect(out.standing_files).toMatchObject({ restored: true, written: 0, kept_unchanged: 1, removed: 0, failed: 1 });
    expect(fs.readdirSync(away)).toEqual(['secret.yaml']);
    expect(log.lines.some((l) => l.level === 'error' && l.message.includes('.meta/standing/user/bob/evil.yaml') && l.message.includes('out of the data dir'))).toBe(true);
  });

  it('files a backup cannot take are left out and counted, and a restore leaves them alone (the pre-restore copy could not bring them back)', async () => {
    const st = env.stores.standing;
    st.save(U, 'normal', { key_like: 'x' });
    const dir = path.join(standingRoot(), 'user', 'default');
    fs.writeFileSync(path.join(dir, 'huge.yaml'), 'x'.repeat(BACKUP_FILE_MAX_BYTES + 1));
    fs.writeFileSync(path.join(dir, 'latin1.yaml'), Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xe9]));
    fs.symlinkSync(path.join(dir, 'normal.yaml'), path.join(dir, 'linked.yaml'));
    fs.mkdirSync(path.join(dir, 'folder.yaml'));
    fs.writeFileSync(path.join(dir, 'bad name!.yaml'), 'name: x\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a standing file');
    const taken = await env.stores.backups.create();
    expect(taken.standing_files).toEqual({ saved: 1, left_out: 5 });
    expect(log.lines.filter((l) => l.level === 'warn' && l.message.includes('left out'))).toHaveLength(5);
    editBackup(taken.name, (db) => expect(db.prepare(`SELECT path FROM ${BACKUP_FILES_TABLE}`).pluck().all()).toEqual(['.meta/standing/user/default/normal.yaml']));

    st.save(U, 'later', { key_like: 'y' });
    const out = await env.stores.backups.restore(taken.name);
    expect(out.standing_files).toEqual({ restored: true, written: 0, removed: 1, kept_unchanged: 1, left_alone: 5, failed: 0, renamed: [], skipped_reason: null });
    expect(fs.readdirSync(dir).sort()).toEqual(['bad name!.yaml', 'folder.yaml', 'huge.yaml', 'latin1.yaml', 'linked.yaml', 'normal.yaml', 'notes.txt']);
  });
});
