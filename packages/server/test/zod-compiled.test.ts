import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, runBin, tempDir } from './helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const lines = (...messages: object[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('');

describe("the command's zod", () => {
  it('keeps zod\'s compiled parsers (jitless unset) through a start, a think and a dream', async () => {
    dir = tempDir();
    const out = path.join(dir, 'zod.json');
    const input = lines(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'think', arguments: { text: 'The garden gate is painted green.' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'dream', arguments: { query: 'garden gate' } } },
    );
    const run = await runBin([], {
      MCP_MEMORY_DATA_DIR: path.join(dir, 'data'),
      NODE_OPTIONS: `--require ${path.join(FIXTURES, 'zod-config-probe.cjs')}`,
      ZOD_PROBE_OUT: out,
    }, input);
    expect(run.code, run.stderr).toBe(0);
    const answers = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean; structuredContent?: { summary?: string } } });
    const dream = answers.find((a) => a.id === 3);
    expect(dream?.result?.isError).toBeFalsy();
    expect(dream?.result?.structuredContent?.summary).toContain('garden gate');
    // zod was loaded (the probe saw its configuration) and nothing turned its compiled parsers off:
    // a dream parses about a tenth faster with them, and start-up no longer parses any message with
    // zod (the stdio session answers the handshake itself), so interpreting them saves nothing.
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({ loaded: true, jitless: null });
  });
});
