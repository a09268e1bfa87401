import { afterEach, describe, expect, it } from 'vitest';
import { primitives, start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

const D = (args: Record<string, unknown>) => s.call('memory_disclose', args);
const inject = async (text: string, extra: Record<string, unknown> = {}) =>
  (await s.call('memory_hook', { event: 'session_started', payload: { text }, ...extra })).results[primitives.name];
const ALLERGY = { action: 'add', name: 'allergy', trigger_keywords: ['peanut', 'Restaurant'], content: 'The user is allergic to peanuts.' };

describe('memory_disclose', () => {
  it('add creates an enabled rule, list shows it', async () => {
    s = await start();
    const r = await D(ALLERGY);
    expect(r.rule).toMatchObject({ rule_id: 'disc_1', name: 'allergy', trigger_keywords: ['peanut', 'Restaurant'], enabled: true });
    const l = await D({ action: 'list' });
    expect(l.count).toBe(1);
    expect(l.rules[0].content).toBe('The user is allergic to peanuts.');
  });

  it('disable and enable move the state; repeating one changes nothing; delete removes the rule', async () => {
    s = await start();
    await D(ALLERGY);
    expect(await D({ action: 'disable', rule_id: 'disc_1' })).toMatchObject({ changed: true, rule: { enabled: false } });
    expect((await D({ action: 'disable', rule_id: 'disc_1' })).changed).toBe(false);
    expect(await D({ action: 'enable', rule_id: 'disc_1' })).toMatchObject({ changed: true, rule: { enabled: true } });
    expect((await D({ action: 'enable', rule_id: 'disc_1' })).changed).toBe(false);
    expect(await D({ action: 'delete', rule_id: 'disc_1' })).toMatchObject({ deleted: true, rule: { name: 'allergy' } });
    expect((await D({ action: 'list' })).count).toBe(0);
    expect((await toolError(D({ action: 'delete', rule_id: 'disc_1' }))).field).toBe('rule_id');
  });

  it('refuses missing or bad fields, naming them, and writes nothing', async () => {
    s = await start();
    expect((await toolError(D({ action: 'add', trigger_keywords: ['a'], content: 'c' }))).field).toBe('name');
    expect((await toolError(D({ action: 'add', name: 'n', content: 'c' }))).field).toBe('trigger_keywords');
    expect((await toolError(D({ action: 'add', name: 'n', trigger_keywords: ['a'] }))).field).toBe('content');
    expect((await toolError(D({ action: 'add', name: 'n', trigger_keywords: [], content: 'c' }))).field).toBe('trigger_keywords');
    expect((await toolError(D({ action: 'add', name: 'n', trigger_keywords: Array(21).fill('k'), content: 'c' }))).field).toBe('trigger_keywords');
    expect((await toolError(D({ action: 'add', name: 'n', trigger_keywords: ['k'.repeat(101)], content: 'c' }))).field).toBe('trigger_keywords.0');
    expect((await toolError(D({ action: 'add', name: 'x'.repeat(101), trigger_keywords: ['k'], content: 'c' }))).field).toBe('name');
    expect((await toolError(D({ action: 'add', name: 'n', trigger_keywords: ['k'], content: 'c'.repeat(4001) }))).field).toBe('content');
    expect((await toolError(D({ action: 'enable' }))).field).toBe('rule_id');
    expect((await toolError(D({ action: 'disable', rule_id: 'disc_7' }))).field).toBe('rule_id');
    expect((await toolError(D({ action: 'explode' }))).field).toBe('action');
    expect((await D({ action: 'list' })).count).toBe(0);
    await D(ALLERGY);
    expect((await toolError(D({ ...ALLERGY, trigger_keywords: ['other'] }))).field).toBe('name');
    expect((await D({ action: 'list' })).count).toBe(1);
  });

  it('takes the name in NFC: sent decomposed, it is the rule of that name, a ConflictError naming name', async () => {
    s = await start();
    const made = await D({ ...ALLERGY, name: 'Cafe\u0301' });
    expect(made.rule.name).toBe('Caf\u00e9');
    for (const name of ['Caf\u00e9', 'Cafe\u0301']) {
      expect(await toolError(D({ ...ALLERGY, name }))).toMatchObject({ type: 'ConflictError', field: 'name' });
    }
    expect((await D({ action: 'list' })).rules.map((r: { name: string }) => r.name)).toEqual(['Caf\u00e9']);
  });

  it('refuses a name holding a control character or a character that shows nothing, naming name, the character and its index', async () => {
    s = await start();
    await D(ALLERGY);
    for (const [name, what] of [
      ['allergy\u200B', 'U+200B at index 7'],
      ['allergy\u3164', 'U+3164 at index 7'],
      ['\uFE0Fallergy', 'U+FE0F at index 0'],
      ['allergy\u2800', 'U+2800 at index 7'],
      ['invoice\u202Efdp', 'U+202E at index 7'],
    ] as const) {
      const e = await toolError(D({ ...ALLERGY, name }));
      expect(e, JSON.stringify(name)).toMatchObject({ type: 'ValidationError', field: 'name' });
      expect(e.message, JSON.stringify(name)).toContain(what);
    }
    expect((await D({ action: 'list' })).rules.map((r: { name: string }) => r.name)).toEqual(['allergy']);
  });

  it('keeps layers and user_ids apart', async () => {
    s = await start();
    await D(ALLERGY);
    expect((await D({ action: 'list', layer: 'agent' })).count).toBe(0);
    expect((await D({ action: 'list', user_id: 'bob' })).count).toBe(0);
    expect((await toolError(D({ action: 'disable', rule_id: 'disc_1', user_id: 'bob' }))).field).toBe('rule_id');
    expect((await D({ action: 'list' })).rules[0].enabled).toBe(true);
  });

  it('caps the rules of a scope', async () => {
    s = await start();
    const st = storesOf(s);
    for (let i = 0; i < 200; i++) st.disclosure.add({ layer: 'user', user_id: 'default' }, { name: `r${i}`, trigger_keywords: ['k'], content: 'c' });
    expect((await toolError(D({ ...ALLERGY }))).message).toContain('200');
    expect((await D({ ...ALLERGY, user_id: 'bob' })).rule.name).toBe('allergy');
  });
});

describe('triggered disclosures in the session_started inject', () => {
  it('an enabled rule whose keyword the text holds (any, case-insensitive substring) comes as a triggered block with score 0.95', async () => {
    s = await start();
    await D(ALLERGY);
    const r = await inject('Find a RESTAURANTS near the station');
    expect(r.inject).toContain('## Triggered disclosures');
    expect(r.inject).toContain('The user is allergic to peanuts.');
    expect(r.blocks).toContainEqual({ source: 'triggered', title: 'Triggered disclosures', score: 0.95 });
    expect((await inject('Plan the cinema night')).inject).not.toContain('allergic');
    expect((await inject('restaurant', { user_id: 'bob' })).inject).not.toContain('allergic');
  });

  it('a disabled rule does not trigger; enabled again it does', async () => {
    s = await start();
    await D(ALLERGY);
    await D({ action: 'disable', rule_id: 'disc_1' });
    expect((await inject('peanut sauce')).inject).not.toContain('allergic');
    await D({ action: 'enable', rule_id: 'disc_1' });
    expect((await inject('peanut sauce')).inject).toContain('allergic');
  });

  it('works with the write tier hidden', async () => {
    s = await start({ expose: 'primitives' });
    storesOf(s).disclosure.add({ layer: 'agent', user_id: 'default' }, { name: 'tone', trigger_keywords: ['review'], content: 'Be direct in reviews.' });
    expect((await inject('code review today', { layer: 'agent' })).inject).toContain('Be direct in reviews.');
  });
});
