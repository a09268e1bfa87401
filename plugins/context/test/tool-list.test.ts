import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { CONTEXT_TOOLS, context, PRIMITIVES, start, type TestServer } from './helpers.js';

/** Every tool the context plugin registers, in registration order: recall protocol and recap, then the helpers' list. */
const TIER = ['memory_recall_protocol', 'memory_recap', ...CONTEXT_TOOLS];
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
  it('MEMORY_EXPOSE=context lists the seven context tools next to the primitives, recap and recall_protocol among them', async () => {
    const listed = await names('context');
    expect(listed).toEqual([...PRIMITIVES, ...TIER].sort());
    expect(listed).toContain('memory_recap');
    expect(listed).toContain('memory_recall_protocol');
  });

  it('the default surface hides them', async () => {
    expect(await names('')).toEqual([...PRIMITIVES].sort());
  });

  it('gives every context tool a title, a description, both schemas and all four hints', async () => {
    const s = await start();
    servers.push(s);
    const tools = (await s.client.listTools()).tools.filter((t) => TIER.includes(t.name));
    expect(tools).toHaveLength(TIER.length);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toEqual(expect.arrayContaining(['layer', 'user_id']));
      expect(t.outputSchema?.type, t.name).toBe('object');
      for (const hint of HINTS) expect(typeof (t.annotations as Record<string, unknown>)?.[hint], `${t.name}.${hint}`).toBe('boolean');
    }
    const ro = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
    expect(ro).toEqual(Object.fromEntries(TIER.map((n) => [n, n !== 'memory_context_inject'])));
  });
});

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

describe("the context plugin's tool schemas file", () => {
  it('holds exactly the conversion of the tools in src', async () => {
    const s = await start();
    servers.push(s);
    const tools = s.kernel.tools().filter((t) => t.plugin === context.name);
    expect(tools.map((t) => t.name)).toEqual(TIER);
    expect(JSON.parse(fs.readFileSync(built, 'utf8'))).toEqual(toolSchemasOf(context.name, tools));
    expect(readToolSchemas(built, context.name)?.size).toBe(TIER.length);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
