import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXPORT_INLINE_MAX_BYTES } from '@memory-service/stores';
import { start, storesOf, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
});

const UNICODE = 'Café ☕ 日本語 𝄞 👩‍👩‍👧 "quoted" back\\slash tab\tline\nsep\u2028 ctrl\u001f';
const U = { layer: 'user' as const, user_id: 'default' };
const exported = (name: string) => fs.readFileSync(path.join(s.dataDir, 'exports', name), 'utf8');

describe('memory_data export, written a record at a time (in-process MCP client)', () => {
  it('to_file gives byte for byte the JSON of the inline document: unicode, several kinds, a replace\'s previous export too', async () => {
    s = await start();
    await s.call('think', { text: `I moved to Lisbon last spring ${UNICODE}` });
    const st = storesOf(s);
    st.facts.upsert(U, { key: `city ${UNICODE.slice(0, 10)}`, value: `Lisbon ${UNICODE}`, metadata: { note: UNICODE } });
    st.wiki.save(U, { title: 'Lisbon notes', content: `Trams ${UNICODE}`, wiki_type: 'diary', tags: ['travel'] });
    st.scratchpad.write(U, 'todo', UNICODE);
    st.disclosure.add(U, { name: 'Allergy', trigger_keywords: ['dîner'], content: UNICODE });
    const inline = await s.call('memory_data', { action: 'export' });
    const toFile = await s.call('memory_data', { action: 'export', to_file: true });
    expect(inline.file).toBeUndefined();
    expect(toFile.data).toBeUndefined();
    const text = exported(toFile.file);
    expect(text).toBe(JSON.stringify(inline.data));
    expect(toFile.bytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(inline.bytes).toBe(toFile.bytes);
    expect(toFile.counts).toEqual(inline.counts);
    // A replace saves what the target held the same way, named once the import went through.
    const replaced = await s.call('memory_data', { action: 'import', data: inline.data, mode: 'replace' });
    expect(exported(replaced.previous_export)).toBe(text);
    expect(fs.readdirSync(path.join(s.dataDir, 'exports')).every((f) => f.endsWith('.json'))).toBe(true);
  });

  it('an inline export past the limit goes to a file without the whole document ever being one string', async () => {
    s = await start();
    const st = storesOf(s);
    st.ctx.tx(() => {
      for (let i = 0; i < 500; i++) st.facts.upsert(U, { key: `k${i}`, value: `memory ${i} ${'lorem ipsum café ☕ '.repeat(120)}` });
    });
    const stringify = vi.spyOn(JSON, 'stringify');
    const out = await s.call('memory_data', { action: 'export' });
    const longest = Math.max(...stringify.mock.results.map((r) => (typeof r.value === 'string' ? r.value.length : 0)));
    stringify.mockRestore();
    expect(out.data).toBeUndefined();
    expect(out.bytes).toBeGreaterThan(EXPORT_INLINE_MAX_BYTES);
    expect(fs.statSync(path.join(s.dataDir, 'exports', out.file)).size).toBe(out.bytes);
    expect(JSON.parse(exported(out.file)).facts).toHaveLength(500);
    // The answer's own JSON is small; no string near the document's size was made.
    expect(longest).toBeLessThan(100_000);
  });
});
