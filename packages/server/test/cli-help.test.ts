import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVICE_VERSION } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { runBin } from './helpers.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The variables of the README's configuration table. */
function documentedVariables(): string[] {
  const text = fs.readFileSync(README, 'utf8');
  const table = text.slice(text.indexOf('| Variable | Meaning | Default |'));
  return [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);
}

describe('memory-service --help and --version', () => {
  it('--help names every variable of the README configuration table, and both options, on stderr with exit 0', async () => {
    const vars = documentedVariables();
    expect(vars).toContain('MEMORY_LOG_QUIET');
    for (const flag of ['--help', '-h']) {
      const r = await runBin([flag], {});
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      for (const v of vars) expect(r.stderr).toContain(v);
      expect(r.stderr).toContain('--version');
    }
  });

  it('--version prints the version on stderr with exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runBin([flag], {});
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(r.stderr).toContain(SERVICE_VERSION);
    }
  });
});
