import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runBin, tempDir } from './helpers.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('a ready tap that never settles', () => {
  it('stops the start after the setup limit (30 s) with exit 1 naming the plugin and the hook, instead of exiting 0 in silence', async () => {
    const started = Date.now();
    const res = await runBin([], { MCP_MEMORY_DATA_DIR: tempDir(), MEMORY_PLUGINS: path.join(FIXTURES, 'ready-hang-plugin') }, `${JSON.stringify(INITIALIZE)}\n`);
    expect(res.stderr).toMatch(/cannot start: Plugin ready-hang-plugin failed on ready: its ready tap did not finish within 30 s/);
    expect(res.code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(29_000);
    expect(res.stdout).toBe('');
  }, 60_000);
});
