import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ManualClock, type Clock, type ConfigData, type Kernel, type Logger, type PluginDefinition } from '@memory-service/kernel';
import { connectInProcess, createService, type Service } from '@memory-service/server';

export { ManualClock };

export interface TestServerOptions {
  /**
   * The plugin set; nothing else is loaded (MEMORY_PLUGINS is ignored), not even the primitives:
   * to call think, dream, ... or test a tap on the hooks they fire, pass
   * `@memory-service/plugin-primitives` (its default export) too.
   */
  plugins: PluginDefinition[];
  /**
   * MEMORY_EXPOSE for this server (default: every tool, `all`). A token naming no tier of the
   * plugins given (`primitives` without the primitives plugin) is ignored with a warning (see `logs`).
   */
  expose?: string;
  /** MEMORY_META=1. */
  meta?: boolean;
  /** Reuse a data dir (e.g. to restart on the same data); a fresh temp dir otherwise. */
  dataDir?: string;
  clock?: Clock;
  config?: ConfigData;
  /**
   * Where the server's log lines go besides `logs` (default: nowhere): `stderrLogger()` from the
   * kernel to see them, or your own to assert on them. Plugins' ctx.logger lines reach it too.
   */
  logger?: Logger;
}

/** A line the test server logged: an unknown MEMORY_EXPOSE token, a tap that failed, a plugin's ctx.logger line. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
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
  /** Every line logged since the server was created, oldest first (also passed to `logger` when given). */
  logs: LogLine[];
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
  const logs: LogLine[] = [];
  const line = (level: LogLine['level']) => (message: string) => {
    logs.push({ level, message });
    opts.logger?.[level](message);
  };
  const logger: Logger = { info: line('info'), warn: line('warn'), error: line('error') };
  const service = await createService({
    dataDir,
    plugins: opts.plugins,
    env: { MEMORY_EXPOSE: opts.expose ?? 'all', MEMORY_META: opts.meta ? '1' : '' },
    clock: opts.clock ?? new ManualClock(),
    config: opts.config,
    logger,
  });
  const { clientTransport, server } = await connectInProcess(service.surface, service.kernel.logger);
  const client = new Client({ name: 'memory-service-testing', version: '0.1.0' });
  await client.connect(clientTransport);

  const callRaw = async (name: string, args: Record<string, unknown> = {}): Promise<ToolCallOutcome> => {
    const res = (await client.callTool({ name, arguments: args })) as any;
    let text: string = (res.content ?? []).map((c: any) => c.text ?? '').join('');
    if (res.isError && !service.surface.get(name)) text = withUnknownToolHint(text, name, service.kernel, opts);
    return { isError: !!res.isError, structured: res.structuredContent ?? (text ? safeJson(text) : undefined), text };
  };
  return {
    kernel: service.kernel,
    service,
    client,
    dataDir,
    logs,
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

/**
 * A call of a tool the test server does not list: say why, the usual mistake being a tool of a
 * plugin that was not passed (createTestServer loads only `plugins`) or a tier not in `expose`.
 */
function withUnknownToolHint(text: string, name: string, kernel: Kernel, opts: TestServerOptions): string {
  const registered = kernel.getTool(name);
  const hint = registered
    ? `${name} is a tool of ${registered.plugin} (tier ${registered.tiers.join(', ')}), which expose ${JSON.stringify(opts.expose ?? 'all')} does not expose`
    : `no plugin given to createTestServer registers ${name}: it loads only the plugins you pass (${kernel.pluginNames.join(', ') || 'none'}); ` +
      `the primitives (think, dream, forget, evolve, project, memory_hook, wake_up) are @memory-service/plugin-primitives, to pass as well`;
  const parsed = safeJson(text) as { error?: { message?: string } } | string;
  if (typeof parsed === 'object' && parsed?.error && typeof parsed.error.message === 'string') {
    parsed.error.message = `${parsed.error.message} (${hint})`;
    return JSON.stringify(parsed);
  }
  return `${text} (${hint})`;
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
