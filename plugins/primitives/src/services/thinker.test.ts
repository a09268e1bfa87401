import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Scope } from '@memory-service/stores';
import { baseKey, freeFactKey } from './thinker.js';

/** Fact keys of think and evolve: a slug of the first six words; never overwrite another value. */
describe('baseKey', () => {
  it('slugs the first six words, lower case, after the prefix', () => {
    expect(baseKey('note', 'Remember: my birthday is on March 3')).toBe('note:remember-my-birthday-is-on-march');
    expect(baseKey('personality', 'Answer in SHORT sentences')).toBe('personality:answer-in-short-sentences');
  });

  it('drops punctuation and collapses separators', () => {
    expect(baseKey('note', '  Hello,   world!!  -- again  ')).toBe('note:hello-world-again');
  });

  it('folds accents', () => {
    expect(baseKey('note', 'Café crème brûlée')).toBe('note:cafe-creme-brulee');
  });

  it('texts differing only after the sixth word share a key', () => {
    expect(baseKey('note', 'one two three four five six seven')).toBe(baseKey('note', 'one two three four five six eight'));
  });

  it('falls back to "note" when the text has no word', () => {
    expect(baseKey('note', '!!! ???')).toBe('note:note');
    expect(baseKey('thought', '')).toBe('thought:note');
  });

  it('gives a non-Latin text a file-safe, non-empty key', () => {
    expect(baseKey('thought', '日本語のメモ')).toMatch(/^thought:[a-z0-9][a-z0-9-]*$/);
  });

  it('keeps keys short for long words', () => {
    expect(baseKey('note', 'x'.repeat(500)).length).toBeLessThanOrEqual('note:'.length + 80);
  });
});

const scope: Scope = { layer: 'user', user_id: 'default' };
const TEXT = 'Remember: my birthday is on March 3';
const BASE = 'note:remember-my-birthday-is-on-march';

/** A real facts store holding the given key -> value facts in `scope`. */
function storesWith(facts: Record<string, string>): Stores {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thinker-keys-'));
  const storage = new Storage(dir);
  opened.push({ storage, dir });
  storage.migrate('@memory-service/stores', storesMigrations);
  const stores = new Stores({ db: storage.db, dataDir: dir, clock: systemClock });
  for (const [key, value] of Object.entries(facts)) stores.facts.upsert(scope, { key, value, importance: 0.5, source: 'manual' });
  return stores;
}
const opened: { storage: Storage; dir: string }[] = [];
afterEach(() => {
  for (const { storage, dir } of opened.splice(0)) {
    storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('freeFactKey', () => {
  it('a free base key is used as is', () => {
    expect(freeFactKey(storesWith({}), scope, 'note', TEXT)).toBe(BASE);
  });

  it('the same value keeps its key', () => {
    expect(freeFactKey(storesWith({ [BASE]: TEXT }), scope, 'note', TEXT)).toBe(BASE);
  });

  it('another value under the base key moves to -2', () => {
    expect(freeFactKey(storesWith({ [BASE]: 'Remember: my birthday is on March 4' }), scope, 'note', TEXT)).toBe(`${BASE}-2`);
  });

  it('skips every taken suffix', () => {
    const stores = storesWith({ [BASE]: 'a', [`${BASE}-2`]: 'b', [`${BASE}-3`]: 'c' });
    expect(freeFactKey(stores, scope, 'note', TEXT)).toBe(`${BASE}-4`);
  });

  it('finds the same value under a suffix', () => {
    const stores = storesWith({ [BASE]: 'a', [`${BASE}-2`]: TEXT });
    expect(freeFactKey(stores, scope, 'note', TEXT)).toBe(`${BASE}-2`);
  });

  it('finds the value past a gap, and ignores keys outside the family', () => {
    const stores = storesWith({ [BASE]: 'a', [`${BASE}-3`]: TEXT, [`${BASE}-2x`]: 'b', [`${BASE}-02`]: 'c', [`${BASE}x`]: 'd', [`${BASE}-1`]: TEXT });
    expect(freeFactKey(stores, scope, 'note', TEXT)).toBe(`${BASE}-3`);
    expect(freeFactKey(stores, scope, 'note', 'Remember: my birthday is on March 4')).toBe(`${BASE}-2`);
    // The agent layer's keys are its own.
    expect(freeFactKey(stores, { layer: 'agent', user_id: 'default' }, 'note', TEXT)).toBe(BASE);
  });
});
