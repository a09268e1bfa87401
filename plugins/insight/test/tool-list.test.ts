import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { surfaceProblems } from '@memory-service/testing';
import { INSIGHT_TOOLS, INSIGHT_WRITERS, insight, PRIMITIVES, start, type TestServer } from './helpers.js';

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
  it(`MEMORY_EXPOSE=insight lists the ${INSIGHT_TOOLS.length} insight tools of the insight plugin next to the primitives`, async () => {
    expect(await names('insight')).toEqual([...PRIMITIVES, ...INSIGHT_TOOLS].sort());
  });

  it('the default surface (unset, or primitives) hides them', async () => {
    expect(await names('')).toEqual([...PRIMITIVES].sort());
    expect(await names('primitives')).toEqual([...PRIMITIVES].sort());
  });

  it('gives every insight tool a title, a description, both schemas with layer and user_id, and all four hints; the reads carry the read-only hints', async () => {
    const s = await start();
    servers.push(s);
    const tools = (await s.client.listTools()).tools.filter((t) => !PRIMITIVES.includes(t.name));
    expect(tools).toHaveLength(INSIGHT_TOOLS.length);
    expect(surfaceProblems(tools)).toEqual([]);
    for (const t of tools) if (!INSIGHT_WRITERS.includes(t.name)) expect(t.annotations, t.name).toMatchObject(HINTS);
    for (const t of tools) if (INSIGHT_WRITERS.includes(t.name)) expect(t.annotations?.readOnlyHint, t.name).toBe(false);
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
