import fs from 'node:fs';
import path from 'node:path';
import { sqliteDriver } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPLICA_FILE, REPLICA_FRESH_SECONDS } from './replica.js';
import { U, U2, copiedFiller, copyUnderSteadyWriter, makeEnv, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('Replica', () => {
  it('status before any sync: no replica', () => {
    expect(env.stores.replica.status()).toMatchObject({ exists: false, size_bytes: null, synced_at: null, age_seconds: null, fresh: false });
  });

  it('sync writes one self-contained copy with the rows of the live database and its sync time', async () => {
    env.stores.facts.upsert(U, { key: 'a', value: 'one' });
    env.stores.facts.upsert(U2, { key: 'b', value: 'two' });
    env.stores.episodes.add(U, { summary: 'ep' });
    const r = await env.stores.replica.sync(U);
    expect(r.rows).toMatchObject({ facts: 2, episodes: 1 });
    expect(r.scope_rows).toMatchObject({ facts: 1, episodes: 1 });
    expect(r.synced_at).toBe(new Date(env.clock.now()).toISOString());
    const file = path.join(env.dir, REPLICA_FILE);
    expect(r.size_bytes).toBe(fs.statSync(file).size);
    // No journal, WAL or temp file is left beside it.
    expect(fs.readdirSync(env.dir).filter((f) => f.startsWith('replica'))).toEqual([REPLICA_FILE]);
    const copy = new (sqliteDriver().Database)(file, { readonly: true });
    try {
      expect(copy.prepare('SELECT key FROM facts ORDER BY key').pluck(true).all()).toEqual(['a', 'b']);
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      copy.close();
    }
  });

  it('a later sync replaces the copy; status ages it by the clock', async () => {
    await env.stores.replica.sync(U);
    env.stores.facts.upsert(U, { key: 'later', value: 'x' });
    env.clock.advance(60_000);
    const second = await env.stores.replica.sync(U);
    expect(second.rows.facts).toBe(1);
    env.clock.advance((REPLICA_FRESH_SECONDS - 60) * 1000);
    expect(env.stores.replica.status()).toMatchObject({ exists: true, synced_at: second.synced_at, age_seconds: REPLICA_FRESH_SECONDS - 60, fresh: true });
    env.clock.advance(61_000);
    expect(env.stores.replica.status()).toMatchObject({ age_seconds: REPLICA_FRESH_SECONDS + 1, fresh: false });
  });

  it('a file that is not a replica exists with no known age', () => {
    fs.writeFileSync(path.join(env.dir, REPLICA_FILE), 'not a database');
    expect(env.stores.replica.status()).toMatchObject({ exists: true, size_bytes: 14, synced_at: null, fresh: false });
  });

  // Regression guard, fixed: the sync copied with the backup API's default steps, which restart from the first page
  // whenever another connection writes between two of them, so under a steady writer in another process it never
  // finished (as backups did, audit-o finding 3).
  it('a sync finishes while another process writes between its steps, holding one snapshot', async () => {
    const { result, writesDuring } = await copyUnderSteadyWriter(env, () => env.stores.replica.sync(U));
    expect(result, 'the sync did not finish within 8 s while the other process wrote').not.toBeNull();
    expect(writesDuring).toBeGreaterThan(10);
    const copy = copiedFiller(path.join(env.dir, REPLICA_FILE));
    expect(copy.quickCheck).toBe('ok');
    // One snapshot: the rows there before, and a prefix of the ones written during it.
    expect(copy.ids.length).toBeGreaterThanOrEqual(3000);
    expect(copy.ids.length).toBeLessThanOrEqual(3000 + writesDuring);
    expect(copy.ids[copy.ids.length - 1]).toBe(copy.ids.length);
  }, 20_000);
});
