/** One MCP server process driven over stdio by the SDK client, with the timings the harnesses need. */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ListToolsResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readPeakRssBytes } from './proc-stats.js';

export interface SpawnSpec {
  /** Label used in errors and progress. */
  label: string;
  /** Path of the server's entry script, run with this Node binary. */
  script: string;
  env: Record<string, string>;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
}

const STDERR_TAIL_CHARS = 4000;

export class McpConnection {
  /** Spawn to the answer of tools/list, in ms (initialize handshake included). */
  readonly spawnToToolsMs: number;
  readonly tools: readonly string[];
  private stderrTail = '';
  /** Set by the first timedClientCall: the tools/list that gives the SDK client the output schemas. */
  private listed: Promise<void> | undefined;

  private constructor(
    readonly label: string,
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    private readonly timeoutMs: number,
    spawnToToolsMs: number,
    tools: readonly string[],
  ) {
    this.spawnToToolsMs = spawnToToolsMs;
    this.tools = tools;
  }

  /** Spawn the server, complete the MCP handshake and list its tools. */
  static async open(spec: SpawnSpec): Promise<McpConnection> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [spec.script],
      env: spec.env,
      stderr: 'pipe',
    });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    const client = new Client({ name: 'memory-service-bench', version: '0.1.0' });
    const timeoutMs = spec.timeoutMs ?? 120_000;
    const start = performance.now();
    let tools: string[];
    try {
      await client.connect(transport, { timeout: timeoutMs });
      // A raw request: client.listTools would also compile output-schema validators, client-side work
      // that is no part of the server's start-up.
      const listed = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema, { timeout: timeoutMs });
      tools = listed.tools.map((t) => t.name);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new Error(`${spec.label}: could not start (${(err as Error).message})${tail ? `\nserver stderr:\n${tail}` : ''}`);
    }
    const elapsed = performance.now() - start;
    const conn = new McpConnection(spec.label, client, transport, timeoutMs, elapsed, tools);
    conn.stderrTail = tail;
    transport.stderr?.on('data', (chunk: Buffer) => {
      conn.stderrTail = (conn.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return conn;
  }

  get pid(): number | null {
    return this.transport.pid;
  }

  /** The last lines the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Call a tool; a result flagged isError becomes an exception carrying the tool's text. */
  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = (await this.client.request(
      { method: 'tools/call', params: { name, arguments: args } },
      CallToolResultSchema,
      { timeout: this.timeoutMs },
    )) as CallToolResult;
    if (result.isError) {
      const text = result.content
        .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
        .join(' ')
        .slice(0, 500);
      throw new Error(`${this.label}: tool ${name} failed: ${text}`);
    }
    return result;
  }

  /**
   * A tool call as a typical client makes it: Client.callTool, which checks a structured answer
   * against the tool's output schema (the tools are listed once first, so the SDK has them).
   * The time includes that check. A result flagged isError becomes an exception.
   */
  async timedClientCall(name: string, args: Record<string, unknown>): Promise<{ ms: number; result: CallToolResult }> {
    this.listed ??= this.client.listTools(undefined, { timeout: this.timeoutMs }).then(() => undefined);
    await this.listed;
    const start = performance.now();
    const result = (await this.client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: this.timeoutMs })) as CallToolResult;
    const ms = performance.now() - start;
    if (result.isError) throw new Error(`${this.label}: tool ${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    return { ms, result };
  }

  /** One timed tool call, in ms. */
  async timedCall(name: string, args: Record<string, unknown>): Promise<{ ms: number; result: CallToolResult }> {
    const start = performance.now();
    const result = await this.call(name, args);
    return { ms: performance.now() - start, result };
  }

  /** One timed MCP ping, in ms: the transport floor. */
  async timedPing(): Promise<number> {
    const start = performance.now();
    await this.client.ping({ timeout: this.timeoutMs });
    return performance.now() - start;
  }

  /** Peak resident set of the server process so far (VmHWM), or null where /proc is not available. */
  peakRssBytes(): number | null {
    const pid = this.pid;
    return pid === null ? null : readPeakRssBytes(pid);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
