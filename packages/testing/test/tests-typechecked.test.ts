import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every package's build checks its sources only (its tsconfig.json leaves the tests out) and vitest
// strips types: a test reading what a module does not export ran with undefined. Each package with
// tests has a typecheck script over a tsconfig.test.json that includes them, and turbo runs it
// before lint and test.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, 'utf8'));

/** The workspace packages: each directory the root package.json's workspaces globs name. */
function workspaces(): string[] {
  const globs: string[] = readJson(path.join(ROOT, 'package.json')).workspaces;
  return globs.flatMap((glob) => {
    const parent = glob.replace(/\/\*$/, '');
    return fs
      .readdirSync(path.join(ROOT, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, parent, d.name, 'package.json')))
      .map((d) => `${parent}/${d.name}`);
  });
}

/** The top directories (src, test) of a package holding TypeScript test files or test helpers. */
function testDirs(pkg: string): string[] {
  return ['src', 'test'].filter((dir) => {
    const full = path.join(ROOT, pkg, dir);
    if (!fs.existsSync(full)) return false;
    const files = fs.readdirSync(full, { recursive: true, encoding: 'utf8' });
    return files.some((f) => /\.(test|fixture)\.ts$/.test(f)) || (dir === 'test' && files.some((f) => f.endsWith('.ts')));
  });
}

describe('the tests are type-checked', () => {
  const withTests = workspaces().filter((pkg) => testDirs(pkg).length > 0);

  it('finds the packages with tests', () => {
    expect(withTests).toEqual(expect.arrayContaining(['packages/kernel', 'packages/stores', 'packages/server', 'plugins/primitives']));
  });

  it.each(withTests)('%s has a typecheck script checking its tests with its sources, without output', (pkg) => {
    const dir = path.join(ROOT, pkg);
    expect(readJson(path.join(dir, 'package.json')).scripts?.typecheck).toBe('tsc -p tsconfig.test.json');
    const config = readJson(path.join(dir, 'tsconfig.test.json'));
    expect(config.extends).toEqual(['./tsconfig.json', '../../tsconfig.test-base.json']);
    expect(config.include).toEqual(expect.arrayContaining(testDirs(pkg)));
    expect(config.exclude).toEqual(['dist']);
  });

  it('the shared base emits nothing, and turbo runs typecheck before lint and test', () => {
    expect(readJson(path.join(ROOT, 'tsconfig.test-base.json')).compilerOptions).toMatchObject({ noEmit: true });
    const tasks = readJson(path.join(ROOT, 'turbo.json')).tasks;
    expect(tasks.typecheck.dependsOn).toContain('^build');
    for (const task of ['lint', 'test', '@memory-service/example-clients#test']) expect(tasks[task].dependsOn, task).toContain('typecheck');
  });
});
