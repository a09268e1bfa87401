import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { invocationDir, parseAbArgs } from './ab-args.js';
import { pairedWins, renderAb } from './ab-report.js';
import { freshTempDir, removeDir, REPO_ROOT } from './paths.js';

describe('npm run ab options', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('takes A and compares it with this checkout by default', () => {
    const opts = parseAbArgs(['--a', REPO_ROOT, '--n', '500', '--samples', '20']);
    expect(opts).toEqual({ a: path.resolve(REPO_ROOT), b: path.resolve(REPO_ROOT), n: 500, samples: 20, seed: 20240601 });
  });

  it('reads a relative checkout from the directory npm was run in, not the workspace it runs the script in', () => {
    expect(invocationDir({ INIT_CWD: '/home/me/repo' }, '/home/me/repo/packages/bench')).toBe('/home/me/repo');
    expect(invocationDir({}, '/somewhere')).toBe('/somewhere');
    const parent = path.dirname(path.resolve(REPO_ROOT));
    const opts = parseAbArgs(['--a', path.basename(path.resolve(REPO_ROOT))], parent);
    expect(opts.a).toBe(path.resolve(REPO_ROOT));
  });

  it('refuses what cannot be run, naming the option', () => {
    expect(() => parseAbArgs([])).toThrow(/--a is required/);
    expect(() => parseAbArgs(['--a'])).toThrow(/--a needs a value/);
    expect(() => parseAbArgs(['--a', REPO_ROOT, '--n', '0'])).toThrow(/--n needs a positive integer, got 0/);
    expect(() => parseAbArgs(['--a', REPO_ROOT, '--samples', '2.5'])).toThrow(/--samples needs a positive integer/);
    expect(() => parseAbArgs(['--a', REPO_ROOT, '--what', '1'])).toThrow(/unknown option --what/);
    const empty = freshTempDir('ab-args');
    dirs.push(empty);
    expect(() => parseAbArgs(['--a', empty])).toThrow(/name a checkout of this repository/);
    // A checkout whose server was never built.
    const unbuilt = freshTempDir('ab-args');
    dirs.push(unbuilt);
    fs.mkdirSync(path.join(unbuilt, 'packages', 'server', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(unbuilt, 'packages', 'server', 'bin', 'memory-service.js'), '');
    expect(() => parseAbArgs(['--a', unbuilt])).toThrow(/is not built/);
  });
});

describe('npm run ab report', () => {
  it('counts the rounds B was faster, ties for neither, over the rounds both have', () => {
    expect(pairedWins([1, 2, 3, 4], [0.5, 2, 3.5])).toEqual({ bFaster: 1, rounds: 3 });
  });

  it('gives both p50s, B / A and the paired count per operation', () => {
    const out = renderAb({ a: '/base', b: '/work' }, 10_000, [
      { op: 'dream', a: [2, 2.2, 2.4], b: [1, 1.1, 2.5] },
      { op: 'think', a: [1, 1, 1], b: [1, 1, 1] },
    ]);
    expect(out).toContain('A: /base\nB: /work\nN = 10000');
    expect(out).toContain('| dream | 2.20 | 1.10 | 0.500 | 2 of 3 | - | - | - |');
    expect(out).toContain('| think | 1.00 | 1.00 | 1.000 | 0 of 3 | - | - | - |');
  });

  it('gives the reference p50 and its ratio to each build on a row timed after the reference', () => {
    const out = renderAb({ a: '/base', b: '/work' }, 10_000, [
      { op: 'think', a: [0.8, 1, 1.2], b: [0.4, 0.5, 0.6], reference: [20, 22, 24, 21, 23, 25] },
    ]);
    // reference p50 22.5 over A's 1 and B's 0.5.
    expect(out).toContain('| think | 1.00 | 0.500 | 0.500 | 3 of 3 | 22.5 | 23x | 45x |');
  });
});
