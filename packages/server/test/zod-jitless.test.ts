import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SETUP = pathToFileURL(path.join(HERE, '..', 'bin', 'zod-jitless.js')).href;

/** What zod's config says in a fresh process, for the kernel's zod and zod's own build, with or without the command's setting. */
function jitlessIn(setting: boolean): { kernel: unknown; own: unknown } {
  const script = `
    ${setting ? `const { interpretZod } = await import(${JSON.stringify(SETUP)}); interpretZod();` : ''}
    const kernel = await import('@memory-service/kernel/zod');
    const own = await import('zod');
    process.stdout.write(JSON.stringify({ kernel: kernel.config().jitless ?? null, own: own.z.config().jitless ?? null }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(HERE, '..'), encoding: 'utf8' }));
}

describe("the command's zod setting (bin/zod-jitless.js)", () => {
  it('turns zod\'s compiled parsers off for every copy of zod the process loads after it', () => {
    expect(jitlessIn(true)).toEqual({ kernel: true, own: true });
  });

  it('is not zod\'s default: without it, zod compiles its parsers', () => {
    expect(jitlessIn(false)).toEqual({ kernel: null, own: null });
  });
});
