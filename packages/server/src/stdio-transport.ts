/**
 * The MCP transport of the `memory-service` command under stdio: one JSON-RPC message per line,
 * read from stdin and written to stdout. It reads as the SDK's StdioServerTransport does (send
 * waits for 'drain' when stdout's buffer is full; a bad line is reported to onerror and the next
 * line is still read), and answers what the SDK's transport leaves unanswered, as JSON-RPC 2.0 asks:
 * - a line that is not JSON, or not UTF-8, gets a parse error (-32700), and JSON that is not a
 *   JSON-RPC 2.0 message object (a batch array, a number, another version) an invalid request
 *   (-32600), both with id null unless the object has an id;
 * - a line longer than maxBufferSize bytes is skipped up to its line end and answered with an
 *   invalid request naming the limit, with the request's id when the line ends with one (the SDK
 *   client writes the id last); the transport stays open, where the SDK's discards what it had
 *   buffered and then reads the rest of the line as a broken message.
 * It costs less per message:
 * - a line is only checked to be a JSON-RPC 2.0 object; the SDK's Protocol classifies every
 *   message with its own schemas right after, so the SDK's full schema parse of each line here
 *   only did the same work twice;
 * - bytes are only copied when a line spans chunks;
 * - an optional `take` hook sees each message first and may answer it itself (mcp-adapter.ts
 *   answers plain tools/call requests this way, writing with writeLine).
 * In the server, only the stdio session (stdio-session.ts) and mcp-adapter.ts import this file:
 * SDK-facing code stays behind the adapter.
 */
import { isUtf8 } from 'node:buffer';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { internalError, methodOf, requestIdOf } from './direct-calls.js';

/** As the SDK's stdio ReadBuffer: a line longer than this (in bytes) is refused. */
export const STDIO_MAX_BUFFER_SIZE = 10 * 1024 * 1024;

/**
 * While stdout holds more than this many bytes the client has not read yet, stdin is not read:
 * a client that stops reading its answers stops the server reading its requests, instead of the
 * answers queueing in memory without bound.
 */
export const STDOUT_HIGH_WATER = 4 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export interface StdioTransportOptions {
  stdin?: Readable;
  stdout?: Writable;
  maxBufferSize?: number;
  /** Bytes stdout may hold unread before stdin is paused until it drains (default STDOUT_HIGH_WATER). */
  stdoutHighWater?: number;
  /** Sees each incoming message before onmessage; returning true means it was handled and onmessage is skipped. */
  take?: (message: JSONRPCMessage) => boolean;
}

/** Whether a parsed line has the shape every JSON-RPC 2.0 message shares. */
function isJsonRpc(value: unknown): value is JSONRPCMessage {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

/** Bytes kept of the end of a line being skipped: enough for the `"id":...}` that ends a request. */
const TAIL_BYTES = 256;

/** The id a request line ends with (`"id":7}` or `"id":"a-1"}`), as JSON text, or null. */
export function trailingId(tail: string): string | null {
  const m = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")\s*\}\s*$/.exec(tail);
  return m ? m[1]! : null;
}

/** A JSON-RPC 2.0 error answer, as a line's JSON text; `id` is JSON text (`null` when unknown). */
function errorLine(id: string, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly maxBufferSize: number;
  private readonly highWater: number;
  private readonly take: ((message: JSONRPCMessage) => boolean) | undefined;
  /** The bytes of a line whose end has not arrived yet. */
  private partial: Buffer | undefined;
  /** Resolves on stdout's next 'drain'; shared by every send that found the buffer full. */
  private drained: Promise<void> | undefined;
  /** Resolves `drained` early: when the transport closes before stdout drains. */
  private release: (() => void) | undefined;
  private started = false;
  private closed = false;
  /** Set while the rest of a line over maxBufferSize is skipped; holds the last bytes seen of it. */
  private skipping: Buffer | undefined;
  /**
   * Set while stdin is paused for stdout to drain: the bytes read and not yet handled (lines after
   * the one that took stdout over highWater), handled in order once it drains.
   */
  private held: Buffer | undefined;
  /** stdin ended while bytes were held: the transport closes once they are handled. */
  private endedWhileHeld = false;

  constructor(options: StdioTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.maxBufferSize = options.maxBufferSize ?? STDIO_MAX_BUFFER_SIZE;
    this.highWater = options.stdoutHighWater ?? STDOUT_HIGH_WATER;
    this.take = options.take;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioTransport already started (Server.connect starts it)');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
    this.stdin.on('end', this.onend);
    this.stdin.on('close', this.onend);
    this.stdout.on('error', this.onwriteerror);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    this.stdin.off('end', this.onend);
    this.stdin.off('close', this.onend);
    // The stdout 'error' listener stays: a write still in flight can fail after this, and an
    // 'error' event with no listener would throw.
    // Pause only a stdin nobody else reads.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.partial = undefined;
    this.held = undefined;
    this.stdout.off('drain', this.ondrain);
    // A send still waiting for 'drain' would wait for ever once stdout is gone.
    this.release?.();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.writeLine(json);
  }

  /** Write one message's JSON text (no line end) as a line; resolves once stdout can take more. */
  writeLine(json: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.stdout.write(`${json}\n`)) return Promise.resolve();
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        this.stdout.off('drain', done);
        this.drained = undefined;
        this.release = undefined;
        resolve();
      };
      this.release = done;
      this.stdout.once('drain', done);
    });
    return this.drained;
  }

  /**
   * stdout failed (EPIPE: the client stopped reading, or went away). Nothing more can reach the
   * client, so the transport reports the error and closes, as when stdin ends: the server then
   * shuts down in order (pending writes flushed, database closed) instead of dying on an unhandled
   * 'error' event.
   */
  private readonly onwriteerror = (error: Error): void => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onstreamerror = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onend = (): void => {
    // Requests already read are still answered: the close waits for the lines held.
    if (this.held) this.endedWhileHeld = true;
    else void this.close();
  };

  /** stdout drained: handle the lines held, in order, then read stdin again (unless they filled stdout again). */
  private readonly ondrain = (): void => {
    const held = this.held;
    if (held === undefined || this.closed) return;
    this.held = undefined;
    this.ondata(held);
    if (this.held !== undefined || this.closed) return;
    if (this.endedWhileHeld) void this.close();
    else this.stdin.resume();
  };

  /** Stop reading stdin until stdout drains, keeping `rest` (bytes read and not yet handled) for then. */
  private hold(rest: Buffer): void {
    this.held = rest;
    this.stdin.pause();
    this.stdout.once('drain', this.ondrain);
  }

  private readonly ondata = (chunk: Buffer | string): void => {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    // Paused for stdout, a chunk the stream had already read waits behind the lines held.
    if (this.held) {
      this.held = Buffer.concat([this.held, bytes]);
      return;
    }
    for (;;) {
      if (this.skipping) {
        const end = bytes.indexOf(LF);
        this.skipping = lastBytes(this.skipping, end < 0 ? bytes : bytes.subarray(0, end));
        if (end < 0) return;
        this.refuseLong(this.skipping);
        this.skipping = undefined;
        bytes = bytes.subarray(end + 1);
        if (bytes.length === 0 || this.closed) return;
      }
      const held = this.partial?.length ?? 0;
      // Lines that end in this chunk are checked one by one below; without a line end, the pending
      // line is already too long: it is skipped to its end, keeping only its last bytes for the id.
      if (held + bytes.length <= this.maxBufferSize || bytes.indexOf(LF) >= 0) break;
      this.skipping = lastBytes(this.partial ?? Buffer.alloc(0), bytes);
      this.partial = undefined;
      return;
    }
    const held = this.partial?.length ?? 0;
    const buf = held ? Buffer.concat([this.partial!, bytes], held + bytes.length) : bytes;
    this.partial = undefined;
    let start = 0;
    let end: number;
    // Lines are cut on the byte '\n' and decoded whole, so a character split across chunks
    // is decoded once both halves are there.
    while (!this.closed && (end = buf.indexOf(LF, start)) !== -1) {
      const stop = end > start && buf[end - 1] === CR ? end - 1 : end;
      if (stop - start > this.maxBufferSize) {
        this.refuseLong(buf.subarray(Math.max(start, stop - TAIL_BYTES), stop));
      } else {
        const line = buf.toString('utf8', start, stop);
        // Bytes that are not UTF-8 decode to U+FFFD: such a line is refused, not stored with
        // replacement characters (a line that holds U+FFFD itself is checked, and passes).
        if (line.includes('\uFFFD') && !isUtf8(buf.subarray(start, stop))) this.refuseBytes();
        else this.deliver(line);
      }
      start = end + 1;
      // The client is not reading its answers as fast as they come: stop reading requests until it
      // has (stdout's 'drain'). One read of a number per line while it keeps up.
      if (this.stdout.writableLength > this.highWater && this.stdout.writableNeedDrain && !this.closed) {
        return this.hold(buf.subarray(start));
      }
    }
    if (!this.closed && start < buf.length) this.partial = start === 0 ? buf : buf.subarray(start);
  };

  /** Answer a line that is not UTF-8 (JSON text must be): a parse error, since no id can be trusted. */
  private refuseBytes(): void {
    const message = 'Parse error: the line is not valid UTF-8';
    this.onerror?.(new Error(message));
    void this.writeLine(errorLine('null', -32700, message));
  }

  /** Answer a line over maxBufferSize, skipped up to its end (`tail`: its last bytes). */
  private refuseLong(tail: Buffer): void {
    const message = `Message too large: a line over ${this.maxBufferSize} bytes was skipped`;
    this.onerror?.(new Error(message));
    void this.writeLine(errorLine(trailingId(tail.toString('utf8')) ?? 'null', -32600, message));
  }

  private deliver(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.onerror?.(error);
      // A blank line is no message at all: nothing to answer.
      if (line.trim()) void this.writeLine(errorLine('null', -32700, `Parse error: ${error.message}`));
      return;
    }
    if (!isJsonRpc(message)) {
      const shown = line.length > 200 ? `${line.slice(0, 200)}...` : line;
      this.onerror?.(new Error(`Not a JSON-RPC 2.0 message: ${shown}`));
      const id = typeof message === 'object' && message !== null ? (message as { id?: unknown }).id : undefined;
      const echoed = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? JSON.stringify(id) : 'null';
      void this.writeLine(errorLine(echoed, -32600, 'Invalid Request: each line must be one JSON-RPC 2.0 message object with "jsonrpc": "2.0" (batches are not accepted)'));
      return;
    }
    try {
      if (this.take?.(message)) return;
      this.onmessage?.(message);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.onerror?.(error);
      // A request whose handling threw is answered, or its client waits for an answer for ever
      // (reported through onerror above, so the answer is not logged again).
      const id = requestIdOf(message);
      if (id !== undefined) void this.writeLine(JSON.stringify(internalError(id, methodOf(message), error, undefined)));
    }
  }
}

/** The last TAIL_BYTES of `kept` followed by `more`. */
function lastBytes(kept: Buffer, more: Buffer): Buffer {
  if (more.length >= TAIL_BYTES) return Buffer.from(more.subarray(more.length - TAIL_BYTES));
  const joined = Buffer.concat([kept, more]);
  return joined.length > TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - TAIL_BYTES)) : joined;
}
