/**
 * Tool JSON Schemas computed when a plugin is built, so that a server start does not convert them.
 *
 * A client's first tools/list needs every listed tool's input and output schema as JSON Schema.
 * Converting zod schemas runs zod's JSON Schema code once per process, cold: about 15-20 ms of
 * every start of the stdio server, which lists its tools right after initialize. A plugin can
 * ship the converted schemas instead: its build runs `writeToolSchemas` (through
 * scripts/tool-schemas.mjs), which registers the built plugin in a throw-away kernel and writes
 * each of its tools' schemas, converted exactly as the first tools/list would, to a JSON file; the
 * plugin names that file in `toolSchemas`. The kernel reads it on the first tools/list.
 *
 * The file is only ever a cache of the conversion: a tool missing from it, and a file that is
 * missing, unreadable or of another format, fall back to converting (nothing fails). It is written
 * from the same build as the code beside it, so it cannot describe other schemas than the built
 * ones; a plugin whose schemas depend on configuration must not ship one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kernel } from './kernel.js';
import { silentLogger } from './logger.js';
import type { PluginDefinition } from './plugin.js';
import { inputJsonSchema, outputJsonSchema, type RegisteredTool } from './tools.js';
import { isPlainObject } from './util.js';

/** Version of the file's layout; a file of another version is ignored. */
export const TOOL_SCHEMAS_FORMAT = 1;

/** One tool's schemas as a client sees them; `output` absent when the tool lists none. */
export interface ToolJsonSchemas {
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
}

export interface ToolSchemasFile {
  format: typeof TOOL_SCHEMAS_FORMAT;
  plugin: string;
  tools: Record<string, ToolJsonSchemas>;
}

/** The JSON Schemas of the given tools, converted from their zod schemas. */
export function toolSchemasOf(plugin: string, tools: readonly RegisteredTool[]): ToolSchemasFile {
  const out: Record<string, ToolJsonSchemas> = {};
  for (const t of tools) {
    const output = outputJsonSchema(t);
    out[t.name] = output ? { input: inputJsonSchema(t), output } : { input: inputJsonSchema(t) };
  }
  return { format: TOOL_SCHEMAS_FORMAT, plugin, tools: out };
}

/**
 * The tools' schemas from a file written by writeToolSchemas for `plugin`, or undefined when the
 * file is missing, not JSON, of another format or plugin, or not of the expected shape.
 */
export function readToolSchemas(file: URL | string, plugin: string): Map<string, ToolJsonSchemas> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(data) || data.format !== TOOL_SCHEMAS_FORMAT || data.plugin !== plugin || !isPlainObject(data.tools)) return undefined;
  const out = new Map<string, ToolJsonSchemas>();
  for (const [name, entry] of Object.entries(data.tools)) {
    if (!isPlainObject(entry) || !isPlainObject(entry.input) || (entry.output !== undefined && !isPlainObject(entry.output))) return undefined;
    out.set(name, entry.output === undefined ? { input: entry.input } : { input: entry.input, output: entry.output });
  }
  return out;
}

/**
 * Register `plugin` alone in a kernel on a temporary data dir, convert the schemas of the tools it
 * registers and write them to `file` (for a plugin's build; see scripts/tool-schemas.mjs). Answers
 * the number of tools written.
 */
export async function writeToolSchemas(plugin: PluginDefinition, file: string): Promise<number> {
  // The plugin names this very file: a kernel would read its tools' schemas from the copy already
  // there (that of the previous build) instead of converting the tools as they are now.
  fs.rmSync(file, { force: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-service-tool-schemas-'));
  const kernel = new Kernel({ dataDir, logger: silentLogger() });
  try {
    await kernel.register(plugin);
    await kernel.ready();
    const schemas = toolSchemasOf(
      plugin.name,
      kernel.tools().filter((t) => t.plugin === plugin.name),
    );
    fs.writeFileSync(file, `${JSON.stringify(schemas, null, 2)}\n`);
    return Object.keys(schemas.tools).length;
  } finally {
    await kernel.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
