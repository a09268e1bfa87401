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

describe("a plugin's name", () => {
  it.each(['acme.notes', '@acme.io/notes', '@acme/notes.plugin'])('%j, with a dot, is refused: its config section could never be read by a dotted path', (name) => {
    expect(() => definePlugin({ name, version: '1.0.0', tier: 'dotted', kernel: '^1.0.0', setup() {} })).toThrow(
      `Plugin ${name}: name must be a package name of lower-case letters, digits, "-" and "_", optionally scoped, without dots (its config.yaml section is read by dotted paths), such as "my-notes-plugin" or "@acme/notes-plugin"; got ${JSON.stringify(name)}`,
    );
  });

  it('an invalid name is refused saying what a valid one looks like and what was given', () => {
    const err = (() => {
      try {
        definePlugin({ name: 'Bad Name!', version: '1.0.0', tier: 'bad', kernel: '^1.0.0', setup() {} });
      } catch (e) {
        return e as Error & { code?: string; field?: string };
      }
    })();
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_INVALID', field: 'name' });
    expect(err!.message).toMatch(/such as "my-notes-plugin" or "@acme\/notes-plugin"; got "Bad Name!"$/);
  });

  it('names with letters, digits, - and _, scoped or not, are accepted, and their config section is read', async () => {
    for (const name of ['notes', 'my-notes_plugin2', '@acme/notes-plugin', '@a_b/c']) {
      expect(() => definePlugin({ name, version: '1.0.0', tier: 'ok', kernel: '^1.0.0', setup() {} })).not.toThrow();
    }
    const k = scratchpad.kernel(new Kernel({ dataDir: scratchpad.dir(), logger: silentLogger(), config: { '@acme/notes-plugin': { folder: 'mine' } } }));
    let folder: unknown;
    await k.register(definePlugin({ name: '@acme/notes-plugin', version: '1.0.0', tier: 'acmenotes', kernel: '^1.0.0', setup: (ctx) => void (folder = ctx.config.get('@acme/notes-plugin.folder', 'dflt')) }));
    expect(folder).toBe('mine');
  });

  it('a dotted name given as a plain object is refused by the kernel before setup', async () => {
    const k = kernel();
    let ran = false;
    const plain = { name: 'acme.notes', version: '1.0.0', tier: 'acme', kernel: '^1.0.0', setup: () => void (ran = true) } as never;
    await expect(k.register(plain)).rejects.toMatchObject({ code: 'KERNEL_ERR_PLUGIN_INVALID', field: 'name' });
    expect(ran).toBe(false);
  });
});
