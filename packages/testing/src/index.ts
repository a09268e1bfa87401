import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ManualClock, silentLogger, type Clock, type ConfigData, type Kernel, type PluginDefinition } from '@memory-service/kernel';
import { connectInProcess, createService, type Service } from '@memory-service/server';

export { ManualClock };

export interface TestServerOptions {
  /** The plugin set; nothing else is loaded (MEMORY_PLUGINS is ignored). */
  plugins: PluginDefinition[];
  /** MEMORY_EXPOSE for this server (default: every tool, `all`). */
  expose?: string;
  /** MEMORY_META=1. */
  meta?: boolean;
  /** Reuse a data dir (e.g. to restart on the same data); a fresh temp dir otherwise. */
  dataDir?: string;
  clock?: Clock;
  config?: ConfigData;
}

export interface ToolCallOutcome {
  isError: boolean;
  structured: any;
  text: string;
}

export interface TestServer {
  kernel: Kernel;
  service: Service;
  client: Client;
  dataDir: string;
  /** Call a tool; resolves its structuredContent, rejects with the tool error's JSON on isError. */
  call(name: string, args?: Record<string, unknown>): Promise<any>;
  /** Call a tool and get the raw outcome, errors included. */
  callRaw(name: string, args?: Record<string, unknown>): Promise<ToolCallOutcome>;
  listTools(): Promise<string[]>;
  /** Close client and kernel; removes the temp data dir unless it was given. */
  close(): Promise<void>;
}

export class ToolCallError extends Error {
  constructor(
    readonly tool: string,
    readonly error: { type?: string; code?: string; message?: string; field?: string; accepted?: unknown },
  ) {
    super(`${tool}: ${error.type ?? 'Error'}: ${error.message ?? JSON.stringify(error)}`);
  }
}

/**
 * The error of a tool call that must fail (what `call` rejects with on isError): its JSON, to check
 * the field and accepted values it names. A call that succeeds, or fails otherwise, fails the test.
 */
export async function toolError(call: Promise<unknown>): Promise<ToolCallError['error']> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (err) {
    if (err instanceof ToolCallError) return err.error;
    throw err;
  }
  throw new Error(`the call should have failed as a tool error, but it answered ${JSON.stringify(outcome)?.slice(0, 300)}`);
}

export function tempDataDir(prefix = 'memory-service-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Start a kernel with the chosen plugins on a temp data dir and talk to it over an in-process MCP client. */
export async function createTestServer(opts: TestServerOptions): Promise<TestServer> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? tempDataDir();
  const service = await createService({
    dataDir,
    plugins: opts.plugins,
    env: { MEMORY_EXPOSE: opts.expose ?? 'all', MEMORY_META: opts.meta ? '1' : '' },
    clock: opts.clock ?? new ManualClock(),
    config: opts.config,
    logger: silentLogger(),
  });
  const { clientTransport, server } = await connectInProcess(service.surface, service.kernel.logger);
  const client = new Client({ name: 'memory-service-testing', version: '0.1.0' });
  await client.connect(clientTransport);

  const callRaw = async (name: string, args: Record<string, unknown> = {}): Promise<ToolCallOutcome> => {
    const res = (await client.callTool({ name, arguments: args })) as any;
    const text = (res.content ?? []).map((c: any) => c.text ?? '').join('');
    return { isError: !!res.isError, structured: res.structuredContent ?? (text ? safeJson(text) : undefined), text };
  };
  return {
    kernel: service.kernel,
    service,
    client,
    dataDir,
    callRaw,
    async call(name, args = {}) {
      const out = await callRaw(name, args);
      if (out.isError) throw new ToolCallError(name, (safeJson(out.text) as any)?.error ?? { message: out.text });
      return out.structured;
    },
    async listTools() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async close() {
      await client.close();
      await server.close();
      await service.close();
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A tool as tools/list shows it, the fields surfaceProblems reads. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type?: string; properties?: Record<string, unknown> };
  outputSchema?: { type?: string };
  annotations?: Record<string, unknown>;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * What a listed tool lacks of the surface every memory tool carries: a title, a description written
 * for a model, an object input schema taking `layer` and `user_id`, an object output schema, and
 * all four annotation hints as booleans. An empty list means none lacks anything.
 */
export function surfaceProblems(tools: readonly ListedTool[]): string[] {
  const out: string[] = [];
  for (const t of tools) {
    if (!t.title) out.push(`${t.name}: no title`);
    if ((t.description ?? '').length <= 40) out.push(`${t.name}: description of 40 characters or fewer`);
    if (t.inputSchema.type !== 'object') out.push(`${t.name}: input schema is not an object`);
    for (const f of ['layer', 'user_id']) if (!(f in (t.inputSchema.properties ?? {}))) out.push(`${t.name}: takes no ${f}`);
    if (t.outputSchema?.type !== 'object') out.push(`${t.name}: no object output schema`);
    for (const h of HINTS) if (typeof t.annotations?.[h] !== 'boolean') out.push(`${t.name}: ${h} is not a boolean`);
  }
  return out;
}

export { tierToolFacts, type TierToolFacts } from './tier-tools.js';
export { actionFieldProblems, type ActionFieldCase } from './action-fields.js';
