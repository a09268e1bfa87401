import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { definePlugin, silentLogger } from '@memory-service/kernel';
import { loadPluginSet, PluginNotPreloaded } from '../src/plugins.js';
import { createService } from '../src/service.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fixture = (name: string) => path.join(FIXTURES, name);

describe('loadPluginSet', () => {
  it('answers the plugins in the order given, however their loads finish, each name once', async () => {
    const plugins = await loadPluginSet([fixture('slow-plugin'), fixture('echo-plugin'), fixture('slow-plugin')]);
    expect(plugins.map((p) => p.name)).toEqual(['slow-plugin', 'echo-plugin']);
  });

  it('refuses two different plugins of one name, naming both specs, instead of dropping the second', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugin-samename-'));
    try {
      // Another module whose plugin is also named echo-plugin (a fork, or an unrelated package).
      fs.writeFileSync(path.join(dir, 'index.mjs'), "export default { name: 'echo-plugin', version: '2.0.0', tier: 'echo2', kernel: '^1.0.0', setup() {} };\n");
      const other = path.join(dir, 'index.mjs');
      const err = await loadPluginSet([fixture('echo-plugin'), other]).catch((e) => e);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_DUPLICATE', plugin: 'echo-plugin' });
      expect(err.message).toBe(`Plugin echo-plugin from ${other} has the name of another plugin, from ${fixture('echo-plugin')}; plugin names must be unique`);
      // The same module under two specs is still one plugin.
      expect((await loadPluginSet([fixture('echo-plugin'), path.join(fixture('echo-plugin'), 'index.js')])).map((p) => p.name)).toEqual(['echo-plugin']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a plugin directory's package.json when it is not valid JSON", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugin-badpkg-'));
    try {
      fs.writeFileSync(path.join(dir, 'package.json'), '{not json');
      const err = await loadPluginSet([dir]).catch((e) => e);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_LOAD' });
      expect(err.message).toContain(`could not be loaded: ${path.join(dir, 'package.json')} is not valid JSON`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with the first spec in order that fails, not the first to fail in time', async () => {
    const err = await loadPluginSet([fixture('echo-plugin'), fixture('slow-failing-plugin'), '@nobody/not-a-plugin']).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_LOAD' });
    expect(err.message).toMatch(/slow-failing-plugin could not be loaded: slow-failing-plugin gave up/);
  });

  it('with modules, takes the plugins from them and imports nothing', async () => {
    const a = definePlugin({ name: 'a', version: '1.0.0', tier: 'a', kernel: '^1.0.0', setup() {} });
    const b = definePlugin({ name: 'b', version: '1.0.0', tier: 'b', kernel: '^1.0.0', setup() {} });
    // Specs that could not be imported at all: only the map answers for them.
    const modules = new Map<string, unknown>([
      ['@nobody/a', { default: a }],
      ['@nobody/b', { plugins: [b, a] }],
    ]);
    const plugins = await loadPluginSet(['@nobody/b', '@nobody/a'], process.cwd(), modules);
    expect(plugins.map((p) => p.name)).toEqual(['b', 'a']);
  });

  it('with modules, a spec outside them throws PluginNotPreloaded naming every such spec', async () => {
    const modules = new Map<string, unknown>([['@nobody/a', { default: definePlugin({ name: 'a', version: '1.0.0', tier: 'a', kernel: '^1.0.0', setup() {} }) }]]);
    const err = await loadPluginSet(['@nobody/a', fixture('echo-plugin'), '@nobody/c'], process.cwd(), modules).catch((e) => e);
    expect(err).toBeInstanceOf(PluginNotPreloaded);
    expect(err.name).toBe('PluginNotPreloaded');
    expect(err.specs).toEqual([fixture('echo-plugin'), '@nobody/c']);
  });

  it('with modules, one that exports no plugin is KERNEL_ERR_PLUGIN_LOAD as when imported', async () => {
    const err = await loadPluginSet(['@nobody/a'], process.cwd(), new Map([['@nobody/a', { default: 42 }]])).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_LOAD' });
    expect(err.message).toMatch(/@nobody\/a exports no plugin/);
  });
});

describe('createService', () => {
  it('refuses a plugin given in code and another of the same name from a spec, instead of dropping the second', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugin-samename-service-'));
    try {
      const mine = definePlugin({ name: 'echo-plugin', version: '1.0.0', tier: 'mine', kernel: '^1.0.0', setup() {} });
      const err = await createService({ dataDir, plugins: [mine, mine], pluginSpecs: [fixture('echo-plugin')], env: {}, logger: silentLogger() }).catch((e) => e);
      expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_DUPLICATE', plugin: 'echo-plugin' });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
