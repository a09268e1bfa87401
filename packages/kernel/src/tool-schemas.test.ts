import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from './clock.js';
import { resolveExposure } from './exposure.js';
import { scratch } from './scratch.fixture.js';
import { Kernel } from './kernel.js';
import type { Logger } from './logger.js';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { buildSurface } from './surface.js';
import { readToolSchemas, TOOL_SCHEMAS_FORMAT, toolSchemasOf, writeToolSchemas } from './tool-schemas.js';
import { defineTool, inputJsonSchema, outputJsonSchema } from './tools.js';

const scratchpad = scratch('ms-tool-schemas-');
const tmp = () => scratchpad.dir();
afterEach(scratchpad.cleanup);

/** A logger that keeps its warnings. */
function recorder(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (m) => void warnings.push(m), error() {} };
}

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Answers its text.',
  input: z.object({ text: z.string().min(1).describe('What to echo'), times: z.number().int().default(1) }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handler: (a) => ({ text: a.text }),
});
const bare = defineTool({
  name: 'bare',
  title: 'Bare',
  description: 'No output schema.',
  input: z.object({ n: z.number() }),
  annotations: { readOnlyHint: true },
  handler: () => ({}),
});

const plugin = (over: Partial<PluginDefinition> = {}) =>
  definePlugin({
    name: 'p',
    version: '1.0.0',
    tier: 'tst',
    kernel: '^1.0.0',
    setup(ctx) {
      ctx.tools.register(echo);
      ctx.tools.register(bare);
    },
    ...over,
  });

async function surfaceOf(p: PluginDefinition, logger: Logger = recorder()) {
  const k = scratchpad.kernel(new Kernel({ dataDir: tmp(), logger, clock: new ManualClock() }));
  await k.register(p);
  await k.ready();
  return { kernel: k, surface: buildSurface(k, resolveExposure('all', k.tiers), false) };
}

/** A schemas file whose input schemas differ from the conversion, so a test can tell which was used. */
function marked(file: string, tools: Record<string, unknown>, pluginName = 'p', format: number = TOOL_SCHEMAS_FORMAT) {
  fs.writeFileSync(file, JSON.stringify({ format, plugin: pluginName, tools }));
}
const MARK_IN = { type: 'object', properties: { from_file: { type: 'string' } } };
const MARK_OUT = { type: 'object', properties: { out_from_file: { type: 'string' } } };

describe('tool JSON schemas written at build time', () => {
  it('toolSchemasOf converts as the first tools/list does (output left out where a tool has none)', async () => {
    const { kernel } = await surfaceOf(plugin());
    const file = toolSchemasOf('p', kernel.tools());
    expect(file.format).toBe(TOOL_SCHEMAS_FORMAT);
    expect(file.tools.echo).toEqual({ input: inputJsonSchema(echo), output: outputJsonSchema(echo) });
    expect(file.tools.echo!.input).toMatchObject({ properties: { text: { type: 'string', minLength: 1 } } });
    expect(file.tools.bare).toEqual({ input: inputJsonSchema(bare) });
    expect('output' in file.tools.bare!).toBe(false);
  });

  it('writeToolSchemas registers the plugin alone and writes what readToolSchemas reads back', async () => {
    const file = path.join(tmp(), 'tool-schemas.json');
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('memory-service-tool-schemas-')).length;
    expect(await writeToolSchemas(plugin(), file)).toBe(2);
    const read = readToolSchemas(file, 'p');
    expect(read?.get('echo')).toEqual({ input: inputJsonSchema(echo), output: outputJsonSchema(echo) });
    expect(read?.get('bare')).toEqual({ input: inputJsonSchema(bare) });
    // The throw-away kernel's data dir is gone.
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('memory-service-tool-schemas-')).length).toBe(before);
  });

  it('writeToolSchemas converts the tools as they are now, not the copy the plugin names from an earlier build', async () => {
    const file = path.join(tmp(), 'tool-schemas.json');
    marked(file, { echo: { input: MARK_IN, output: MARK_OUT }, bare: { input: MARK_IN } });
    expect(await writeToolSchemas(plugin({ toolSchemas: pathToFileURL(file) }), file)).toBe(2);
    const read = readToolSchemas(file, 'p');
    expect(read?.get('echo')).toEqual({ input: inputJsonSchema(echo), output: outputJsonSchema(echo) });
    expect(read?.get('bare')).toEqual({ input: inputJsonSchema(bare) });
  });

  it("the surface lists a plugin's schemas from its file, read on first use, and converts tools the file lacks", async () => {
    const dir = tmp();
    const file = path.join(dir, 'tool-schemas.json');
    const { surface } = await surfaceOf(plugin({ toolSchemas: pathToFileURL(file) }));
    // Written after ready: nothing read the file before the first listing.
    marked(file, { echo: { input: MARK_IN, output: MARK_OUT } });
    expect(surface.get('echo')!.inputSchema).toEqual(MARK_IN);
    expect(surface.get('echo')!.outputSchema).toEqual(MARK_OUT);
    expect(surface.get('bare')!.inputSchema).toEqual(inputJsonSchema(bare));
    expect(surface.get('bare')!.outputSchema).toBeUndefined();
  });

  it('a file entry without output means the tool lists none', async () => {
    const file = path.join(tmp(), 'tool-schemas.json');
    marked(file, { echo: { input: MARK_IN } });
    const { surface } = await surfaceOf(plugin({ toolSchemas: pathToFileURL(file) }));
    expect(surface.get('echo')!.inputSchema).toEqual(MARK_IN);
    expect(surface.get('echo')!.outputSchema).toBeUndefined();
  });

  it.each([
    ['missing', (file: string) => void file],
    ['not JSON', (file: string) => fs.writeFileSync(file, '{"format":')],
    ['of another format', (file: string) => marked(file, { echo: { input: MARK_IN } }, 'p', TOOL_SCHEMAS_FORMAT + 1)],
    ["another plugin's", (file: string) => marked(file, { echo: { input: MARK_IN } }, 'other')],
    ['of the wrong shape', (file: string) => marked(file, { echo: { input: 'not a schema' } })],
  ])('a file that is %s is ignored with one warning: every schema is converted', async (_what, write) => {
    const file = path.join(tmp(), 'tool-schemas.json');
    write(file);
    const logger = recorder();
    const { surface } = await surfaceOf(plugin({ toolSchemas: pathToFileURL(file) }), logger);
    expect(surface.get('echo')!.inputSchema).toEqual(inputJsonSchema(echo));
    expect(surface.get('echo')!.outputSchema).toEqual(outputJsonSchema(echo));
    expect(surface.get('bare')!.inputSchema).toEqual(inputJsonSchema(bare));
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('p: tool schemas file');
  });

  it('definePlugin accepts only a file: URL as toolSchemas', () => {
    expect(() => plugin({ toolSchemas: 'tool-schemas.json' as unknown as URL })).toThrow(/toolSchemas must be a file: URL/);
    expect(() => plugin({ toolSchemas: new URL('https://example.com/tool-schemas.json') })).toThrow(/toolSchemas must be a file: URL/);
    expect(plugin({ toolSchemas: pathToFileURL('/x/tool-schemas.json') }).toolSchemas).toBeInstanceOf(URL);
  });
});
