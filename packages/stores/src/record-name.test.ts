import { slugify } from '@memory-service/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordName, RECORD_NAME_ACCEPTED } from './record-name.js';
import { U, makeEnv, type Env } from './test-helpers.js';

describe('recordName', () => {
  it('keeps the letters and digits of every script, so names that differ in them name different records', () => {
    expect(recordName('Борщ 2')).toBe('борщ-2');
    expect(recordName('Пельмени 2')).toBe('пельмени-2');
    expect(recordName('Приготовить борщ')).toBe('приготовить-борщ');
    expect(recordName('東京 v2')).toBe('東京-v2');
    expect(recordName('大阪 v2')).toBe('大阪-v2');
    expect(recordName('Идея 1')).not.toBe(recordName('Мысль 1'));
    // Marks inside words of other scripts are part of them: a vowel sign, й and ё are kept.
    expect(recordName('हिन्दी नोट')).toBe('हिन्दी-नोट');
    expect(recordName('Йога и ёж')).toBe('йога-и-ёж');
    expect(recordName('Straße Ølstykke')).toBe('straße-ølstykke');
  });

  it('keeps the stored form of every name whose letters are Latin with accents at most (existing records stay found)', () => {
    for (const name of ['Plan B', 'plan-b', 'Deploy App', '  Café  Crème ', 'résumé v2', 'NUL', 'con', 'a_b.c/d\\e', 'x'.repeat(80), 'Ⅻ ½ ﬁle', 'untitled', '2']) {
      expect(recordName(name), name).toBe(slugify(name));
    }
    expect(recordName('Plan B')).toBe(recordName('plan-b'));
    // Random names of ASCII and accented Latin letters (a fixed seed): the file slug, every one.
    const chars = 'aZ09 -_./:~!é́ÉèçÇñÑüÜôÅåÿ 	';
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      const name = Array.from({ length: 1 + (next() % 90) }, () => chars[next() % chars.length]).join('');
      if (!/[a-z0-9]/i.test(name.normalize('NFKD')) || [...name.trim()].length > 80) continue;
      expect(recordName(name), JSON.stringify(name)).toBe(slugify(name.trim()));
    }
  });

  it('folds case, compatibility forms and the canonical forms of one name alike', () => {
    expect(recordName('ＢＯＲＳＣＨ ２')).toBe('borsch-2');
    expect(recordName('ＢＯＲＩＳ Борщ')).toBe('boris-борщ');
    expect(recordName('Йога'.normalize('NFD'))).toBe(recordName('Йога'.normalize('NFC')));
    expect(recordName('ΣΟΦΊΑ')).toBe(recordName('σοφία'));
    // Latin accents are folded as before, in a name of any script.
    expect(recordName('Café Борщ')).toBe('cafe-борщ');
  });

  it('never keeps a path, markup or control character, nor more than 80 characters', () => {
    for (const name of ['../../etc/пароль', '<b>жирный</b>', 'строка\nдве', 'a\u202Eb 東京', 'тест\u0000x', 'до/после\\всё']) {
      const stored = recordName(name);
      expect(stored, name).toMatch(/^[\p{L}\p{N}\p{M}]+(?:-[\p{L}\p{N}\p{M}]+)*$/u);
    }
    expect([...recordName('я'.repeat(80))].length).toBe(80);
    // A compatibility form can spell out several letters (㍿ is 株式会社): the slug is cut to 80.
    expect(recordName(`${'я'.repeat(78)} ㍿`)).toBe(`${'я'.repeat(78)}-株`);
  });

  it('refuses a name with no letter or digit of any script, or too long, naming the field and what is accepted', () => {
    for (const bad of ['!!!', '   ', '—', '\u0301\u0302', '\u200B']) {
      expect(() => recordName(bad, 'name'), JSON.stringify(bad)).toThrow(expect.objectContaining({ field: 'name', accepted: RECORD_NAME_ACCEPTED }));
    }
    expect(() => recordName('я'.repeat(81), 'records.0.name')).toThrow(expect.objectContaining({ field: 'records.0.name' }));
    expect(() => recordName(7)).toThrow(expect.objectContaining({ field: 'name' }));
    expect(RECORD_NAME_ACCEPTED).toMatch(/any script/);
  });
});

describe('records named in other scripts', () => {
  let env: Env;
  beforeEach(() => {
    env = makeEnv();
  });
  afterEach(() => env.close());

  it('a procedure, stash or branch named in another script is its own record', () => {
    const p = env.stores.procedures;
    expect(p.save(U, 'Борщ 2', { steps: ['варить свёклу'] }).created_new).toBe(true);
    expect(p.save(U, 'Пельмени 2', { steps: ['лепить'] }).created_new).toBe(true);
    expect(p.need(U, 'борщ 2').steps).toEqual(['варить свёклу']);
    expect(p.list(U).total).toBe(2);
    env.stores.scratchpad.write(U, 'a', 'A');
    env.stores.stashes.push(U, 'Идея 1');
    env.stores.scratchpad.write(U, 'b', 'B');
    expect(env.stores.stashes.push(U, 'Мысль 1').name).toBe('мысль-1');
    expect(env.stores.stashes.pop(U, 'ИДЕЯ 1').keys).toEqual(['a']);
    expect(env.stores.branches.create(U, '東京 v2').name).toBe('東京-v2');
    expect(env.stores.branches.create(U, '大阪 v2').name).toBe('大阪-v2');
  });
});
