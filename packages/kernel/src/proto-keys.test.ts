import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { checkNoProtoKeys, PROTO_KEY_ACCEPTED, protoKeyPath } from './proto-keys.js';
import { scratch } from './scratch.fixture.js';
import { defineTool, parseArgs } from './tools.js';

const scratchpad = scratch('ms-proto-keys-');
afterEach(scratchpad.cleanup);

/** As a transport hands arguments over: JSON.parse makes "__proto__" an ordinary own key. */
const sent = (json: string): Record<string, unknown> => JSON.parse(json);

describe('protoKeyPath', () => {
  it('finds an own __proto__ key at any depth, in objects and lists, named by its dotted path', () => {
    expect(protoKeyPath(sent('{"__proto__":{"x":1},"a":2}'))).toBe('__proto__');
    expect(protoKeyPath(sent('{"fields":{"name":"n","__proto__":{"polluted":true}}}'))).toBe('fields.__proto__');
    expect(protoKeyPath(sent('{"nodes":[{"a":1},{"properties":{"deep":[0,{"__proto__":null}]}}]}'))).toBe('nodes.1.properties.deep.1.__proto__');
    expect(protoKeyPath(sent('[{"__proto__":1}]'), 'payload')).toBe('payload.0.__proto__');
    expect(protoKeyPath(sent('{"__proto__":"a string too"}'), 'payload')).toBe('payload.__proto__');
    // The first in the input's order.
    expect(protoKeyPath(sent('{"a":{"b":{"__proto__":1}},"c":{"__proto__":1}}'))).toBe('a.b.__proto__');
  });

  it('finds nothing in ordinary input: "constructor", "prototype" and look-alike keys are ordinary keys', () => {
    for (const json of ['{}', '{"a":1,"b":[1,"x",null]}', '{"constructor":{"prototype":{"x":1}}}', '{"__proto":1,"proto__":2,"__PROTO__":3," __proto__":4}', '"__proto__"', '["__proto__"]']) {
      expect(protoKeyPath(JSON.parse(json)), json).toBeNull();
    }
    for (const v of [null, undefined, 1, 'x']) expect(protoKeyPath(v)).toBeNull();
    // An object literal's __proto__ sets the prototype and makes no key: nothing to refuse there.
    expect(protoKeyPath({ __proto__: { x: 1 }, a: 1 })).toBeNull();
  });

  it('walks input nested far deeper than the call stack would allow', () => {
    const deep = `${'{"a":'.repeat(200_000)}{"__proto__":1}${'}'.repeat(200_000)}`;
    const path = protoKeyPath(JSON.parse(deep));
    expect(path?.endsWith('a.__proto__')).toBe(true);
    expect(path?.split('.')).toHaveLength(200_001);
  });

  it('checkNoProtoKeys throws the validation error naming the path and what is accepted', () => {
    expect(() => checkNoProtoKeys(sent('{"payload":{"__proto__":{}}}'))).toThrow(
      expect.objectContaining({
        code: 'KERNEL_ERR_VALIDATION',
        type: 'ValidationError',
        field: 'payload.__proto__',
        accepted: PROTO_KEY_ACCEPTED,
        message: expect.stringContaining('"__proto__" is not accepted as a key'),
      }),
    );
    expect(() => checkNoProtoKeys(sent('{"payload":{"constructor":{}}}'))).not.toThrow();
  });
});

describe('a __proto__ key in a tool call or an event payload', () => {
  const freeJson = defineTool({
    name: 'keep_json',
    title: 'keep_json',
    description: 'keeps free JSON',
    input: z.object({ data: z.record(z.string(), z.unknown()), note: z.string().optional() }),
    annotations: { readOnlyHint: true },
    handler: (args: { data: Record<string, unknown> }) => ({ keys: Object.keys(args.data) }),
  });

  it('is what zod drops without a word, which is why it is refused before zod parses', () => {
    // The defect: the record came back without the key, and the call went on as if it had not been sent.
    const parsed = freeJson.input.parse(sent('{"data":{"__proto__":{"x":1},"kept":1}}')) as { data: object };
    expect(Object.keys(parsed.data)).toEqual(['kept']);
    expect(Object.getPrototypeOf(parsed.data)).toBe(Object.prototype);
  });

  it('parseArgs refuses it in a record, at the top and inside a key the tool does not take, naming the path', () => {
    expect(() => parseArgs(freeJson, sent('{"data":{"__proto__":{"x":1},"kept":1}}'))).toThrow(expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'data.__proto__' }));
    expect(() => parseArgs(freeJson, sent('{"data":{},"__proto__":{"x":1}}'))).toThrow(expect.objectContaining({ field: '__proto__' }));
    expect(() => parseArgs(freeJson, sent('{"data":{},"extra":[{"__proto__":1}]}'))).toThrow(expect.objectContaining({ field: 'extra.0.__proto__' }));
    expect(parseArgs(freeJson, sent('{"data":{"constructor":{"prototype":{"x":1}}}}'))).toEqual({ data: { constructor: { prototype: { x: 1 } } } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('is refused by callTool and dispatchEvent, nothing run and no prototype touched', async () => {
    let ran = 0;
    let events = 0;
    const plugin = definePlugin({
      name: 'p',
      version: '1.0.0',
      tier: 'tst',
      kernel: '^1.0.0',
      setup: (ctx) => {
        ctx.tools.register({ ...freeJson, handler: (args: { data: Record<string, unknown> }) => (ran++, { keys: Object.keys(args.data) }) });
        ctx.hooks.new_message.tapPromise('count', async (results) => (events++, results));
      },
    });
    const k = scratchpad.kernel(await createKernel({ dataDir: scratchpad.dir(), logger: silentLogger(), plugins: [plugin] }));
    await expect(k.callTool('keep_json', sent('{"data":{"a":1,"__proto__":{"polluted":true}}}'))).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'data.__proto__',
      accepted: PROTO_KEY_ACCEPTED,
    });
    await expect(k.dispatchEvent('new_message', sent('{"text":"hi","meta":{"__proto__":{"polluted":true}}}'))).rejects.toMatchObject({
      code: 'KERNEL_ERR_VALIDATION',
      field: 'payload.meta.__proto__',
    });
    expect(ran).toBe(0);
    expect(events).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expect(k.callTool('keep_json', sent('{"data":{"a":1}}'))).resolves.toEqual({ keys: ['a'] });
    await k.dispatchEvent('new_message', { text: 'hi' });
    expect(events).toBe(1);
  });
});
