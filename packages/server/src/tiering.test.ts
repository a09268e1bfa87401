import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyTiering, EAGER_TIERING_FLAGS, knowsEagerFlags, TIERING_ENV, tieringFromEnv } from './tiering.js';

// The built module (the test task runs after the build), loaded in a child process so the flags
// it sets do not touch the test runner's own V8.
const BUILT = fileURLToPath(new URL('../dist/tiering.js', import.meta.url));

/**
 * In a fresh node: apply the tiering the environment asks for, run a small function 1,000 times
 * (in bursts, so a concurrent optimization job can finish) and report whether V8 optimized it.
 * V8's default thresholds optimize a function this small only after several thousand calls.
 */
function optimizedAfterThousandCalls(env: Record<string, string>): boolean {
  const script = `
    import v8 from 'node:v8';
    import { applyTiering, tieringFromEnv } from ${JSON.stringify(BUILT)};
    v8.setFlagsFromString('--allow-natives-syntax');
    applyTiering(tieringFromEnv(process.env));
    const status = new Function('f', 'return %GetOptimizationStatus(f)');
    const f = new Function('o', 'return o.a * 2 + o.b;');
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) f({ a: i, b: 1 });
      await new Promise((r) => setTimeout(r, 5));
    }
    process.stdout.write(String(status(f)));`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  // Bit 4 of the status: the function runs TurboFan code.
  return (Number(res.stdout) & 16) !== 0;
}

describe('V8 tiering', () => {
  it('is eager unless MEMORY_V8_TIERING says default', () => {
    expect(tieringFromEnv({})).toBe('eager');
    expect(tieringFromEnv({ [TIERING_ENV]: '' })).toBe('eager');
    expect(tieringFromEnv({ [TIERING_ENV]: 'eager' })).toBe('eager');
    expect(tieringFromEnv({ [TIERING_ENV]: 'default' })).toBe('default');
    expect(EAGER_TIERING_FLAGS).toEqual(['--interrupt-budget=8192', '--ticks-before-optimization=1']);
  });

  it('refuses any other value, naming the variable and what it takes', () => {
    expect(() => tieringFromEnv({ [TIERING_ENV]: 'fast' })).toThrow('MEMORY_V8_TIERING must be eager or default, got "fast"');
  });

  it('sets the flags only on a V8 that knows them (Node 20), never on V8 12 and later (Node 22, 24)', () => {
    expect(knowsEagerFlags('11.3.244.8-node.38')).toBe(true);
    expect(knowsEagerFlags('12.4.254.21-node.33')).toBe(false);
    expect(knowsEagerFlags('13.6.233.17-node.44')).toBe(false);
    expect(knowsEagerFlags('not a version')).toBe(false);
    // On those the call sets nothing, so this does not touch the test runner's V8.
    expect(applyTiering('eager', '13.6.233.17-node.44')).toEqual([]);
    expect(applyTiering('default', '11.3.244.8-node.38')).toEqual([]);
  });

  // The flags' effect, where V8 has them.
  it.runIf(knowsEagerFlags(process.versions.v8))('eager: V8 optimizes a small hot function within 1,000 calls; default: it does not', () => {
    expect(optimizedAfterThousandCalls({})).toBe(true);
    expect(optimizedAfterThousandCalls({ [TIERING_ENV]: 'default' })).toBe(false);
  });
});
