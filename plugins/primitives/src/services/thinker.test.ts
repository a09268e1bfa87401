import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHooks, silentLogger, Storage, systemClock } from '@memory-service/kernel';
import { Stores, storesMigrations, type Scope } from '@memory-service/stores';
import { baseKey, freeFactKey, KEY_WORDS_MAX, Thinker, type ThinkResult } from './thinker.js';

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

  it('keeps the words of other scripts, recomposed, where it folds Latin accents', () => {
    expect(baseKey('thought', '日本語のメモ')).toBe('thought:日本語のメモ');
    expect(baseKey('note', 'Мой любимый цвет: синий')).toBe('note:мой-любимый-цвет-синий');
    // Kana voicing marks and Hangul syllables come back whole after the accents are folded.
    expect(baseKey('note', 'がぎぐ 한국어 Straße')).toBe('note:がぎぐ-한국어-straße');
    // Vowel signs are marks inside a word, not separators.
    expect(baseKey('note', 'हिन्दी भाषा')).toBe('note:हिन्दी-भाषा');
    expect(baseKey('note', 'Crème 日本')).toBe('note:creme-日本');
    expect(baseKey('note', 'Ёлка и ά')).toBe('note:ёлка-и-ά');
    expect(baseKey('note', 'Ｆｕｌｌ ½ cup')).toBe('note:full-1-2-cup');
  });

  it('keys a long text by its first six words, a long word cut to the key length', () => {
    const tail = ' more words'.repeat(50_000);
    expect(baseKey('thought', `Alpha beta gamma delta epsilon zeta${tail}`)).toBe('thought:alpha-beta-gamma-delta-epsilon-zeta');
    expect(baseKey('thought', `${'Q'.repeat(100_000)}${tail}`)).toBe(`thought:${'q'.repeat(KEY_WORDS_MAX)}`);
  });

  it('cuts the words at KEY_WORDS_MAX characters, never through a surrogate pair, with no dash at the end', () => {
    const key = baseKey('note', `${'𠀀'.repeat(79)} b`);
    expect(key).toBe(`note:${'𠀀'.repeat(79)}`);
    expect(baseKey('note', `${'a'.repeat(79)} bcd`)).toBe(`note:${'a'.repeat(79)}`);
    expect([...baseKey('note', '字'.repeat(300))].length).toBe('note:'.length + KEY_WORDS_MAX);
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

describe('Thinker routing length', () => {
  // Vietnamese stacks two accents on many letters: 1,694 characters in NFC are 2,288 code points in NFD.
  const sentence = 'Hôm nay tôi đã đến thăm Hà Nội và ăn phở bò ở một quán nhỏ gần hồ Hoàn Kiếm. ';
  const text = sentence.repeat(21).normalize('NFC');

  it('counts the text in NFC, so the same thought routes alike however its accents were sent', () => {
    expect([...text.normalize('NFD')].length).toBeGreaterThan(2000);
    const thinker = new Thinker(storesWith({}), systemClock, createHooks(), silentLogger(), 100_000);
    for (const form of ['NFC', 'NFD'] as const) {
      const r = thinker.think({ text: text.normalize(form), layer: 'user', user_id: 'default' }) as ThinkResult;
      expect(r.routing.length, form).toBe([...text.trim()].length);
      expect(r.actions.map((a) => a.store), form).not.toContain('wiki');
    }
  });
});
