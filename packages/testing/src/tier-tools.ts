import fs from 'node:fs';
import { readToolSchemas, toolSchemasOf } from '@memory-service/kernel';
import type { ListedTool, TestServer } from './index.js';

/** What a tier's tool-list test checks, gathered from two fresh servers: the test keeps the assertions. */
export interface TierToolFacts {
  /** Names tools/list shows with MEMORY_EXPOSE=<tier>, sorted. */
  exposed: string[];
  /** Names tools/list shows on the default surface (MEMORY_EXPOSE empty), sorted. */
  defaults: string[];
  /** The plugin's tools as tools/list shows them with MEMORY_EXPOSE=<tier>. */
  own: ListedTool[];
  /** The plugin's registered tool names, in registration order. */
  registered: string[];
  /** The plugin's built tool schemas file (its build writes dist/tool-schemas.json), parsed; null when absent or not JSON. */
  schemasFile: unknown;
  /** What that file must hold: the conversion of the plugin's registered tools (kernel toolSchemasOf). */
  converted: unknown;
  /** How many tools the kernel reads from that file for the plugin (readToolSchemas); undefined when it refuses it. */
  schemasRead: number | undefined;
}

/**
 * The facts of a tier's tool list: `start` is the plugin test's own server factory (its plugin
 * set), `plugin` the plugin's name, `tier` the MEMORY_EXPOSE value that shows its tools, and
 * `schemasFile` its built dist/tool-schemas.json. Every server it starts is closed before it answers.
 */
export async function tierToolFacts(
  start: (opts: { expose?: string }) => Promise<TestServer>,
  opts: { tier: string; plugin: string; schemasFile: URL },
): Promise<TierToolFacts> {
  const tierServer = await start({ expose: opts.tier });
  // An empty MEMORY_EXPOSE is the default surface (a plugin test's start may expose its tier when none is given).
  const defaultServer = await start({ expose: '' });
  try {
    const listed = (await tierServer.client.listTools()).tools as ListedTool[];
    const tools = tierServer.kernel.tools().filter((t) => t.plugin === opts.plugin);
    const registered = tools.map((t) => t.name);
    let schemasFile: unknown = null;
    try {
      schemasFile = JSON.parse(fs.readFileSync(opts.schemasFile, 'utf8'));
    } catch {
      schemasFile = null;
    }
    return {
      exposed: listed.map((t) => t.name).sort(),
      defaults: (await defaultServer.listTools()).sort(),
      own: listed.filter((t) => registered.includes(t.name)),
      registered,
      schemasFile,
      converted: toolSchemasOf(opts.plugin, tools),
      schemasRead: readToolSchemas(opts.schemasFile, opts.plugin)?.size,
    };
  } finally {
    await Promise.all([tierServer.close(), defaultServer.close()]);
  }
}
