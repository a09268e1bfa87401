import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as upstream from 'zod';
import * as upstreamMini from 'zod/v4-mini';
// The built bundles (the test task runs after the build).
import * as bundled from '../dist/zod.js';
import * as bundledMini from '../dist/zod-mini.js';
import { z } from './index.js';

const distFile = (name: string) => new URL(`../dist/${name}`, import.meta.url);

describe("the kernel's zod bundle", () => {
  it('exports everything zod and zod/v4-mini export, locales included', () => {
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(upstream).sort());
    expect(Object.keys(bundledMini).sort()).toEqual(Object.keys(upstreamMini).sort());
    expect(typeof bundled.z.locales.de).toBe('function');
  });

  it('holds one zod core for both APIs, and loads nothing of zod from node_modules', () => {
    expect(bundledMini.core.$constructor).toBe(bundled.core.$constructor);
    for (const file of ['zod.js', 'zod-mini.js', ...fs.readdirSync(distFile('')).filter((f) => f.startsWith('chunk-'))]) {
      expect(fs.readFileSync(distFile(file), 'utf8')).not.toMatch(/from ["']zod/);
    }
  });

  it('validates and converts like zod, across the two APIs', () => {
    const schema = bundledMini.object({ name: bundled.z.string().min(2), layer: bundled.z.enum(['user', 'agent']) });
    expect(bundledMini.safeParse(schema, { name: 'x', layer: 'user' }).success).toBe(false);
    expect(bundled.z.toJSONSchema(bundled.z.object({ n: bundled.z.number().int() }))).toMatchObject({ properties: { n: { type: 'integer' } } });
    // The kernel's own z (from src here) is zod's classic API.
    expect(z.string().safeParse(3).success).toBe(false);
  });
});
