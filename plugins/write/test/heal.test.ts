import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BREAKER_THRESHOLD } from '@memory-service/stores';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const BOB = { layer: 'user' as const, user_id: 'bob' };

/** A data dir with one invalid L1 file, one pending stores migration and one open breaker. */
async function broken(): Promise<{ file: string; migration: number }> {
  await s.call('think', { text: 'Bob likes green tea in the morning, every single day of the week.', layer: 'user', user_id: 'bob' });
  const st = storesOf(s);
  st.flush();
  const file = st.l1.fileFor(BOB);
  fs.writeFileSync(file, '{"items": [1');
  const db = s.kernel.storage.db;
  const migration = db.prepare("SELECT max(id) FROM kernel_migrations WHERE owner = '@memory-service/stores'").pluck().get() as number;
  db.prepare("DELETE FROM kernel_migrations WHERE owner = '@memory-service/stores' AND id = ?").run(migration);
  for (let i = 0; i < BREAKER_THRESHOLD; i++) st.breakers.get('deferred_writes').failure(new Error('disk full'));
  return { file, migration };
}

describe('memory_heal', () => {
  it('without action runs remigrate, reset_breakers and purge_invalid_l1, keeping a copy of the bad file under backups/', async () => {
    s = await start();
    const { file, migration } = await broken();
    const st = storesOf(s);
    const r = await s.call('memory_heal', {});
    expect(r.results.map((x: any) => x.action)).toEqual(['remigrate', 'reset_breakers', 'purge_invalid_l1']);
    expect(r.results[0].applied['@memory-service/stores']).toEqual([migration]);
    expect(r.results[1].reset).toEqual(['deferred_writes']);
    expect(r.results[2].removed).toEqual([path.join('l1', 'user', 'bob.json')]);
    const copy = path.join(s.dataDir, r.results[2].backed_up[0]);
    expect(copy.startsWith(path.join(s.dataDir, 'backups', 'l1-invalid') + path.sep)).toBe(true);
    expect(fs.readFileSync(copy, 'utf8')).toBe('{"items": [1');
    // The file is written again from the stored ring.
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).items.length).toBe(st.l1.count(BOB));
    expect(st.breakers.get('deferred_writes').state).toBe('closed');
    expect(s.kernel.storage.status().every((m) => m.pending.length === 0)).toBe(true);
    // Idempotent: a second run changes nothing.
    const again = await s.call('memory_heal', {});
    expect(again.results.map((x: any) => x.detail)).toEqual(['every migration was already applied', 'every breaker was already closed', 'every L1 file is valid']);
  });

  it('one action runs only that action', async () => {
    s = await start();
    const { file } = await broken();
    const r = await s.call('memory_heal', { action: 'reset_breakers' });
    expect(r.results).toEqual([{ action: 'reset_breakers', reset: ['deferred_writes'], detail: 'closed deferred_writes' }]);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"items": [1');
    expect(s.kernel.storage.status().some((m) => m.pending.length > 0)).toBe(true);
    const p = await s.call('memory_heal', { action: 'purge_invalid_l1' });
    expect(p.results).toHaveLength(1);
    expect(p.results[0].removed).toHaveLength(1);
    expect(s.kernel.storage.status().some((m) => m.pending.length > 0)).toBe(true);
    expect((await s.call('memory_heal', { action: 'remigrate' })).results[0].detail).toBe('applied 1 pending migration(s)');
  });

  it('an unknown action is a ValueError naming action, and nothing is repaired', async () => {
    s = await start();
    const { file } = await broken();
    const err = await toolError(s.call('memory_heal', { action: 'defrag' }));
    expect(err).toMatchObject({ type: 'ValueError', field: 'action', accepted: ['remigrate', 'reset_breakers', 'purge_invalid_l1'] });
    expect(err.message).toContain('Unknown memory_heal action "defrag"');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"items": [1');
    expect(storesOf(s).breakers.get('deferred_writes').state).toBe('open');
    expect((await toolError(s.call('memory_heal', { action: '' }))).type).toBe('ValueError');
    expect((await toolError(s.call('memory_heal', { layer: 'team' }))).field).toBe('layer');
    expect((await toolError(s.call('memory_heal', { user_id: '../x' }))).field).toBe('user_id');
  });
});
