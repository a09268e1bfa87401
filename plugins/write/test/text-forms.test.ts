import { afterEach, describe, expect, it } from 'vitest';
import { primitives, start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** "café", precomposed (NFC) and decomposed (NFD). */
const C = 'caf\u00e9';
const D = 'cafe\u0301';

describe('text forms through the write tools (audit R)', () => {
  it('memory_episode_save stores a tag in NFC and refuses one holding an invisible format character, naming it', async () => {
    s = await start();
    const a: any = await s.call('memory_episode_save', { summary: 'decomposed', tags: [D] });
    const b: any = await s.call('memory_episode_save', { summary: 'composed', tags: [C] });
    expect(a.episode.tags).toEqual([C]);
    expect(b.episode.tags).toEqual([C]);
    for (const tag of ['wo\u200brk', 'invoice\u202efdp.exe']) {
      const e = await toolError(s.call('memory_episode_save', { summary: 'bad', tags: ['ok', tag] }));
      expect(e, JSON.stringify(tag)).toMatchObject({ field: 'tags.1', message: expect.stringMatching(/invisible format characters/) });
    }
  });

  it('memory_counterfactual lists by the anchor in either spelling, and saving it again in the other returns the saved one', async () => {
    s = await start();
    const saved: any = await s.call('memory_counterfactual', { action: 'save', anchor: D, premise: 'p', projection: 'q' });
    expect(saved.counterfactual.anchor).toBe(C);
    const listed: any = await s.call('memory_counterfactual', { action: 'list', anchor: C });
    expect(listed.counterfactuals.map((c: any) => c.id)).toEqual([saved.counterfactual.id]);
    expect(await s.call('memory_counterfactual', { action: 'save', anchor: C, premise: 'p', projection: 'q' })).toMatchObject({ created_new: false, counterfactual: { id: saved.counterfactual.id } });
  });

  it('memory_graph_add finds the person or organization a lookalike name names, and refuses invisible format characters in one', async () => {
    s = await start();
    const add = (content: string, node_type: string): Promise<any> => s.call('memory_graph_add', { content, node_type });
    const ist = await add('\u0130stanbul Ltd', 'organization');
    expect(await add('istanbul ltd', 'organization')).toMatchObject({ existed: true, node: { node_id: ist.node.node_id } });
    const str = await add('Stra\u00dfe AG', 'organization');
    expect(await add('STRASSE AG', 'organization')).toMatchObject({ existed: true, node: { node_id: str.node.node_id } });
    await add('Zo\u00eb', 'person');
    for (const bad of ['Zo\u00eb\u200b', 'Bob\u202e']) {
      expect(await toolError(add(bad, 'person')), JSON.stringify(bad)).toMatchObject({ field: 'content', message: expect.stringMatching(/invisible format characters/) });
    }
  });

  it('memory_remember refuses a key holding U+2028 or U+2029, naming key', async () => {
    s = await start();
    for (const key of ['a\u2028b', 'a\u2029b']) {
      expect(await toolError(s.call('memory_remember', { key, value: 'x' })), JSON.stringify(key)).toMatchObject({ field: 'key', message: expect.stringMatching(/U\+202[89]/) });
    }
  });

  it('a disclosure keyword triggers on the text folded as dream folds it: NFC and NFD, Turkish capital I with dot, sharp s', async () => {
    s = await start();
    const inject = async (text: string): Promise<string> => (await s.call('memory_hook', { event: 'session_started', payload: { text } })).results[primitives.name].inject;
    await s.call('memory_disclose', { action: 'add', name: 'cafe', trigger_keywords: [C], content: 'Rule cafe fired.' });
    await s.call('memory_disclose', { action: 'add', name: 'ist', trigger_keywords: ['istanbul'], content: 'Rule istanbul fired.' });
    await s.call('memory_disclose', { action: 'add', name: 'str', trigger_keywords: ['strasse'], content: 'Rule strasse fired.' });
    expect(await inject(`meet at the ${D}`)).toContain('Rule cafe fired.');
    expect(await inject('trip to \u0130STANBUL')).toContain('Rule istanbul fired.');
    expect(await inject('walk down the Stra\u00dfe')).toContain('Rule strasse fired.');
  });
});
