import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { INSIGHT_TOOLS, insight, PRIMITIVES, start, type TestServer } from './helpers.js';

const HINTS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
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
  it(`MEMORY_EXPOSE=insight lists the ${INSIGHT_TOOLS.length} built insight tools next to the primitives`, async () => {
    expect(await names('insight')).toEqual([...PRIMITIVES, ...INSIGHT_TOOLS].sort());
  });

  it('the default surface (unset, or primitives) hides them', async () => {
    expect(await names('')).toEqual([...PRIMITIVES].sort());
    expect(await names('primitives')).toEqual([...PRIMITIVES].sort());
  });

  it('gives every insight tool a title, a description, both schemas, layer and user_id, and the read-only hints', async () => {
    const s = await start();
    servers.push(s);
    const tools = (await s.client.listTools()).tools.filter((t) => !PRIMITIVES.includes(t.name));
    expect(tools).toHaveLength(INSIGHT_TOOLS.length);
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toEqual(expect.arrayContaining(['layer', 'user_id']));
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.annotations, t.name).toMatchObject(HINTS);
    }
  });
});

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

describe("the insight plugin's tool schemas file", () => {
  it('holds exactly the conversion of the tools in src', async () => {
    const s = await start();
    servers.push(s);
    const tools = s.kernel.tools().filter((t) => t.plugin === insight.name);
    expect(tools.map((t) => t.name)).toEqual(INSIGHT_TOOLS);
    expect(JSON.parse(fs.readFileSync(built, 'utf8'))).toEqual(toolSchemasOf(insight.name, tools));
    expect(readToolSchemas(built, insight.name)?.size).toBe(INSIGHT_TOOLS.length);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
