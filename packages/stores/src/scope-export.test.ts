import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXPORT_INLINE_MAX_BYTES, EXPORTS_DIR } from './scope-data.js';
import { SCOPE_DOC_KINDS } from './scope-doc.js';
import { seedEveryKind, UNICODE } from './scope-export.fixture.js';
import { makeEnv, U, U2, type Env } from './test-helpers.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => {
  vi.restoreAllMocks();
  env.close();
});

const exported = (name: string) => fs.readFileSync(path.join(env.dir, EXPORTS_DIR, name), 'utf8');
const exportFiles = () => (fs.existsSync(path.join(env.dir, EXPORTS_DIR)) ? fs.readdirSync(path.join(env.dir, EXPORTS_DIR)) : []);

/** Facts enough for a document over the inline limit, each about 2 KB of non-Latin-1 text (two bytes a character in the heap). */
function seedLarge(n: number): void {
  env.stores.ctx.tx(() => {
    for (let i = 0; i < n; i++) env.stores.facts.upsert(U, { key: `k${i}`, value: `memory ${i} ${'lorem ipsum café ☕ '.repeat(100)}` });
  });
}

describe('memory_data export a record at a time', () => {
  it('writes byte for byte the one-string JSON of the document, every kind and unicode included, inline, to a file and past the limit', () => {
    seedEveryKind(env, U);
    const sd = env.stores.scopeData;
    const doc = sd.exportScope(U);
    for (const k of SCOPE_DOC_KINDS) expect(doc[k].length, k).toBeGreaterThan(0);
    const whole = JSON.stringify(doc);
    expect(whole).toContain(JSON.stringify(UNICODE).slice(1, -1));
    const toFile = sd.exportTo(U, null);
    expect(exported(toFile.file!)).toBe(whole);
    expect(toFile.bytes).toBe(Buffer.byteLength(whole, 'utf8'));
    expect(toFile.counts).toEqual(Object.fromEntries(SCOPE_DOC_KINDS.map((k) => [k, doc[k].length])));
    // Inline within the limit: the same document, as objects.
    const inline = sd.exportTo(U, EXPORT_INLINE_MAX_BYTES);
    expect(inline.file).toBeUndefined();
    expect(JSON.stringify(inline.doc)).toBe(whole);
    expect(inline.bytes).toBe(toFile.bytes);
    // Past a limit: what was produced goes to the file, and the rest follows it there.
    for (const limit of [0, 100, Math.floor(whole.length / 2), Buffer.byteLength(whole) - 1]) {
      const over = sd.exportTo(U, limit);
      expect(over.doc, String(limit)).toBeUndefined();
      expect(exported(over.file!)).toBe(whole);
    }
    expect(sd.exportTo(U, Buffer.byteLength(whole)).doc).toBeDefined();
    // A document in memory, and the replace's previous export, are written the same way.
    expect(exported(sd.writeFile(doc).file)).toBe(whole);
    const pending = sd.exportPending(U);
    expect(exported(pending.commit())).toBe(whole);
    // Each under a free name, no temp file left.
    expect(exportFiles().every((f) => /^user-default-\d{8}T\d{9}Z(-\d+)?\.json$/.test(f))).toBe(true);
    // An empty scope is the header and empty lists, as before.
    expect(exported(sd.exportTo(U2, null).file!)).toBe(JSON.stringify(sd.exportScope(U2)));
  });

  // Regression guard, fixed: the export built the whole document as one string before applying the
  // inline limit (and again to write the file); a small heap ran out of memory and the process aborted.
  it('never makes a string of the whole document: no string longer than a few records is made, inline or to a file', () => {
    seedLarge(700);
    const stringify = vi.spyOn(JSON, 'stringify');
    const write = vi.spyOn(fs, 'writeSync');
    const longest = () => Math.max(...stringify.mock.results.map((r) => (typeof r.value === 'string' ? r.value.length : 0)));
    const over = env.stores.scopeData.exportTo(U, EXPORT_INLINE_MAX_BYTES);
    expect(over.doc).toBeUndefined();
    expect(over.bytes).toBeGreaterThan(EXPORT_INLINE_MAX_BYTES);
    expect(longest()).toBeLessThan(5000);
    // Written in pieces of about 64 KiB, not in one write.
    const sizes = write.mock.calls.map((c) => Number(c[3] ?? 0));
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.max(...sizes)).toBeLessThan(80 * 1024);
    stringify.mockClear();
    const toFile = env.stores.scopeData.exportTo(U, null);
    expect(longest()).toBeLessThan(5000);
    stringify.mockRestore();
    expect(JSON.parse(exported(toFile.file!)).facts).toHaveLength(700);
    expect(exported(toFile.file!)).toBe(JSON.stringify(env.stores.scopeData.exportScope(U)));
  });

  it('a file that cannot be written fails naming it, and leaves no temp file nor a partial export', () => {
    seedLarge(100);
    const real = fs.writeSync;
    let n = 0;
    vi.spyOn(fs, 'writeSync').mockImplementation(((...a: Parameters<typeof fs.writeSync>) => {
      if (++n === 2) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return (real as (...x: unknown[]) => number)(...a);
    }) as typeof fs.writeSync);
    expect(() => env.stores.scopeData.exportTo(U, null)).toThrow(expect.objectContaining({ message: expect.stringMatching(new RegExp(`${EXPORTS_DIR}.user-default-.*\\.json`)) }));
    expect(exportFiles()).toEqual([]);
  });
});
