import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadPluginSet } from '../src/plugins.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fixture = (name: string) => path.join(FIXTURES, name);

describe('loadPluginSet', () => {
  it('answers the plugins in the order given, however their loads finish, each name once', async () => {
    const plugins = await loadPluginSet([fixture('slow-plugin'), fixture('echo-plugin'), fixture('slow-plugin')]);
    expect(plugins.map((p) => p.name)).toEqual(['slow-plugin', 'echo-plugin']);
  });

  it('fails with the first spec in order that fails, not the first to fail in time', async () => {
    const err = await loadPluginSet([fixture('echo-plugin'), fixture('slow-failing-plugin'), '@nobody/not-a-plugin']).catch((e) => e);
    expect(err).toMatchObject({ code: 'KERNEL_ERR_PLUGIN_LOAD' });
    expect(err.message).toMatch(/slow-failing-plugin could not be loaded: slow-failing-plugin gave up/);
  });
});
