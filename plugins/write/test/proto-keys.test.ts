import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

/** Arguments as a client's JSON text gives them: JSON.parse makes "__proto__" an ordinary own key (an object literal's would set the prototype). */
const sent = (json: string): Record<string, unknown> => JSON.parse(json);

const U = { layer: 'user' as const, user_id: 'default' };

describe('a __proto__ key in free JSON arguments (in-process MCP client)', () => {
  it('memory_save_typed refuses fields.__proto__, naming the path and what is accepted, and saves nothing', async () => {
    s = await start();
    const err = await toolError(s.call('memory_save_typed', sent('{"type":"decision","fields":{"name":"db","decision":"Use SQLite","__proto__":{"polluted":true}}}')));
    expect(err).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'fields.__proto__', accepted: 'any object key other than "__proto__"' });
    expect(err.message).toMatch(/"__proto__" is not accepted as a key/);
    expect(storesOf(s).facts.get(U, 'decision:db')).toBeNull();
    // Before the fix the key was dropped and the fact saved as if it had not been sent.
    const saved = await s.call('memory_save_typed', sent('{"type":"decision","fields":{"name":"db","decision":"Use SQLite"}}'));
    expect(saved.created_new).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('memory_session_end refuses a __proto__ key inside state_deltas, and memory_hook one in its payload or at the top', async () => {
    s = await start();
    const started = (await s.call('memory_session_start', {})).session;
    const end = await toolError(s.call('memory_session_end', sent('{"summary":"s","state_deltas":{"db":{"__proto__":{"x":1}}}}')));
    expect(end).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'state_deltas.db.__proto__' });
    // The session is still open: the refused call changed nothing.
    expect((await s.call('memory_session_end', { summary: 's' })).session.id).toBe(started.id);
    expect(await toolError(s.call('memory_hook', sent('{"event":"memory_pressure","payload":{"__proto__":{"x":1}}}')))).toMatchObject({ field: 'payload.__proto__' });
    expect(await toolError(s.call('memory_hook', sent('{"event":"memory_pressure","__proto__":{"x":1}}')))).toMatchObject({ field: '__proto__' });
    // A "constructor" key is an ordinary key.
    expect((await s.call('memory_hook', sent('{"event":"memory_pressure","payload":{"constructor":{"prototype":{"x":1}}}}'))).event).toBe('memory_pressure');
  });
});
