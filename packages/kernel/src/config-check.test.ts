import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Config } from './config.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { scratch } from './scratch.fixture.js';

const scratchpad = scratch('ms-config-');
afterEach(scratchpad.cleanup);

/** The error a config.yaml with this text gives when a kernel starts on it. */
function startError(yamlText: string): any {
  const dir = scratchpad.dir();
  fs.writeFileSync(path.join(dir, 'config.yaml'), yamlText);
  try {
    scratchpad.kernel(new Kernel({ dataDir: dir, logger: silentLogger() }));
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('config.yaml settings are checked at start', () => {
  it.each([
    ['retrieval:\n  default_limit: -5\n', 'retrieval.default_limit', /an integer from 1 to 200; got -5/],
    ['retrieval:\n  default_limit: "ten"\n', 'retrieval.default_limit', /an integer from 1 to 200; got "ten"/],
    ['retrieval:\n  default_limit: 100000\n', 'retrieval.default_limit', /an integer from 1 to 200/],
    ['retrieval:\n  default_limit: 2.5\n', 'retrieval.default_limit', /an integer from 1 to 200; got 2.5/],
    ['hooks:\n  auto_save_threshold: 5\n', 'hooks.auto_save_threshold', /a number from 0 to 1; got 5/],
    ['hooks:\n  auto_save_threshold: high\n', 'hooks.auto_save_threshold', /a number from 0 to 1; got "high"/],
    ['hooks:\n  l4_threshold: -0.1\n', 'hooks.l4_threshold', /a number from 0 to 1/],
    ['l1:\n  size: 0\n', 'l1.size', /an integer from 1 to 10000/],
    ['think:\n  max_text_chars: "a"\n', 'think.max_text_chars', /an integer from 100 to 10000000/],
    ['scratchpad:\n  max_entries: 3.5\n', 'scratchpad.max_entries', /an integer from 1 to 10000/],
    ['retrieval:\n  recall_events_keep: 0\n', 'retrieval.recall_events_keep', /an integer from 1 to 1000000; got 0/],
    ['l1:\n  size: .inf\n', 'l1.size', /an integer from 1 to 10000; got Infinity$/],
    ['hooks:\n  l4_threshold: .nan\n', 'hooks.l4_threshold', /a number from 0 to 1; got NaN$/],
    ['retrieval:\n  recall_events_keep: 2.5\n', 'retrieval.recall_events_keep', /an integer from 1 to 1000000; got 2.5/],
    ['retrieval:\n  recall_events_keep: "many"\n', 'retrieval.recall_events_keep', /an integer from 1 to 1000000; got "many"/],
    ['retrieval:\n  recall_events_keep: 2000000\n', 'retrieval.recall_events_keep', /an integer from 1 to 1000000/],
    ['retrieval:\n  index_max_scopes: 0\n', 'retrieval.index_max_scopes', /an integer from 1 to 10000000; got 0/],
    ['retrieval:\n  index_max_scopes: 1.5\n', 'retrieval.index_max_scopes', /an integer from 1 to 10000000; got 1.5/],
  ])('%j is refused naming %s and what it accepts', (text, field, accepted) => {
    const err = startError(text);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field });
    expect(err.message).toContain(field);
    expect(err.message).toMatch(accepted);
  });

  it('a __proto__ key is refused as not a setting, and its settings are not read', () => {
    const err = startError('retrieval:\n  __proto__:\n    recall_events_keep: 0\n');
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'retrieval.__proto__' });
    expect(err.message).toContain('retrieval.__proto__ is not a setting');
  });

  it('a config.yaml that cannot be read (a folder in its place) is refused as unreadable, naming the file, not as invalid YAML', () => {
    const dir = scratchpad.dir();
    fs.mkdirSync(path.join(dir, 'config.yaml'));
    let err: any;
    try {
      scratchpad.kernel(new Kernel({ dataDir: dir, logger: silentLogger() }));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'config.yaml' });
    expect(err.message).toContain('config.yaml cannot be read');
    expect(err.message).toContain(path.join(dir, 'config.yaml'));
    expect(err.message).not.toContain('not valid YAML');
  });

  it('a misspelled key inside a known section is refused with the key it likely meant', () => {
    const err = startError('hooks:\n  auto_save_treshold: 0.9\n');
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'hooks.auto_save_treshold' });
    expect(err.message).toContain('did you mean "auto_save_threshold"');
    expect(err.message).toContain('auto_save_threshold, l4_threshold');
  });

  it('a known section that is not a mapping is refused, not replaced by the defaults', () => {
    const err = startError('l1: 5\n');
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'l1' });
    expect(err.message).toMatch(/l1 must be a mapping with the keys size; got 5/);
  });

  it('plugins must be a list of non-empty strings', () => {
    expect(startError('plugins: ./x\n')).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'plugins', message: expect.stringMatching(/must be a list/) });
    expect(startError('plugins:\n  - ./a\n  - 5\n')).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'plugins[1]' });
  });

  it('valid settings, in range, are read as given', () => {
    expect(startError('retrieval:\n  default_limit: 200\nhooks:\n  auto_save_threshold: 0\nplugins: []\n')).toBeUndefined();
    expect(startError('retrieval:\n  recall_events_keep: 1\n')).toBeUndefined();
    expect(new Config({ retrieval: { recall_events_keep: 50 } }).integer('retrieval.recall_events_keep', 10_000, 1, 1_000_000)).toBe(50);
    expect(new Config({ retrieval: { default_limit: 3 } }).get('retrieval.default_limit')).toBe(3);
  });

  it('overrides from code are checked as the file is', () => {
    expect(() => new Config({ retrieval: { default_limit: 0 } })).toThrow(/retrieval\.default_limit must be an integer from 1 to 200; got 0/);
  });
});

describe('config sections are checked against the loaded plugins at ready', () => {
  const notes = definePlugin({ name: 'notes-plugin', version: '1.0.0', tier: 'notes', kernel: '^1.0.0', setup() {} });

  function kernelOn(yamlText: string): Kernel {
    const dir = scratchpad.dir();
    fs.writeFileSync(path.join(dir, 'config.yaml'), yamlText);
    return scratchpad.kernel(new Kernel({ dataDir: dir, logger: silentLogger() }));
  }

  it('a misspelled section is refused at ready, naming it and the section it likely meant', async () => {
    const k = kernelOn('retreival:\n  default_limit: 3\n');
    await k.register(notes);
    const err = await k.ready().catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'retreival' });
    expect(err.message).toContain('did you mean "retrieval"');
    expect(k.state).toBe('registering');
  });

  it("a loaded plugin's section, by tier or by package name, is accepted", async () => {
    const k = kernelOn('notes:\n  max: 3\n"notes-plugin":\n  other: 1\n');
    await k.register(notes);
    await k.ready();
    expect(k.config.get('notes.max')).toBe(3);
  });

  it('a top-level __proto__ section is refused at ready, not taken as the prototype of the settings', async () => {
    const k = kernelOn('__proto__:\n  notes:\n    max: 3\n');
    expect(k.config.get('notes.max')).toBeUndefined();
    await k.register(notes);
    await expect(k.ready()).rejects.toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: '__proto__', message: expect.stringContaining('is not a configuration section') });
  });

  it('a section of a plugin that is not loaded is refused', async () => {
    const k = kernelOn('bookmarks:\n  max: 3\n');
    await k.register(notes);
    await expect(k.ready()).rejects.toMatchObject({ code: 'KERNEL_ERR_CONFIG', field: 'bookmarks', message: expect.stringContaining('notes-plugin') });
  });
});
