#!/usr/bin/env node
/**
 * An MCP client of the memory service, as an agent host would be: it stores one text with `think`
 * and recalls with `dream`, printing what each answered.
 *
 *   think-and-dream [--http <url>] [--user <id>] [--layer user|agent] <text> <query>
 *
 * Without --http it starts the `memory-service` command of @memory-service/server on stdio (its data
 * dir from MCP_MEMORY_DATA_DIR, else ~/.memory-service); with --http it connects to a running one,
 * e.g. --http http://127.0.0.1:8000/mcp after `memory-service --transport http`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface Options {
  http?: string;
  user_id: string;
  layer: 'user' | 'agent';
  text: string;
  query: string;
}

const USAGE = 'Usage: think-and-dream [--http <url>] [--user <id>] [--layer user|agent] <text> <query>';

/** The command line as Options, or an Error saying what is wrong with it. */
export function parseArgs(argv: readonly string[]): Options | Error {
  const opts: Partial<Options> & { user_id: string; layer: 'user' | 'agent' } = { user_id: 'default', layer: 'user' };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === '--http') opts.http = new URL(value()).href;
      else if (a === '--user') opts.user_id = value();
      else if (a === '--layer') {
        const v = value();
        if (v !== 'user' && v !== 'agent') return new Error(`--layer must be user or agent, got "${v}"`);
        opts.layer = v;
      } else if (a.startsWith('--')) return new Error(`unknown option ${a}`);
      else rest.push(a);
    } catch (err) {
      return err instanceof TypeError ? new Error(`--http must be a URL, got "${argv[i]}"`) : (err as Error);
    }
  }
  if (rest.length !== 2) return new Error(`expected a text and a query, got ${rest.length} argument(s)`);
  return { ...opts, text: rest[0]!, query: rest[1]! };
}

/**
 * The `memory-service` command's script, in the installed @memory-service/server package (looked up
 * the way Node looks up packages: its `exports` do not list the bin, so it cannot be resolved).
 */
export function serverBin(): string {
  for (const dir of createRequire(import.meta.url).resolve.paths('@memory-service/server') ?? []) {
    const bin = path.join(dir, '@memory-service', 'server', 'bin', 'memory-service.js');
    if (fs.existsSync(bin)) return bin;
  }
  throw new Error('@memory-service/server is not installed here: install it (npm install @memory-service/server)');
}

/** A client connected to the memory service over the chosen transport. */
export async function connect(http: string | undefined, env: Record<string, string> = {}): Promise<Client> {
  const transport: Transport = http
    ? new StreamableHTTPClientTransport(new URL(http))
    : new StdioClientTransport({
        command: process.execPath,
        args: [serverBin()],
        // The server's own settings pass through; stderr carries its log lines.
        env: { ...(process.env as Record<string, string>), MEMORY_LOG_QUIET: '1', ...env },
      });
  const client = new Client({ name: 'think-and-dream', version: '0.1.0' });
  await client.connect(transport);
  return client;
}

interface ToolAnswer {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  content?: unknown;
}

/** Call one tool; a tool error becomes an exception carrying the service's message. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  if (answer.isError) {
    const text = Array.isArray(answer.content) ? answer.content.map((c: { text?: string }) => c.text ?? '').join(' ') : '';
    throw new Error(`${name} failed: ${text}`);
  }
  return answer.structuredContent ?? {};
}

/** think the text, then dream the query, on the same layer and user. */
export async function thinkAndDream(client: Client, opts: Options): Promise<{ think: Record<string, unknown>; dream: Record<string, unknown> }> {
  const scope = { layer: opts.layer, user_id: opts.user_id };
  const think = await call(client, 'think', { text: opts.text, ...scope });
  const dream = await call(client, 'dream', { query: opts.query, ...scope });
  return { think, dream };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (opts instanceof Error) {
    process.stderr.write(`think-and-dream: ${opts.message}\n${USAGE}\n`);
    process.exit(2);
  }
  const client = await connect(opts.http);
  try {
    const { think, dream } = await thinkAndDream(client, opts);
    const actions = (think.actions as { store?: string; id?: string }[] | undefined) ?? [];
    process.stdout.write(`think: stored as ${actions.map((a) => `${a.store} ${a.id}`).join(', ') || 'nothing'}\n`);
    process.stdout.write(`dream: ${String(dream.result_count)} hit(s)\n\n${String(dream.summary)}\n`);
  } finally {
    await client.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err: Error) => {
    process.stderr.write(`think-and-dream: ${err.message}\n`);
    process.exit(1);
  });
}
