import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as upstream from 'zod';
import * as upstreamMini from 'zod/v4-mini';
// The built bundles (the test task runs after the build).
import * as bundled from '../dist/zod.js';
import * as bundledMini from '../dist/zod-mini.js';
import { z } from './index.js';
// The built kernel, whose zod is the bundle: a plugin importing zod itself brings zod's own build.
import * as built from '../dist/index.js';

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

  it('takes a tool whose schema comes from zod\'s own build, as a plugin importing zod itself gives', async () => {
    expect(built.z).not.toBe(upstream.z);
    const plugin = built.definePlugin({
      name: 'third-party',
      version: '1.0.0',
      tier: 'primitives',
      kernel: '^1.0.0',
      setup(ctx) {
        ctx.tools.register(
          built.defineTool({
            name: 'tp_echo',
            title: 'Echo',
            description: 'echo',
            input: upstream.z.object({ text: upstream.z.string().min(2).describe('Some text'), n: upstream.z.number().int().default(3) }),
            annotations: { readOnlyHint: true },
            handler: (a) => a,
          }),
        );
      },
    });
    const k = await built.createKernel({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'zod-foreign-')), logger: built.silentLogger(), plugins: [plugin] });
    try {
      expect(built.inputJsonSchema(k.getTool('tp_echo')!)).toMatchObject({
        properties: { text: { type: 'string', minLength: 2, description: 'Some text' }, n: { type: 'integer', default: 3 } },
        required: ['text'],
      });
      await expect(k.callTool('tp_echo', { text: 'hi' })).resolves.toEqual({ text: 'hi', n: 3 });
      await expect(k.callTool('tp_echo', { text: 5 })).rejects.toMatchObject({ field: 'text', message: expect.stringContaining('must be string') });
      await expect(k.callTool('tp_echo', { text: 'x' })).rejects.toMatchObject({ field: 'text', accepted: { min: 2 } });
    } finally {
      await k.close();
    }
  });
});
