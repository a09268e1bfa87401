import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as upstream from 'zod';
import * as upstreamMini from 'zod/v4-mini';
// The built bundles (the test task runs after the build).
import * as bundled from '../dist/zod.js';
import * as bundledMini from '../dist/zod-mini.js';
import { z } from './index.js';
// The built kernel, whose zod is the bundle: a plugin importing zod itself brings zod's own build.
import * as built from '../dist/index.js';
// The package's entry: tsc's modules bundled into one, with dist/zod.js kept a separate module.
// @ts-expect-error: the bundle is plain JavaScript (its declarations are dist/index.d.ts)
import * as entry from '../dist/bundle.js';

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
      expect(fs.readFileSync(distFile(file), 'utf8')).not.toMatch(/from\s*["']zod/);
    }
  });

  it("loads zod's translated messages only when z.locales is used, with zod's own messages", () => {
    // In a child process: z.config is global to the process.
    const script = `
      import { createRequire } from 'node:module';
      import { z } from ${JSON.stringify(distFile('zod.js').href)};
      import * as upstream from 'zod';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.endsWith('zod-locales.cjs'));
      const before = loaded();
      const names = Object.keys(z.locales).join();
      const same = names === Object.keys(upstream.z.locales).join();
      z.config(z.locales.de());
      const ours = z.string().min(3).safeParse('x').error.issues[0].message;
      upstream.z.config(upstream.z.locales.de());
      const theirs = upstream.z.string().min(3).safeParse('x').error.issues[0].message;
      console.log(JSON.stringify({ before, after: loaded(), same, ours, theirs }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(distFile('')), encoding: 'utf8' }));
    expect(out).toMatchObject({ before: false, after: true, same: true });
    expect(out.ours).toBe(out.theirs);
    expect(out.ours).not.toMatch(/too small/i);
    // The default (English) messages come from the chunk itself, which holds no translations.
    expect(z.string().min(3).safeParse('x').error!.issues[0].message).toMatch(/>=3 characters/);
    for (const f of fs.readdirSync(distFile('')).filter((f) => f.startsWith('chunk-'))) {
      expect(fs.readFileSync(distFile(f), 'utf8')).not.toMatch(/[^\t\n\r\x20-\x7e]/);
    }
  });

  it("is the zod of the package's bundled entry", () => {
    expect(entry.z).toBe(bundled.z);
    expect(Object.keys(entry).sort()).toEqual(Object.keys(built).sort());
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
