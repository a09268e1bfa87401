import { describe, expect, it } from 'vitest';
import { MemoryError } from './errors.js';
import { checkWellFormed, isWellFormed } from './well-formed.js';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { defineTool } from './tools.js';
import { z } from './zod.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function fieldOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    expect((err as MemoryError).code).toBe('KERNEL_ERR_VALIDATION');
    return (err as MemoryError).field;
  }
  return undefined;
}

describe('well-formed tool arguments', () => {
  it('tells unpaired surrogates from pairs and plain text', () => {
    for (const ok of ['', 'plain', 'café ☕', '𝄞 music', '👩‍👩‍👧', '\u0000nul', '\uFFFD']) expect(isWellFormed(ok), ok).toBe(true);
    for (const bad of ['\uD800', 'a\uDC00', 'x\uD83D', '\uDE00y', '\uDC00\uD800']) expect(isWellFormed(bad), JSON.stringify(bad)).toBe(false);
  });

  it('names the first ill-formed string or key by its path, at any depth', () => {
    expect(fieldOf(() => checkWellFormed({ text: 'ok', user_id: 'u\uD800x' }))).toBe('user_id');
    expect(fieldOf(() => checkWellFormed({ payload: { summary: 'a', tags: ['b', '\uDC00'] } }))).toBe('payload.tags.1');
    expect(fieldOf(() => checkWellFormed({ payload: { ['k\uD800']: 1 } }))).toBe('payload (a key)');
    let deep: unknown = 'end\uD800';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect(fieldOf(() => checkWellFormed(deep))?.startsWith('d.d.d.')).toBe(true);
    expect(fieldOf(() => checkWellFormed({ text: 'fine 𝄞', n: 3, nested: [{ a: null }] }))).toBeUndefined();
  });

  it('refuses such input before the handler runs, with the field named and the position given', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kernel-wf-'));
    const seen: unknown[] = [];
    const k = new Kernel({ dataDir: dir, logger: silentLogger() });
    await k.register(
      definePlugin({
        name: 'wf',
        version: '1.0.0',
        tier: 'tst',
        kernel: '^1.0.0',
        setup(ctx) {
          ctx.tools.register(
            defineTool({
              name: 'echo',
              title: 'Echo',
              description: 'echo',
              input: z.object({ text: z.string(), meta: z.record(z.string(), z.unknown()).optional() }),
              annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
              handler: (args) => {
                seen.push(args);
                return args;
              },
            }),
          );
        },
      }),
    );
    await k.ready();
    try {
      expect(() => k.callToolNow('echo', { text: 'a\uD800b' })).toThrow(/field "text" must be well-formed Unicode text: it holds an unpaired UTF-16 surrogate \(U\+D800\) at index 1/);
      expect(() => k.callToolNow('echo', { text: 'ok', meta: { note: ['\uDFFF'] } })).toThrow(expect.objectContaining({ field: 'meta.note.0' }));
      expect(seen).toEqual([]);
      expect(k.callToolNow('echo', { text: 'pair 𝄞' })).toEqual({ text: 'pair 𝄞' });
    } finally {
      await k.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
