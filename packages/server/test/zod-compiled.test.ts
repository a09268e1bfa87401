import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, runBin, tempDir, thinkDreamSession } from './helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the command's zod", () => {
  it('keeps zod\'s compiled parsers (jitless unset) through a start, a think and a dream', async () => {
    dir = tempDir();
    const out = path.join(dir, 'zod.json');
    const { input, lastId } = thinkDreamSession(1);
    const run = await runBin([], {
      MCP_MEMORY_DATA_DIR: path.join(dir, 'data'),
      NODE_OPTIONS: `--require ${path.join(FIXTURES, 'zod-config-probe.cjs')}`,
      ZOD_PROBE_OUT: out,
    }, input);
    expect(run.code, run.stderr).toBe(0);
    const answers = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean; structuredContent?: { summary?: string } } });
    const dream = answers.find((a) => a.id === lastId);
    expect(dream?.result?.isError).toBeFalsy();
    expect(dream?.result?.structuredContent?.summary).toContain('violin number 0');
    // zod was loaded (the probe saw its configuration) and nothing turned its compiled parsers off:
    // a dream answers about a tenth sooner with them, and start-up no longer parses any message with
    // zod (the stdio session answers the handshake itself), so interpreting them saves nothing.
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual({ loaded: true, jitless: null });
  });
});
