import { describe, expect, it } from 'vitest';
import { checkMisspelledKeys, misspelledArgument } from './misspelled-keys.js';

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
});
