/**
 * The `memory-service` command's MCP session under stdio: JSON-RPC lines on the process's stdin
 * and stdout (or the given streams). It answers the handshake (direct-calls.ts DirectHandshake:
 * initialize, ping, tools/list, the initialized notification) and plain tool calls
 * (DirectToolCalls) itself, and loads the MCP SDK's Server (mcp-adapter.ts) only when another
 * message arrives: most sessions never need it, and evaluating the SDK's modules (its protocol
 * schemas) was about a tenth of every start to an answered tools/list. Messages that arrive while
 * the SDK loads wait for it, in order.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, Surface } from '@memory-service/kernel';
import { DirectHandshake, DirectToolCalls, INTERNAL_ERROR, internalError, methodOf, requestIdOf, thrownMessage, writeAnswer } from './direct-calls.js';
import type { SdkLink } from './mcp-adapter.js';
import { StdioTransport } from './stdio-transport.js';

export interface StdioSession {
  /** Called once, when the transport has closed: stdin ended, stdout failed, or close(). */
  onclose?: () => void;
  /** Whether the SDK Server was loaded (a message the session does not answer itself came). */
  readonly sdkLoaded: boolean;
  /** Stop answering: the transport closes (and the SDK Server with it, when loaded). */
  close(): Promise<void>;
}

/** Start answering MCP on stdin and stdout (or the given streams). */
export async function openStdioSession(surface: Surface, logger?: Logger, streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<StdioSession> {
  let sdk: SdkLink | undefined;
  let loading: Promise<void> | undefined;
  const waiting: JSONRPCMessage[] = [];
  const load = () =>
    import('./mcp-adapter.js')
      .then(({ attachSdkServer }) => attachSdkServer(surface, logger, transport))
      .then(
        (link) => {
          sdk = link;
          for (const m of waiting.splice(0)) deliver(link, m);
        },
        (err: unknown) => {
          // Nothing can answer these now: each request is told so rather than left waiting.
          logger?.error(`the MCP SDK could not be loaded: ${err instanceof Error && err.stack ? err.stack : String(err)}`);
          for (const m of waiting.splice(0)) {
            const id = (m as { id?: unknown }).id;
            if ((typeof id === 'string' || typeof id === 'number') && 'method' in m) {
              const error = { code: INTERNAL_ERROR, message: 'Internal error: the server could not load the MCP SDK to answer this' };
              writeAnswer(write, JSON.stringify({ jsonrpc: '2.0', id, error }), logger);
            }
          }
          loading = undefined;
        },
      );
  // A cancellation with no call in flight here, while the SDK Server was never asked for anything,
  // names a request already answered: there is nothing to cancel, and nothing to load the SDK for.
  const stale = (message: JSONRPCMessage): boolean => (message as { method?: unknown }).method === 'notifications/cancelled' && loading === undefined;
  const viaSdk = (message: JSONRPCMessage): true => {
    if (sdk) {
      deliver(sdk, message);
      return true;
    }
    waiting.push(message);
    loading ??= load();
    return true;
  };
  const transport: StdioTransport = new StdioTransport({
    ...streams,
    take: (message) => {
      try {
        return tools.take(message) || handshake.take(message) || stale(message) || viaSdk(message);
      } catch (err) {
        return failed(message, err);
      }
    },
  });
  const write = (line: string) => transport.writeLine(line);
  // Whatever throws while a message is handled here is logged, and a request is answered with an
  // internal error naming its method: the transport would only report it to onerror, which
  // nothing reads here, and the client waited for the answer until it timed out.
  const failed = (message: JSONRPCMessage, err: unknown): true => {
    const id = requestIdOf(message);
    if (id !== undefined) writeAnswer(write, JSON.stringify(internalError(id, methodOf(message), err, logger)), logger);
    else logger?.error(`${methodOf(message)} could not be handled: ${err instanceof Error && err.stack ? err.stack : thrownMessage(err)}`);
    return true;
  };
  const deliver = (link: SdkLink, message: JSONRPCMessage): void => {
    try {
      link.deliver(message);
    } catch (err) {
      failed(message, err);
    }
  };
  const tools = new DirectToolCalls(surface, write, logger);
  const handshake = new DirectHandshake(surface, write, logger);
  const session: StdioSession = {
    get sdkLoaded() {
      return sdk !== undefined;
    },
    close: () => transport.close(),
  };
  transport.onclose = () => {
    sdk?.closed();
    session.onclose?.();
  };
  await transport.start();
  return session;
}

