import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, primitives, serversOnOneDir, storesOf } from './helpers.js';

/** A memory_backup restore whose process stops right after its copy into the database, and the next start on the data dir. */
const servers = serversOnOneDir([primitives, admin]);
const { start, close } = servers;

describe('memory_backup restore stopped after its copy', () => {
  it('the next start finishes it: a key revoked since stays revoked, one created since works, page files the backup lacks are removed', async () => {
    const dir = servers.fresh();
    const s = await start();
    const old = (await s.call('memory_api_key', { action: 'create', name: 'old-key' })).created as { id: string; key: string };
    const stores = storesOf(s);
    stores.wiki.save({ layer: 'user', user_id: 'default' }, { title: 'Kept page', content: 'page in the backup', wiki_type: 'diary' });
    const taken = ((await s.call('memory_backup', { action: 'now' })).backup as { name: string }).name;
    const fresh = (await s.call('memory_api_key', { action: 'create', name: 'new-key' })).created as { id: string; key: string };
    await s.call('memory_api_key', { action: 'revoke', key_id: old.id });
    const later = stores.wiki.save({ layer: 'user', user_id: 'default' }, { title: 'Later page', content: 'written after the backup', wiki_type: 'work_notes' });
    // The process stops once the copy is in: nothing after it runs.
    (stores.backups as unknown as { hooks: { afterRestore(): void } }).hooks.afterRestore = () => {
      throw new Error('stopped');
    };
    expect(stores.apiKeys.verify(old.key)).toBe('revoked');
    await expect(s.call('memory_backup', { action: 'restore', name: taken })).rejects.toThrow();
    expect(stores.apiKeys.verify(old.key)).toBe('revoked');
    expect(fs.existsSync(path.join(dir, later.path))).toBe(true);
    await close(s);

    const next = await start();
    const keys = storesOf(next).apiKeys;
    expect(keys.verify(old.key)).toBe('revoked');
    expect(keys.verify(fresh.key)).toBe('ok');
    expect(fs.existsSync(path.join(dir, later.path))).toBe(false);
    expect(storesOf(next).wiki.list({ layer: 'user', user_id: 'default' }).map((p) => p.title)).toEqual(['Kept page']);
    expect(storesOf(next).ctx.db.prepare("SELECT name FROM sqlite_master WHERE name IN ('backup_files', 'restore_pending')").all()).toEqual([]);
  });
});
