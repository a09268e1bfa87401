/**
 * Every tool of the first-party set, over an MCP client, given arguments a model could get wrong:
 * each argument in turn replaced by a value of another JSON type, and by hostile strings, and the
 * call with no arguments at all. A refusal must be the kernel's coded JSON error, a validation
 * error must name the argument it refuses, nothing may fail as an internal error, and the server
 * must keep answering (think and dream still work after the sweep).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { silentLogger } from '@memory-service/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInProcess } from '../src/mcp-adapter.js';
import { createService, type Service } from '../src/service.js';
import { tempDir } from './helpers.js';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
}

/** The JSON types a property's schema takes. */
function typesOf(s: JsonSchema | undefined): Set<string> {
  const out = new Set<string>();
  const add = (t: JsonSchema | undefined) => {
    if (!t) return;
    for (const x of Array.isArray(t.type) ? t.type : t.type ? [t.type] : []) out.add(x === 'integer' ? 'number' : x);
    for (const a of t.anyOf ?? []) add(a);
  };
  add(s);
  return out;
}

/** Values of each JSON type, and strings a careless or hostile caller might send. */
const OF_TYPE: Record<string, unknown[]> = {
  string: ['not the right type'],
  number: [42.5, -1e308],
  boolean: [true],
  array: [[{ nested: [1] }]],
  object: [{ nested: { deeper: 1 } }],
};
const HOSTILE_STRINGS = ['../../outside-the-data-dir', 'lone \ud800 surrogate', '\u0000', 'x'.repeat(20_000)];

/** Replacements for one argument: a value of every type it does not take, and hostile strings where it takes text. */
function wrongValues(s: JsonSchema | undefined): unknown[] {
  const takes = typesOf(s);
  if (takes.size === 0) return [];
  const values: unknown[] = [];
  for (const [type, examples] of Object.entries(OF_TYPE)) if (!takes.has(type)) values.push(...examples);
  if (takes.has('string')) values.push(...HOSTILE_STRINGS);
  return values;
}

interface Refusal {
  type?: string;
  code?: string;
  message?: string;
  field?: string;
}

describe('every tool refuses bad arguments with a coded error naming the field', () => {
  let service: Service;
  let client: Client;
  let tools: { name: string; inputSchema: JsonSchema }[];

  beforeAll(async () => {
    service = await createService({ dataDir: tempDir(), env: { MEMORY_EXPOSE: 'all' }, logger: silentLogger() });
    const { clientTransport } = await connectInProcess(service.surface, service.kernel.logger);
    client = new Client({ name: 'bad-input-sweep', version: '1.0.0' });
    await client.connect(clientTransport);
    tools = (await client.listTools()).tools as typeof tools;
  });

  afterAll(async () => {
    await client?.close();
    await service?.close();
  });

  it('answers every call, and every refusal is a coded JSON error; validation errors name the argument', async () => {
    expect(tools.length).toBeGreaterThan(60);
    const problems: string[] = [];
    let refused = 0;
    const check = async (name: string, args: Record<string, unknown>, changed: string | null) => {
      const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content?: { text?: string }[] };
      if (!res.isError) return;
      refused++;
      const text = res.content?.[0]?.text ?? '';
      let error: Refusal | undefined;
      try {
        error = (JSON.parse(text) as { error?: Refusal }).error;
      } catch {
        problems.push(`${name} (${changed ?? 'no arguments'}): the error is not JSON: ${text.slice(0, 120)}`);
        return;
      }
      const shown = `${name} (${changed ?? 'no arguments'})`;
      if (!error?.type || !error.code || !error.message) problems.push(`${shown}: the error lacks type, code or message: ${text.slice(0, 160)}`);
      else if (error.code === 'KERNEL_ERR_TOOL_FAILED') problems.push(`${shown}: failed inside: ${error.message.slice(0, 200)}`);
      else if (changed && error.code === 'KERNEL_ERR_VALIDATION' && typeof error.field !== 'string') problems.push(`${shown}: a validation error names no field: ${error.message.slice(0, 160)}`);
    };
    for (const tool of tools) {
      await check(tool.name, {}, null);
      for (const [prop, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        for (const value of wrongValues(schema)) await check(tool.name, { [prop]: value }, prop);
      }
    }
    expect(problems).toEqual([]);
    // The sweep refused most of what it sent: it reached the tools' checks, not only their defaults.
    expect(refused).toBeGreaterThan(2000);
  }, 120_000);

  it('keeps answering after the sweep', async () => {
    const thought = (await client.callTool({ name: 'think', arguments: { text: 'The sweep left the lighthouse keeper writing in his logbook.' } })) as {
      isError?: boolean;
    };
    expect(thought.isError).toBeFalsy();
    const found = (await client.callTool({ name: 'dream', arguments: { query: 'lighthouse logbook' } })) as { structuredContent?: { summary?: string } };
    expect(found.structuredContent?.summary).toContain('lighthouse keeper');
  });
});
