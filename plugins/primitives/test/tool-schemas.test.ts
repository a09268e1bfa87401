import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import { primitives, start, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

describe("the primitives' tool schemas file", () => {
  it('holds exactly the conversion of the tools in src, so a server lists the same schemas with or without it', async () => {
    const s = await start();
    servers.push(s);
    const tools = s.kernel.tools().filter((t) => t.plugin === primitives.name);
    expect(tools.map((t) => t.name)).toEqual(['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up']);
    expect(JSON.parse(fs.readFileSync(built, 'utf8'))).toEqual(toolSchemasOf(primitives.name, tools));
    expect(readToolSchemas(built, primitives.name)?.size).toBe(7);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
