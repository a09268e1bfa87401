import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { slugify } from '@memory-service/kernel';
import { McpConnection } from './mcp-connection.js';
import { freshTempDir, REPO_ROOT, removeDir, SERVER_BIN } from './paths.js';
import { Prng } from './prng.js';
import { parseShapesArgs } from './shapes-args.js';
import { growth, renderShapes, type ShapeRow } from './shapes-report.js';
import { cyrillicNumber, LONG_TEXT_CHARS, longText, pickShapes, SHAPES } from './shapes.js';

describe('data shapes', () => {
  it('number titles with Cyrillic letters only, one title per number, all slugging alike', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const s = cyrillicNumber(i);
      expect(s).toMatch(/^[а-я]+$/);
      seen.add(s);
    }
    expect(seen.size).toBe(2000);
    expect(cyrillicNumber(0)).toBe('а');
    expect(cyrillicNumber(28)).toBe('аа');
    const r = new Prng(1);
    const slugs = new Set(Array.from({ length: 50 }, (_, i) => slugify(pickShapes(['alike-titles'])[0].item(r, i).wiki_title!)));
    expect([...slugs]).toEqual(['untitled']);
  });

  it('makes long thoughts long, and every shape reproducible from its seed', () => {
    expect(longText(new Prng(3)).length).toBeGreaterThan(LONG_TEXT_CHARS);
    for (const shape of SHAPES) {
      const a = new Prng(9);
      const b = new Prng(9);
      expect(Array.from({ length: 5 }, (_, i) => shape.item(a, i))).toEqual(Array.from({ length: 5 }, (_, i) => shape.item(b, i)));
    }
    expect(SHAPES.find((s) => s.name === 'long-pages')!.items(10_000)).toBe(1000);
    expect(SHAPES.find((s) => s.name === 'sentences')!.items(10_000)).toBe(10_000);
  });

  it('take options, and refuse bad ones naming the option and what it accepts', () => {
    expect(parseShapesArgs([])).toMatchObject({ sizes: [1000, 10_000], samples: 100, gapMs: 5, json: false });
    const opts = parseShapesArgs(['--sizes', '20,40', '--samples', '5', '--gap', '0', '--shapes', 'relations,long-pages', '--json']);
    expect(opts).toMatchObject({ sizes: [20, 40], samples: 5, gapMs: 0, json: true });
    expect(opts.shapes.map((s) => s.name)).toEqual(['relations', 'long-pages']);
    expect(() => parseShapesArgs(['--sizes', '100'])).toThrow(/--sizes needs two or more ascending sizes/);
    expect(() => parseShapesArgs(['--sizes', '100,50'])).toThrow(/ascending/);
    expect(() => parseShapesArgs(['--samples', '0'])).toThrow(/--samples needs a positive integer/);
    expect(() => parseShapesArgs(['--shapes', 'nope'])).toThrow(/unknown shape nope; known: sentences, shared-prefix-facts/);
    expect(() => parseShapesArgs(['--what', '1'])).toThrow(/unknown option --what/);
    expect(parseShapesArgs(['--checkout', '.'], REPO_ROOT).checkout).toBe(path.resolve(REPO_ROOT));
    expect(() => parseShapesArgs(['--checkout', os.tmpdir()])).toThrow(/^--checkout: .* has no packages\/server\/bin\/memory-service\.js: name a checkout of this repository$/);
  });

  it('report growth from the smallest size to the largest, and flag more than 2x', () => {
    const rows: ShapeRow[] = [
      { shape: 'flat', stores: 'x', points: [{ n: 10, items: 10, think_p50_ms: 0.4, dream_p50_ms: 0.5 }, { n: 100, items: 100, think_p50_ms: 0.5, dream_p50_ms: 0.5 }] },
      { shape: 'steep', stores: 'y', points: [{ n: 10, items: 1, think_p50_ms: 0.4, dream_p50_ms: 0.5 }, { n: 100, items: 10, think_p50_ms: 1.2, dream_p50_ms: 0.5 }] },
    ];
    expect(growth(rows[0].points, 'think_p50_ms')).toBeCloseTo(1.25, 9);
    const text = renderShapes(rows, 5, 5);
    expect(text).toContain('| flat | x | 0.400 | 0.500 | 0.500 | 0.500 | 1.25x | 1.00x |');
    expect(text).toContain('| steep | y | 0.400 | 0.500 | 1.200 | 0.500 | 3.00x (grows) | 1.00x |');
    expect(text).toContain('Grew more than 2x: steep.');
    expect(renderShapes([rows[0]], 5, 5)).toContain("No shape's p50 grew more than 2x");
  });
});

describe('data shapes through the server', () => {
  const dir = freshTempDir('shapes-test');
  afterAll(() => removeDir(dir));

  it('each takes the path it is named for', async () => {
    const conn = await McpConnection.open({ label: 'memory-service', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: dir }, timeoutMs: 30_000 });
    try {
      const stored = async (name: string, i: number) => {
        const r = new Prng(i);
        const result = await conn.call('think', { ...pickShapes([name])[0].item(r, i), layer: 'user' });
        return (result.structuredContent as { actions: { store: string; key?: string; path?: string }[] }).actions;
      };
      const facts = [await stored('shared-prefix-facts', 1), await stored('shared-prefix-facts', 2)].map((a) => a.find((x) => x.store === 'l4')?.key);
      expect(facts).toEqual(['note:always-remember-the-user-must-never', 'note:always-remember-the-user-must-never-2']);
      expect((await stored('relations', 1)).map((a) => a.store)).toContain('graph');
      expect((await stored('long-pages', 1)).map((a) => a.store)).toContain('wiki');
      const paths = [await stored('alike-titles', 1), await stored('alike-titles', 2)].map((a) => a.find((x) => x.store === 'wiki')?.path);
      expect(paths).toEqual(['wiki/user/default/diary/untitled.md', 'wiki/user/default/diary/untitled-2.md']);
      expect(fs.existsSync(dir)).toBe(true);
    } finally {
      await conn.close();
    }
  });
});
