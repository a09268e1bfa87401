import { afterEach, describe, expect, it } from 'vitest';
import { start, toolError, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_steering', () => {
  it('answers at most 3 hints for a query, best first', async () => {
    s = await start();
    const r = await s.call('memory_steering', { query: 'remember this, then search and delete the old one, and update my project' });
    expect(r.hints).toHaveLength(3);
    expect(r.hints.map((h: any) => h.tool)).toEqual(['think', 'dream', 'forget']);
    expect(r.advisory).toBe(true);
    expect(r.routes).toBeUndefined();
    const one = await s.call('memory_steering', { query: 'Compress this Python traceback' });
    expect(one.hints).toEqual([expect.objectContaining({ route: 'compress', tool: 'memory_compress', score: 2, matched_keywords: ['compress', 'traceback'] })]);
    expect((await s.call('memory_steering', { query: 'hello there' })).hints).toEqual([]);
  });

  it('answers the whole table of 8 routes for an empty query', async () => {
    s = await start();
    for (const query of [undefined, '', '   ']) {
      const r = await s.call('memory_steering', query === undefined ? {} : { query });
      expect(r.hints).toEqual([]);
      expect(r.routes.map((x: any) => x.tool)).toEqual(['think', 'dream', 'forget', 'evolve', 'project', 'wiki_add', 'memory_context_inject', 'memory_compress']);
    }
  });

  it('refuses a query that is not a string, naming it', async () => {
    s = await start();
    expect((await toolError(s.call('memory_steering', { query: 42 }))).field).toBe('query');
    expect((await toolError(s.call('memory_steering', { query: 'x', layer: 'team' }))).field).toBe('layer');
  });
});

describe('memory_compress', () => {
  const python = 'import re\n\nclass Parser:\n    def parse(self, text: str) -> list:\n        out = []\n        for line in text.splitlines():\n            out.append(line)\n        return out\n';

  it('code mode keeps the Python signatures', async () => {
    s = await start();
    const r = await s.call('memory_compress', { text: python, mode: 'code' });
    expect(r).toEqual({ mode: 'code', requested_mode: 'code', fell_back: false, original_lines: 8, kept_lines: 2, text: 'class Parser:\n    def parse(self, text: str) -> list:\n        ...' });
  });

  it('falls back to log mode for non-Python input, with no error', async () => {
    s = await start();
    const js = Array.from({ length: 12 }, (_, i) => `console.log("step ${i}");`).join('\n') + '\nthrow new Error("boom");';
    const r = await s.call('memory_compress', { text: js, mode: 'code' });
    expect(r).toMatchObject({ mode: 'log', requested_mode: 'code', fell_back: true, original_lines: 13, kept_lines: 2 });
    expect(r.text).toBe('console.log("step 0");  [repeated 12 times]\nthrow new Error("boom");');
    expect(await s.call('memory_compress', { text: python })).toMatchObject({ mode: 'code', requested_mode: 'auto' });
  });

  it('log mode honours max_lines', async () => {
    s = await start();
    const text = Array.from({ length: 100 }, (_, i) => `row ${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`).join('\n');
    const r = await s.call('memory_compress', { text, mode: 'log', max_lines: 4 });
    expect(r).toMatchObject({ mode: 'log', original_lines: 100, kept_lines: 4 });
    expect(r.text.split('\n')).toEqual(['row AA', 'row BA', 'row CA', 'row DA', '[... 96 lines omitted ...]']);
  });

  it('refuses bad input naming the field and what it accepts', async () => {
    s = await start();
    const mode = await toolError(s.call('memory_compress', { text: 'x', mode: 'zip' }));
    expect(mode.field).toBe('mode');
    expect(mode.accepted).toEqual(['log', 'code', 'auto']);
    expect((await toolError(s.call('memory_compress', { text: 'x', max_lines: 0 }))).field).toBe('max_lines');
    expect((await toolError(s.call('memory_compress', { text: '' }))).field).toBe('text');
    expect((await toolError(s.call('memory_compress', {}))).field).toBe('text');
  });
});
