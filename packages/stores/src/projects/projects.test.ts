import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, type Env } from '../test-helpers.js';
import { scanCodeSymbols } from './code-symbols.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

describe('ProjectStore', () => {
  it('init is idempotent; decisions, artifacts, symbols and archive', () => {
    const p = env.stores.projects.init('apollo', { path: '/src/apollo' });
    expect(p.existed).toBe(false);
    expect(env.stores.projects.init('apollo').existed).toBe(true);
    env.stores.projects.addDecision('apollo', { decision: 'use sqlite', rationale: 'simple', outcome: 'pending' });
    env.stores.projects.addArtifact('apollo', { path: 'src/a.ts', role: 'entry', status: 'draft' });
    env.stores.projects.addArtifact('apollo', { path: 'src/a.ts', role: 'entry', status: 'done' });
    expect(env.stores.projects.decisions('apollo').map((d) => d.decision)).toEqual(['use sqlite']);
    expect(env.stores.projects.artifacts('apollo').map((a) => a.status)).toEqual(['done']);
    expect(env.stores.projects.replaceSymbols('apollo', [{ file: 'a.ts', symbol: 'main', kind: 'function', line: 1 }])).toBe(1);
    expect(env.stores.projects.symbolCount('apollo')).toBe(1);
    expect(env.stores.projects.update('apollo', { description: 'moon' }).description).toBe('moon');
    expect(env.stores.projects.archive('apollo').status).toBe('archived');
    expect(() => env.stores.projects.addDecision('missing', { decision: 'x' })).toThrow(/not found/);
    expect(env.stores.audit.forTarget('apollo').length).toBeGreaterThan(3);
  });

  it('addArtifact of a path again keeps the role and status the input leaves out', () => {
    env.stores.projects.init('apollo');
    env.stores.projects.addArtifact('apollo', { path: 'src/a.ts', role: 'entry', status: 'draft' });
    expect(env.stores.projects.addArtifact('apollo', { path: 'src/a.ts', status: 'done' })).toMatchObject({ role: 'entry', status: 'done' });
    expect(env.stores.projects.addArtifact('apollo', { path: 'src/a.ts', role: 'main' })).toMatchObject({ role: 'main', status: 'done' });
    expect(env.stores.projects.addArtifact('apollo', { path: 'src/b.ts' })).toMatchObject({ role: '', status: '' });
  });

  it('decisions(limit) are the latest ones, oldest of them first; decisionCount counts them all', () => {
    env.stores.projects.init('apollo');
    for (const d of ['one', 'two', 'three', 'four']) env.stores.projects.addDecision('apollo', { decision: d });
    expect(env.stores.projects.decisions('apollo', 2).map((d) => d.decision)).toEqual(['three', 'four']);
    expect(env.stores.projects.decisions('apollo').map((d) => d.decision)).toEqual(['one', 'two', 'three', 'four']);
    expect(env.stores.projects.decisionCount('apollo')).toBe(4);
  });

  it('artifacts(limit) are the ones registered or updated last, in path order; artifactCount counts them all', () => {
    env.stores.projects.init('apollo');
    for (const p of ['d.ts', 'c.ts', 'b.ts', 'a.ts']) env.stores.projects.addArtifact('apollo', { path: p });
    expect(env.stores.projects.artifacts('apollo', 2).map((a) => a.path)).toEqual(['a.ts', 'b.ts']);
    expect(env.stores.projects.artifacts('apollo').map((a) => a.path)).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts']);
    expect(env.stores.projects.artifactCount('apollo')).toBe(4);
    // Updating an artifact (same path) makes it one of the latest again, and counts once.
    env.clock.advance(1000);
    env.stores.projects.addArtifact('apollo', { path: 'd.ts', status: 'done' });
    expect(env.stores.projects.artifacts('apollo', 2).map((a) => a.path)).toEqual(['a.ts', 'd.ts']);
    expect(env.stores.projects.artifactCount('apollo')).toBe(4);
    expect(env.stores.projects.artifactCount('missing')).toBe(0);
  });
});

describe('scanCodeSymbols', () => {
  it('finds top-level symbols, skips node_modules/.git/dist and respects bounds', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-'));
    try {
      fs.mkdirSync(path.join(root, 'src'));
      fs.mkdirSync(path.join(root, 'node_modules', 'x'), { recursive: true });
      fs.mkdirSync(path.join(root, 'dist'));
      fs.writeFileSync(
        path.join(root, 'src', 'a.ts'),
        'export function foo() {\n  const inner = 1;\n}\nexport class Bar {}\nexport interface Baz {}\nexport type Q = string;\nexport const K = 1;\n',
      );
      fs.writeFileSync(path.join(root, 'src', 'b.py'), 'def run():\n    def inner():\n        pass\nclass Thing:\n    pass\n');
      fs.writeFileSync(path.join(root, 'src', 'c.go'), 'package x\nfunc Serve() {}\ntype Cfg struct {}\n');
      fs.writeFileSync(path.join(root, 'src', 'd.rs'), 'pub fn go_fast() {}\nstruct S;\n');
      fs.writeFileSync(path.join(root, 'node_modules', 'x', 'i.js'), 'function hidden() {}\n');
      fs.writeFileSync(path.join(root, 'dist', 'o.js'), 'function built() {}\n');
      const res = scanCodeSymbols(root);
      const names = res.symbols.map((s) => `${s.file}:${s.kind}:${s.symbol}:${s.line}`);
      expect(names).toEqual([
        'src/a.ts:function:foo:1',
        'src/a.ts:class:Bar:4',
        'src/a.ts:interface:Baz:5',
        'src/a.ts:type:Q:6',
        'src/a.ts:const:K:7',
        'src/b.py:def:run:1',
        'src/b.py:class:Thing:4',
        'src/c.go:func:Serve:2',
        'src/c.go:struct:Cfg:3',
        'src/d.rs:fn:go_fast:1',
        'src/d.rs:struct:S:2',
      ]);
      expect(res.truncated).toBe(false);
      const bounded = scanCodeSymbols(root, { maxFiles: 2 });
      expect(bounded.files).toBe(2);
      expect(bounded.truncated).toBe(true);
      expect(scanCodeSymbols(root, { maxBytes: 10 }).files).toBe(0);
      // Two folders are read (root and src; node_modules and dist are skipped): one is not enough.
      const shallow = scanCodeSymbols(root, { maxDirs: 1 });
      expect(shallow).toMatchObject({ truncated: true, files: 0, symbols: [] });
      expect(scanCodeSymbols(root, { maxDirs: 2 })).toMatchObject({ truncated: false, files: 4 });
      expect(scanCodeSymbols(path.join(root, 'missing')).symbols).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
