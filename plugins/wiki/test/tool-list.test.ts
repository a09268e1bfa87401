import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { PRIMITIVES, start, WIKI_TOOLS, wiki, type TestServer } from './helpers.js';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function names(expose: string): Promise<string[]> {
  const s = await start({ expose });
  servers.push(s);
  return (await s.client.listTools()).tools.map((t) => t.name).sort();
}

describe('exposure', () => {
  it('MEMORY_EXPOSE=wiki lists the nine wiki tools next to the primitives', async () => {
    expect(await names('wiki')).toEqual([...PRIMITIVES, ...WIKI_TOOLS].sort());
  });

  it('the default surface (unset, or primitives) hides them', async () => {
    expect(await names('')).toEqual([...PRIMITIVES].sort());
    expect(await names('primitives')).toEqual([...PRIMITIVES].sort());
  });

  it('gives every wiki tool a title, a description, both schemas and all four hints', async () => {
    const s = await start();
    servers.push(s);
    const tools = (await s.client.listTools()).tools.filter((t) => t.name.startsWith('wiki_'));
    expect(tools).toHaveLength(9);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toEqual(expect.arrayContaining(['layer', 'user_id']));
      expect(t.outputSchema?.type, t.name).toBe('object');
      for (const hint of HINTS) expect(typeof (t.annotations as Record<string, unknown>)?.[hint], `${t.name}.${hint}`).toBe('boolean');
    }
    const ro = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
    expect(ro).toEqual({ wiki_add: false, wiki_search: true, wiki_list: true, wiki_read: true, wiki_delete: false, wiki_summarize: true, wiki_link: false, wiki_query: true, wiki_reflect: true });
  });
});

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

describe("the wiki plugin's tool schemas file", () => {
  it('holds exactly the conversion of the tools in src', async () => {
    const s = await start();
    servers.push(s);
    const tools = s.kernel.tools().filter((t) => t.plugin === wiki.name);
    expect(tools.map((t) => t.name)).toEqual(WIKI_TOOLS);
    expect(JSON.parse(fs.readFileSync(built, 'utf8'))).toEqual(toolSchemasOf(wiki.name, tools));
    expect(readToolSchemas(built, wiki.name)?.size).toBe(9);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
