import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { surfaceProblems } from '@memory-service/testing';
import { admin, PRIMITIVES, start, type TestServer } from './helpers.js';

/** Every tool the admin plugin registers, in registration order. */
const OWN = ['memory_cleanup', 'memory_data', 'memory_lucidity_purge', 'memory_sync_replica', 'memory_api_key', 'memory_backup', 'memory_saga'];
/** The tier's tools that change nothing. */
const READ_ONLY = [];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function listed(expose: string) {
  const s = await start({ expose });
  servers.push(s);
  return (await s.client.listTools()).tools;
}

describe('exposure', () => {
  it('MEMORY_EXPOSE=admin lists the tier\'s tools next to the primitives', async () => {
    const tools = await listed('admin');
    const expected = [...PRIMITIVES, ...OWN].sort();
    expect(tools.map((t) => t.name).sort()).toEqual(expected);
  });

  it('the default surface hides them', async () => {
    expect((await listed('')).map((t) => t.name).sort()).toEqual([...PRIMITIVES].sort());
  });

  it('gives every tool a title, a description, both schemas with layer and user_id, and all four hints; only the reads are read-only', async () => {
    const tools = (await listed('admin')).filter((t) => OWN.includes(t.name));
    expect(tools).toHaveLength(OWN.length);
    expect(surfaceProblems(tools)).toEqual([]);
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly.sort()).toEqual([...READ_ONLY].sort());
  });
});

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

describe("the admin plugin's tool schemas file", () => {
  it('holds exactly the conversion of the tools in src', async () => {
    const s = await start();
    servers.push(s);
    const tools = s.kernel.tools().filter((t) => t.plugin === admin.name);
    expect(tools.map((t) => t.name)).toEqual(OWN);
    expect(JSON.parse(fs.readFileSync(built, 'utf8'))).toEqual(toolSchemasOf(admin.name, tools));
    expect(readToolSchemas(built, admin.name)?.size).toBe(OWN.length);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
