import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyHeap, compactPlan, HEAP_ENV, heapFromEnv, OLD_GENERATION_FLAG, YOUNG_GENERATION_CAP_MB } from './heap.js';

// The built module (the test task runs after the build), loaded in a child process so the flags
// it sets do not touch the test runner's own V8.
const BUILT = fileURLToPath(new URL('../dist/heap.js', import.meta.url));

/**
 * In a fresh node: apply the heap sizing the environment asks for, then keep a long chain of young
 * objects alive (each new one points to the previous, so every collection keeps them, which is
 * what makes V8 grow its young generation) and report the young generation's largest size, in MB.
 */
function largestYoungGenerationMb(env: Record<string, string>): number {
  const script = `
    import { applyHeap, heapFromEnv, youngGenerationBytes } from ${JSON.stringify(BUILT)};
    applyHeap(heapFromEnv(process.env));
    let largest = youngGenerationBytes();
    let kept = null;
    // Requests, as a server gets them: a little work each, then a turn of the event loop (where the
    // cap is checked after each collection).
    for (let request = 0; request < 300; request++) {
      for (let i = 0; i < 2000; i++) kept = { next: kept, payload: [i, i + 1, i + 2] };
      largest = Math.max(largest, youngGenerationBytes());
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.stdout.write(String(largest / 1048576));`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  expect(res.stderr).toBe('');
  return Number(res.stdout);
}

describe('V8 heap sizing', () => {
  it('is compact unless MEMORY_V8_HEAP says default, and refuses any other value', () => {
    expect(heapFromEnv({})).toBe('compact');
    expect(heapFromEnv({ [HEAP_ENV]: 'default' })).toBe('default');
    expect(() => heapFromEnv({ [HEAP_ENV]: 'small' })).toThrow('MEMORY_V8_HEAP must be compact or default, got "small"');
    expect(OLD_GENERATION_FLAG).toBe('--heap-growing-percent=50');
  });

  it('leaves what the process was started with to that setting, in either spelling', () => {
    expect(compactPlan([])).toEqual({ oldGeneration: true, youngCap: true });
    expect(compactPlan(['--heap-growing-percent=80'])).toEqual({ oldGeneration: false, youngCap: true });
    expect(compactPlan(['--max-old-space-size=512', '--semi_space_growth_factor=4'])).toEqual({ oldGeneration: true, youngCap: false });
    expect(compactPlan(['--max-semi-space-size=16'])).toEqual({ oldGeneration: true, youngCap: false });
    expect(compactPlan(['script.js', '--heap_growing_percent', '--semi-space-growth-factor'])).toEqual({ oldGeneration: false, youngCap: false });
    expect(applyHeap('default')).toEqual([]);
  });

  it(`keeps the young generation at ${YOUNG_GENERATION_CAP_MB} MB at most under objects that survive, where V8 alone grows it further`, () => {
    const compact = largestYoungGenerationMb({});
    const own = largestYoungGenerationMb({ [HEAP_ENV]: 'default' });
    expect(compact).toBeLessThanOrEqual(YOUNG_GENERATION_CAP_MB);
    expect(own).toBeGreaterThan(YOUNG_GENERATION_CAP_MB);
  });
});
