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

describe('DisclosureStore: names in NFC with nothing hidden (kernel checkNewName)', () => {
  const C = 'Caf\u00e9';
  const D = 'Cafe\u0301';
  const rule = (name: string) => ({ name, trigger_keywords: ['coffee'], content: 'c' });
  const T = '2020-01-01T00:00:00.000Z';

  it('takes the name trimmed in NFC: the same name sent decomposed is the rule already there, a conflict naming it', () => {
    const s = env.stores.disclosure;
    const made = s.add(U, rule(` ${D} `));
    expect(made.name).toBe(C);
    const e = err(() => s.add(U, rule(C)));
    expect(e).toMatchObject({ code: 'STORES_ERR_CONFLICT', field: 'name' });
    expect(e.message).toContain(`"Café" (${made.rule_id}) already exists`);
    expect(err(() => s.add(U, rule(D))).code).toBe('STORES_ERR_CONFLICT');
    // Import merge skips it in either form.
    expect(s.restore(U, { ...rule(D), enabled: true, created: T, updated: T })).toBeNull();
    expect(s.restore(U, { ...rule(C), enabled: true, created: T, updated: T })).toBeNull();
    expect(s.list(U).map((r) => r.name)).toEqual([C]);
    // Another scope is free.
    expect(s.add(U2, rule(D)).name).toBe(C);
  });

  it('a name stored in another form before (kept by migration 29 beside its NFC twin) still counts as that name', () => {
    const s = env.stores.disclosure;
    s.add(U, rule(C));
    env.stores.ctx.db.prepare(`INSERT INTO disclosure_rules (layer, user_id, name, trigger_keywords, content, created, updated) VALUES (?, ?, ?, '["x"]', 'c', ?, ?)`).run(U.layer, U.user_id, D, T, T);
    env.stores.ctx.db.prepare(`INSERT INTO disclosure_rules (layer, user_id, name, trigger_keywords, content, created, updated) VALUES (?, ?, ?, '["x"]', 'c', ?, ?)`).run(U.layer, U.user_id, 'Zoe\u0308', T, T);
    expect(err(() => s.add(U, rule('Zo\u00eb'))).message).toContain('"Zoe\u0308"');
    expect(s.list(U)).toHaveLength(3);
  });

  it('refuses a control character or a character that shows nothing, naming name, the character as U+XXXX and its index', () => {
    const s = env.stores.disclosure;
    const refusal = (name: string) => {
      const e = err(() => s.add(U, rule(name)));
      return { field: e.field, message: e.message };
    };
    expect(refusal('allergy\u200B')).toEqual({ field: 'name', message: expect.stringContaining('U+200B at index 7') });
    expect(refusal('\u3164allergy')).toEqual({ field: 'name', message: expect.stringContaining('U+3164 at index 0') });
    expect(refusal('allergy\u2800')).toEqual({ field: 'name', message: expect.stringContaining('U+2800 at index 7') });
    expect(refusal('a\u034Fllergy')).toEqual({ field: 'name', message: expect.stringContaining('U+034F at index 1') });
    expect(refusal('invoice\u202Efdp')).toEqual({ field: 'name', message: expect.stringContaining('U+202E at index 7') });
    expect(refusal('allergy\u001b[31m')).toEqual({ field: 'name', message: expect.stringContaining('U+001B at index 7') });
    expect(s.list(U)).toEqual([]);
    expect(() => s.restore(U, { ...rule('allergy\u3164'), enabled: true, created: T, updated: T })).toThrow(expect.objectContaining({ field: 'name' }));
    // What a script needs stays: a Persian name with its non-joiner, an emoji with its selector.
    expect(s.add(U, rule('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645')).name).toBe('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645');
    expect(s.add(U, rule('\u2764\ufe0f')).name).toBe('\u2764\ufe0f');
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
