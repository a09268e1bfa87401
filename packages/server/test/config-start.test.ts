import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tempDir } from './helpers.js';

/** Start the real bin on a data dir holding this config.yaml. */
function startWith(yamlText: string) {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'config.yaml'), yamlText);
  return runBin([], { MCP_MEMORY_DATA_DIR: dir });
}

describe('config.yaml is checked when the server starts', () => {
  it('an out-of-range retrieval.default_limit stops the start with one line naming the key and what it accepts', async () => {
    const res = await startWith('retrieval:\n  default_limit: -5\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/cannot start: Invalid configuration: retrieval\.default_limit must be an integer from 1 to 200; got -5/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stdout).toBe('');
  });

  it('a wrongly typed hooks.auto_save_threshold stops the start instead of failing every new_message later', async () => {
    const res = await startWith('hooks:\n  auto_save_threshold: high\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/hooks\.auto_save_threshold must be a number from 0 to 1; got "high"/);
  });

  it('a misspelled section stops the start instead of being ignored', async () => {
    const res = await startWith('retreival:\n  default_limit: 3\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/retreival is not a configuration section \(did you mean "retrieval"\?\)/);
  });

  it('plugins given as one string instead of a list stops the start', async () => {
    const res = await startWith('plugins: ./my-plugin\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/plugins must be a list of plugin package names or paths; got "\.\/my-plugin"/);
  });
});

describe('a refused start', () => {
  it("ends its line with the error's catalogue code, as the README quotes it", async () => {
    const res = await startWith('retrieval:\n  default_limit: -5\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^memory-service: cannot start: Invalid configuration: retrieval\.default_limit must be an integer from 1 to 200; got -5 \(KERNEL_ERR_CONFIG\)\n$/);
  });
});
