import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A, U, U2, makeEnv, thrownBy as err, type Env } from './test-helpers.js';
import { DISCLOSURE_KEYWORD_MAX } from './disclosure.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('DisclosureStore', () => {
  it('adds enabled rules and matches any keyword as a case-insensitive substring', () => {
    const r = env.stores.disclosure.add(U, { name: 'allergy', trigger_keywords: ['Peanut', 'restaurant'], content: 'The user is allergic to peanuts' });
    expect(r).toMatchObject({ rule_id: 'disc_1', enabled: true, trigger_keywords: ['Peanut', 'restaurant'] });
    expect(env.stores.disclosure.matching(U, 'Book a RESTAURANTS table').map((x) => x.rule_id)).toEqual(['disc_1']);
    expect(env.stores.disclosure.matching(U, 'peanut butter')).toHaveLength(1);
    expect(env.stores.disclosure.matching(U, 'cinema tonight')).toEqual([]);
    expect(env.stores.disclosure.matching(U, '')).toEqual([]);
  });

  it('disable stops matching, enable restores it; delete removes the rule', () => {
    const r = env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['tax'], content: 'c' });
    expect(env.stores.disclosure.setEnabled(U, r.rule_id, false)).toMatchObject({ changed: true, rule: { enabled: false } });
    expect(env.stores.disclosure.matching(U, 'tax return')).toEqual([]);
    expect(env.stores.disclosure.setEnabled(U, r.rule_id, false).changed).toBe(false);
    expect(env.stores.disclosure.setEnabled(U, r.rule_id, true).rule.enabled).toBe(true);
    expect(env.stores.disclosure.matching(U, 'tax return')).toHaveLength(1);
    env.stores.disclosure.delete(U, r.rule_id);
    expect(env.stores.disclosure.list(U)).toEqual([]);
    expect(err(() => env.stores.disclosure.delete(U, r.rule_id)).field).toBe('rule_id');
  });

  it('refuses bad input naming the field, and a duplicate name', () => {
    expect(err(() => env.stores.disclosure.add(U, { name: '', trigger_keywords: ['a'], content: 'c' })).field).toBe('name');
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: [], content: 'c' })).field).toBe('trigger_keywords');
    // A keyword is named by its place in the list, as the tool's schema names it.
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: [' '], content: 'c' })).field).toBe('trigger_keywords.0');
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['ok', 'k'.repeat(DISCLOSURE_KEYWORD_MAX + 1)], content: 'c' })).field).toBe('trigger_keywords.1');
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['ok', 42 as unknown as string], content: 'c' })).field).toBe('trigger_keywords.1');
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['a'], content: ' ' })).field).toBe('content');
    env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['a'], content: 'c' });
    expect(err(() => env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['b'], content: 'c' })).field).toBe('name');
    expect(env.stores.disclosure.list(U)).toHaveLength(1);
  });

  it('keeps scopes apart', () => {
    const r = env.stores.disclosure.add(U, { name: 'n', trigger_keywords: ['tax'], content: 'c' });
    expect(env.stores.disclosure.matching(A, 'tax')).toEqual([]);
    expect(env.stores.disclosure.matching(U2, 'tax')).toEqual([]);
    expect(err(() => env.stores.disclosure.setEnabled(U2, r.rule_id, false)).code).toBe('STORES_ERR_NOT_FOUND');
    expect(env.stores.disclosure.add(U2, { name: 'n', trigger_keywords: ['x'], content: 'c' }).rule_id).toBe('disc_2');
  });
});

describe('DisclosureStore: export, import and the window purge', () => {
  it('restore keeps the enabled state and times, leaves a held name as it is; deleteSince and clear stay in the scope', () => {
    const s = env.stores.disclosure;
    s.add(U, { name: 'old', trigger_keywords: ['x'], content: 'y' });
    const since = env.clock.now();
    env.clock.advance(1000);
    s.add(U, { name: 'new', trigger_keywords: ['x'], content: 'y' });
    s.add(A, { name: 'agent', trigger_keywords: ['x'], content: 'y' });
    const r = { name: 'Allergy', trigger_keywords: ['food'], content: 'nuts', enabled: false, created: '2020-01-01T00:00:00.000Z', updated: '2020-01-02T00:00:00.000Z' };
    expect(s.restore(U2, r)).toMatchObject(r);
    expect(s.restore(U2, { ...r, content: 'other' })).toBeNull();
    expect(s.list(U2).map((x) => x.content)).toEqual(['nuts']);
    expect(s.matching(U2, 'food')).toEqual([]);
    expect(s.deleteSince(U, new Date(since + 1).toISOString())).toBe(1);
    expect(s.list(U).map((x) => x.name)).toEqual(['old']);
    expect(s.clear(U)).toBe(1);
    expect(s.list(A)).toHaveLength(1);
  });

});

describe('DisclosureStore: keywords folded', () => {
  it('matches a keyword folded as dream folds words: NFC and NFD, Turkish capital I with dot, sharp s', () => {
    env.stores.disclosure.add(U, { name: 'nfc', trigger_keywords: ['caf\u00e9'], content: 'c' });
    env.stores.disclosure.add(U, { name: 'ist', trigger_keywords: ['istanbul'], content: 'i' });
    env.stores.disclosure.add(U, { name: 'str', trigger_keywords: ['strasse'], content: 's' });
    const names = (text: string) => env.stores.disclosure.matching(U, text).map((r) => r.name);
    expect(names('meet at the cafe\u0301')).toEqual(['nfc']);
    expect(names('trip to \u0130STANBUL')).toEqual(['ist']);
    expect(names('walk down the Stra\u00dfe')).toEqual(['str']);
    // One keyword is kept of two that fold alike.
    expect(env.stores.disclosure.add(U, { name: 'two', trigger_keywords: ['Stra\u00dfe', 'STRASSE'], content: 'x' }).trigger_keywords).toEqual(['Stra\u00dfe']);
  });
});
