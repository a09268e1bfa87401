import { afterEach, describe, expect, it } from 'vitest';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';

const scratchpad = scratch('ms-plugin-def-');
afterEach(scratchpad.cleanup);

const kernel = () => scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger() }));

describe("a plugin's kernel range", () => {
  it.each(['banana', '^one', '1.0.0.0'])('%j, not a semver range, is refused by definePlugin naming the field and an example', (range) => {
    expect(() => definePlugin({ name: 'bad-range', version: '1.0.0', tier: 'br', kernel: range, setup() {} })).toThrow(
      `Plugin bad-range: kernel must be a semver range of kernel versions, such as "^1.0.0"; got ${JSON.stringify(range)}`,
    );
  });

  it('ranges semver reads are accepted as before', () => {
    for (const range of ['^1.0.0', '1.0.0', '>=1.0.0 <2', '1.x', '*', '^1']) {
      expect(() => definePlugin({ name: 'ok-range', version: '1.0.0', tier: 'ok', kernel: range, setup() {} })).not.toThrow();
    }
  });

  it('a plugin exported as a plain object, not made by definePlugin, is checked the same way before setup', async () => {
    const k = kernel();
    let ran = false;
    const plain = { name: 'plain-plugin', version: '1.0.0', tier: 'plain', setup: () => void (ran = true) } as never;
    const err = await k.register(plain).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_INVALID', plugin: 'plain-plugin', field: 'kernel' });
    expect(err.message).toBe('Plugin plain-plugin: kernel must be a semver range of kernel versions, such as "^1.0.0"; got undefined');
    expect(ran).toBe(false);
    expect(k.pluginNames).toEqual([]);
  });
});
