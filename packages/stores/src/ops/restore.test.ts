import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, U, type Env } from '../test-helpers.js';
import { BACKUP_FILES_TABLE } from './backup-files.js';
import { RESTORE_PENDING_TABLE } from './restore.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

const hasTable = (db: { prepare(sql: string): { get(...a: unknown[]): unknown } }, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** A restore's process "killed" at a hook of the steps after the copy: the hook throws, nothing after it runs. */
function killAt(hook: 'afterRestore' | 'matchFiles'): void {
  (env.stores.backups as unknown as { hooks: Record<string, () => never> }).hooks[hook] = () => {
    throw new Error(`killed at ${hook}`);
  };
}

describe('a restore stopped after its copy into the live database', () => {
  async function setUp() {
    const s = env.stores;
    const old = s.apiKeys.create('old');
    const kept = s.wiki.save(U, { title: 'Kept', content: 'page in the backup', wiki_type: 'diary' });
    s.standing.save(U, 'prefs', { key_like: 'pref:' });
    const taken = await s.backups.create();
    env.clock.advance(1000);
    const fresh = s.apiKeys.create('new');
    s.apiKeys.revoke(old.id);
    const later = s.wiki.save(U, { title: 'Later', content: 'page written after the backup', wiki_type: 'work_notes' });
    s.standing.save(U, 'later', { key_like: 'x:' });
    s.standing.delete(U, 'prefs');
    return { old, fresh, kept, later, taken };
  }

  for (const hook of ['afterRestore', 'matchFiles'] as const) {
    it(`killed at ${hook}: the API keys are the live ones already, the files' table never reaches the live database, and the next start finishes the file side`, async () => {
      const { old, fresh, kept, later, taken } = await setUp();
      const file = (rel: string) => path.join(env.dir, rel);
      const standing = (name: string) => file(`.meta/standing/user/default/${name}.yaml`);
      killAt(hook);
      await expect(env.stores.backups.restore(taken.name)).rejects.toThrow(`killed at ${hook}`);
      // The copy was the step that changed the database: the keys came with it.
      expect(env.stores.apiKeys.verify(old.key)).toBe('revoked');
      expect(env.stores.apiKeys.verify(fresh.key)).toBe('ok');
      expect(hasTable(env.db, BACKUP_FILES_TABLE)).toBe(false);
      expect(hasTable(env.db, RESTORE_PENDING_TABLE)).toBe(true);
      expect(env.stores.wiki.list(U).map((p) => p.title)).toEqual(['Kept']);
      expect(fs.existsSync(file(later.path))).toBe(true);

      // The next start (a Stores on the database, as the stores plugin makes it) finishes the restore.
      const next = env.second().stores;
      const done = next.backups.finishPending();
      expect(done).toMatchObject({ backup: taken.name, wiki_files: { removed: 1, behind: 0 }, standing_files: { restored: true, removed: 1, failed: 0 } });
      expect(fs.existsSync(file(later.path))).toBe(false);
      expect(fs.readFileSync(file(kept.path), 'utf8')).toBe('page in the backup');
      expect(fs.existsSync(standing('prefs'))).toBe(true);
      expect(fs.existsSync(standing('later'))).toBe(false);
      expect(hasTable(env.db, RESTORE_PENDING_TABLE)).toBe(false);
      expect(next.apiKeys.verify(old.key)).toBe('revoked');
      expect(next.apiKeys.verify(fresh.key)).toBe('ok');
      // Done once: a later start finds nothing, and no staged copy is left in the backups folder.
      expect(next.backups.finishPending()).toBeNull();
      expect(fs.readdirSync(path.join(env.dir, 'backups')).filter((n) => !/^(manual|pre-restore)-\d{8}T\d{9}Z\.db$/.test(n))).toEqual([]);
    });
  }

  it('a backup older than the API keys table gets the live keys after its migrations, also when the start finishes it', async () => {
    const { old, fresh, taken } = await setUp();
    const db = new (env.db.constructor as any)(path.join(env.dir, 'backups', taken.name));
    db.exec('DROP TABLE api_keys');
    db.close();
    killAt('afterRestore');
    await expect(env.stores.backups.restore(taken.name)).rejects.toThrow('killed at afterRestore');
    // The start migrates first (the table comes back empty), then finishes the restore.
    env.db.exec('CREATE TABLE IF NOT EXISTS api_keys (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, salt TEXT NOT NULL, hash TEXT NOT NULL, created TEXT NOT NULL, last_used TEXT, revoked TEXT)');
    const next = env.second().stores;
    expect(next.backups.finishPending()).toMatchObject({ backup: taken.name });
    expect(next.apiKeys.verify(old.key)).toBe('revoked');
    expect(next.apiKeys.verify(fresh.key)).toBe('ok');
  });
});
