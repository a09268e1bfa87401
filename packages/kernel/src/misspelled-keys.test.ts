import { describe, expect, it } from 'vitest';
import { checkMisspelledKeys, keysGivenInstead, misspelledArgument } from './misspelled-keys.js';

const KNOWN = ['text', 'layer', 'user_id', 'wiki_title'];

describe('misspelled and alias argument keys', () => {
  it('takes a usual other name of user_id or layer, in any case or separator style, for the one left out', () => {
    const userAliases = ['user', 'User', 'USER', 'users', 'usr', 'uid', 'UID', 'userId', 'UserID', 'user_id ', 'user.id', 'user-name', 'username', 'userName', 'user_name', 'owner', 'namespace', 'name_space', 'tenant', 'account_id'];
    for (const key of userAliases) expect(misspelledArgument(key, ['user_id', 'layer']), key).toBe('user_id');
    for (const key of ['lyr', 'LYR', 'lay', 'layers', 'layr', 'Layer', 'memory_layer']) expect(misspelledArgument(key, ['user_id', 'layer']), key).toBe('layer');
  });

  it('lets an alias through when the argument it names was given, and unrelated keys always', () => {
    expect(misspelledArgument('user', ['layer'])).toBeNull();
    expect(misspelledArgument('lyr', ['user_id'])).toBeNull();
    for (const key of ['reason', 'context', 'source', 'tags', 'priority', 'note', 'session', 'agent']) {
      expect(misspelledArgument(key, ['user_id', 'layer', 'wiki_title']), key).toBeNull();
    }
  });

  it('refuses the call naming the key and the argument meant', () => {
    expect(() => checkMisspelledKeys({ text: 'x', user: 'bob' }, KNOWN)).toThrow(
      expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'user', message: expect.stringContaining('did you mean "user_id"') }),
    );
    expect(() => checkMisspelledKeys({ text: 'x', user_id: 'bob', user: 'bob', reason: 'r' }, KNOWN)).not.toThrow();
    expect(() => checkMisspelledKeys({ text: 'x', namespace: 'bob', layer: 'user' }, KNOWN)).toThrow(expect.objectContaining({ field: 'namespace' }));
  });

  it('names the keys a call gave instead of a required argument it left out, and only then', () => {
    expect(keysGivenInstead({ content: 'x', layer: 'user' }, KNOWN, 'text')).toBe(
      `; the call gave "content" instead, which this tool does not take (arguments: ${KNOWN.join(', ')})`,
    );
    const many = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, 1]));
    expect(keysGivenInstead(many, KNOWN, 'text')).toMatch(/^; the call gave "a", "b", "c", "d", "e" and 2 more instead/);
    // The argument was given (its own value is what is wrong), no key was unknown, or the field is not an argument.
    expect(keysGivenInstead({ text: 5, content: 'x' }, KNOWN, 'text')).toBeNull();
    expect(keysGivenInstead({ layer: 'user' }, KNOWN, 'text')).toBeNull();
    expect(keysGivenInstead({ content: 'x' }, KNOWN, 'payload.tags')).toBeNull();
    expect(keysGivenInstead({ content: 'x' }, KNOWN, undefined)).toBeNull();
  });
});
