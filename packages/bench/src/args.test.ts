import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultResultName, parseBenchArgs } from './bench-args.js';
import { parseEvalArgs } from './eval-args.js';
import { freshTempDir, removeDir } from './paths.js';

describe('bench arguments', () => {
  const now = new Date('2025-03-04T05:06:07.890Z');

  it('defaults to the full run', () => {
    expect(parseBenchArgs([], now)).toEqual({
      sizes: [1000, 10_000, 100_000],
      refMax: 10_000,
      samples: 200,
      seed: expect.any(Number),
      smoke: false,
      name: '2025-03-04T05-06-07-890Z',
      writeDocs: true,
    });
    expect(defaultResultName(now)).not.toMatch(/[:.]/);
  });

  it('reads flags, and --smoke means N=200, 50 samples, no docs', () => {
    const cli = parseBenchArgs(['--sizes', '10000,1000', '--ref-max', '1000', '--samples', '20', '--name', 'x'], now);
    expect(cli).toMatchObject({ sizes: [1000, 10_000], refMax: 1000, samples: 20, name: 'x', writeDocs: true });
    expect(parseBenchArgs(['--smoke'], now)).toMatchObject({ sizes: [200], samples: 50, smoke: true, writeDocs: false });
    expect(() => parseBenchArgs(['--sizes', 'abc'], now)).toThrow();
    expect(() => parseBenchArgs(['--name', 'a/b'], now)).toThrow();
    expect(() => parseBenchArgs(['--bogus'], now)).toThrow();
  });
});

describe('eval arguments', () => {
  it('reads flags and files, and needs files to exist somewhere', () => {
    const dir = freshTempDir('eval-args');
    try {
      const a = path.join(dir, 'a.json');
      fs.writeFileSync(a, '{}');
      const cli = parseEvalArgs(['--json', '--limit-questions', '20', a], '/nonexistent');
      expect(cli).toEqual({ json: true, baseline: false, limitQuestions: 20, files: [a] });
      expect(() => parseEvalArgs([], '/nonexistent')).toThrow(/no LoCoMo files/);
      expect(() => parseEvalArgs(['--limit-questions', '0', a], '/x')).toThrow();
      expect(() => parseEvalArgs([path.join(dir, 'missing.json')], '/x')).toThrow(/no such LoCoMo file or directory: .*missing\.json/);
      // A path relative to the directory npm was run from (INIT_CWD), when the working directory has none.
      expect(parseEvalArgs(['a.json'], '/x', dir).files).toEqual([a]);
      expect(() => parseEvalArgs(['a.json'], '/x', '')).toThrow(/no such LoCoMo file or directory: a\.json/);
    } finally {
      removeDir(dir);
    }
  });

  it('takes a directory as its .json files, sorted by name', () => {
    const dir = freshTempDir('eval-args');
    try {
      for (const f of ['conv-9.json', 'conv-10.json', 'notes.txt']) fs.writeFileSync(path.join(dir, f), '{}');
      fs.mkdirSync(path.join(dir, 'empty'));
      expect(parseEvalArgs([dir], '/x').files).toEqual([path.join(dir, 'conv-10.json'), path.join(dir, 'conv-9.json')]);
      expect(() => parseEvalArgs([path.join(dir, 'empty')], '/x')).toThrow(/no \.json files in the directory/);
    } finally {
      removeDir(dir);
    }
  });
});
