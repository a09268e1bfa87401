import { afterEach, describe, expect, it } from 'vitest';
import { TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY } from '@memory-service/kernel';
import { DISCLOSURE_CONTENT_MAX, DISCLOSURE_KEYWORD_MAX, DISCLOSURE_KEYWORDS_MAX, DISCLOSURE_NAME_MAX, FACT_KEY_MAX, RECORD_NAME_MAX, REMEMBER_KEY_MAX } from '@memory-service/stores';
import { start, storesOf, toolError, type TestServer } from './helpers.js';

/** The published input schemas state the bounds the tools enforce, from the stores' own constants. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

async function properties(): Promise<Record<string, Record<string, any>>> {
  const { tools } = await s.client.listTools();
  return Object.fromEntries(tools.map((t) => [t.name, t.inputSchema.properties as Record<string, any>]));
}

describe('published bounds', () => {
  it('branch, stash and procedure names, disclosure rules, fact keys: the schema says the limit the store enforces', async () => {
    s = await start();
    const p = await properties();
    for (const tool of ['memory_branch', 'memory_stash', 'memory_procedure']) expect(p[tool]!.name.maxLength, tool).toBe(RECORD_NAME_MAX);
    expect(p.memory_disclose!.name.maxLength).toBe(DISCLOSURE_NAME_MAX);
    expect(p.memory_disclose!.trigger_keywords).toMatchObject({ minItems: 1, maxItems: DISCLOSURE_KEYWORDS_MAX, items: { maxLength: DISCLOSURE_KEYWORD_MAX } });
    expect(p.memory_disclose!.content.maxLength).toBe(DISCLOSURE_CONTENT_MAX);
    expect(p.memory_branch!.key.maxLength).toBe(FACT_KEY_MAX);
    expect(p.memory_scratchpad!.fact_key.maxLength).toBe(FACT_KEY_MAX);
    expect(p.memory_remember!.key.maxLength).toBe(REMEMBER_KEY_MAX);
  });

  it('a value bounded by think.max_text_chars says so, with its default, in its description', async () => {
    s = await start();
    const p = await properties();
    for (const [tool, field] of [['memory_remember', 'value'], ['memory_branch', 'value']] as const) {
      expect(p[tool]![field].description, `${tool}.${field}`).toContain(`at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT})`);
    }
  });

  it('a call one character over a bound is refused by the schema naming the field, a keyword by its place in the list, and nothing is written', async () => {
    s = await start();
    const over = (n: number) => 'a'.repeat(n + 1);
    const cases: [string, Record<string, unknown>, string][] = [
      ['memory_branch', { action: 'create', name: over(RECORD_NAME_MAX) }, 'name'],
      ['memory_stash', { action: 'push', name: over(RECORD_NAME_MAX) }, 'name'],
      ['memory_procedure', { action: 'save', name: over(RECORD_NAME_MAX), steps: ['x'] }, 'name'],
      ['memory_disclose', { action: 'add', name: over(DISCLOSURE_NAME_MAX), trigger_keywords: ['k'], content: 'c' }, 'name'],
      ['memory_disclose', { action: 'add', name: 'n', trigger_keywords: ['k', over(DISCLOSURE_KEYWORD_MAX)], content: 'c' }, 'trigger_keywords.1'],
      ['memory_disclose', { action: 'add', name: 'n', trigger_keywords: ['k', '   '], content: 'c' }, 'trigger_keywords.1'],
      ['memory_disclose', { action: 'add', name: 'n', trigger_keywords: Array.from({ length: DISCLOSURE_KEYWORDS_MAX + 1 }, (_, i) => `k${i}`), content: 'c' }, 'trigger_keywords'],
      ['memory_disclose', { action: 'add', name: 'n', trigger_keywords: ['k'], content: over(DISCLOSURE_CONTENT_MAX) }, 'content'],
    ];
    for (const [tool, args, field] of cases) {
      expect(await toolError(s.call(tool, args)), `${tool} ${field}`).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field });
    }
    const U = { layer: 'user' as const, user_id: 'default' };
    expect(storesOf(s).branches.list(U)).toEqual([]);
    expect(storesOf(s).disclosure.list(U)).toEqual([]);
  });
});
