import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { StdioTransport, trailingId } from '../src/stdio-transport.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The JSON-RPC error answers written to a transport's stdout so far. */
function written(stdout: PassThrough): { id: unknown; error: { code: number; message: string } }[] {
  const text = String(stdout.read() ?? '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: unknown; error: { code: number; message: string } });
}

/** Start a transport on a fresh stdin and collect what it reports. */
async function started(make: (stdin: PassThrough, stdout: PassThrough) => Transport) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = make(stdin, stdout);
  const messages: unknown[] = [];
  const errors: Error[] = [];
  let closes = 0;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => closes++;
  await transport.start();
  return { transport, stdin, stdout, messages, errors, closes: () => closes };
}

const ours = (stdin: PassThrough, stdout: PassThrough) => new StdioTransport({ stdin, stdout });
const sdks = (stdin: PassThrough, stdout: PassThrough) => new StdioServerTransport(stdin, stdout);

/** Feed the chunks one by one (each its own 'data' event) and let the transport read them. */
async function feed(stdin: PassThrough, chunks: (Buffer | string)[]) {
  for (const c of chunks) {
    stdin.write(c);
    await tick();
  }
}

/** Cut a buffer at the given byte offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    out.push(bytes.subarray(from, to));
    from = to;
  }
  return out;
}

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const call = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'think', arguments: { text } } });

describe('StdioTransport reading', () => {
  it('splits lines across chunk boundaries, keeping partial lines and multi-byte characters whole', async () => {
    const text = 'café ☕ naïve 𝄞 日本語';
    const input = Buffer.from(`${JSON.stringify(call(1, text))}\n${JSON.stringify(ping(2))}\r\n${JSON.stringify(call(3, text))}\n`);
    // Cut inside every multi-byte character of the first line, and right before its '\n'.
    const first = input.indexOf('\n');
    const starts: number[] = [];
    for (let i = 0; i < first; i++) if (input[i]! >= 0xc0) starts.push(i + 1);
    expect(starts.length).toBeGreaterThan(5);
    const chunks = cut(input, [...starts, first, first + 1, first + 7]);

    const t = await started(ours);
    await feed(t.stdin, chunks);
    expect(t.errors).toEqual([]);
    expect(t.messages).toEqual([call(1, text), ping(2), call(3, text)]);

    // The SDK's transport reads the same bytes as the same messages.
    const sdk = await started(sdks);
    await feed(sdk.stdin, chunks);
    expect(sdk.messages).toEqual(t.messages);
  });

  it('splits a 4-byte character byte by byte, and reads many lines in one chunk', async () => {
    const line = Buffer.from(`${JSON.stringify(call(1, '𝄞'))}\n`);
    const at = line.indexOf(Buffer.from('𝄞'));
    const t = await started(ours);
    await feed(t.stdin, cut(line, [at + 1, at + 2, at + 3]));
    expect(t.messages).toEqual([call(1, '𝄞')]);
    await feed(t.stdin, [Array.from({ length: 50 }, (_, i) => `${JSON.stringify(ping(i))}\n`).join('')]);
    expect(t.messages).toHaveLength(51);
    expect(t.messages[50]).toEqual(ping(49));
  });

  it('reports a bad line to onerror, answers it as JSON-RPC asks, and still delivers the next good line', async () => {
    const lines = ['not json', '{"jsonrpc":"1.0","id":1,"method":"ping"}', '[1,2]', '42', '', '{"jsonrpc":"2.0","id":', JSON.stringify(ping(9))];
    const input = lines.map((l) => `${l}\n`).join('');
    const t = await started(ours);
    await feed(t.stdin, [input.slice(0, 20), input.slice(20)]);
    expect(t.messages).toEqual([ping(9)]);
    expect(t.errors).toHaveLength(6);
    expect(t.errors.every((e) => e instanceof Error)).toBe(true);
    expect(t.closes()).toBe(0);
    // The blank line gets no answer; the others one each, in order (the id when one can be read).
    const answers = written(t.stdout);
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [1, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32700],
    ]);
    expect(answers[2]!.error.message).toMatch(/batches are not accepted/);

    // The SDK's transport delivers and reports the same (it answers nothing).
    const sdk = await started(sdks);
    await feed(sdk.stdin, [input]);
    expect(sdk.messages).toEqual(t.messages);
    expect(sdk.errors).toHaveLength(t.errors.length);
  });

  it('an onmessage that throws is reported to onerror and the next line is still read', async () => {
    const t = await started(ours);
    const seen: unknown[] = [];
    t.transport.onmessage = (m) => {
      seen.push(m);
      if (seen.length === 1) throw new Error('handler failed');
    };
    await feed(t.stdin, [`${JSON.stringify(ping(1))}\n${JSON.stringify(ping(2))}\n`]);
    expect(seen).toEqual([ping(1), ping(2)]);
    expect(t.errors.map((e) => e.message)).toEqual(['handler failed']);
  });

  it('skips a line over maxBufferSize to its end, answers it with the id it ends with, and stays open', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioTransport({ stdin, stdout, maxBufferSize: 64 });
    const errors: Error[] = [];
    const messages: unknown[] = [];
    let closes = 0;
    transport.onerror = (e) => errors.push(e);
    transport.onmessage = (m) => messages.push(m);
    transport.onclose = () => closes++;
    await transport.start();
    const long = JSON.stringify(call(7, 'a'.repeat(300)));
    // The id comes last, as the SDK client writes it.
    const sdkOrder = `{"method":"tools/call","params":{"name":"think","arguments":{"text":"${'b'.repeat(300)}"}},"jsonrpc":"2.0","id":"req-8"}`;
    // Over the limit across chunks, then inside one chunk with good lines around it.
    await feed(stdin, [long.slice(0, 40), long.slice(40, 200), `${long.slice(200)}\n${JSON.stringify(ping(1))}\n`]);
    await feed(stdin, [`${JSON.stringify(ping(2))}\n${sdkOrder}\n${JSON.stringify(ping(3))}\n`]);
    expect(messages).toEqual([ping(1), ping(2), ping(3)]);
    expect(closes).toBe(0);
    expect(errors.map((e) => e.message)).toEqual(Array(2).fill('Message too large: a line over 64 bytes was skipped'));
    // The first line ends with params, not its id: answered with id null. The second ends with its id.
    expect(written(stdout).map((a) => [a.id, a.error.code])).toEqual([
      [null, -32600],
      ['req-8', -32600],
    ]);
  });

  it('answers a line that is not UTF-8 with a parse error, and reads U+FFFD sent as text', async () => {
    const t = await started(ours);
    const bad = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"think","arguments":{"text":"a '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' b"}}}\n')]);
    const replacement = `${JSON.stringify(call(2, 'sent \uFFFD on purpose'))}\n`;
    await feed(t.stdin, [bad, replacement]);
    expect(t.messages).toEqual([call(2, 'sent \uFFFD on purpose')]);
    expect(written(t.stdout).map((a) => [a.id, a.error.code, a.error.message])).toEqual([[null, -32700, 'Parse error: the line is not valid UTF-8']]);
  });

  it('reads a line of exactly maxBufferSize bytes', async () => {
    const line = JSON.stringify({ ...ping(1), pad: '' });
    const pad = 'p'.repeat(80 - Buffer.byteLength(line));
    const exact = JSON.stringify({ ...ping(1), pad });
    expect(Buffer.byteLength(exact)).toBe(80);
    const stdin = new PassThrough();
    const transport = new StdioTransport({ stdin, stdout: new PassThrough(), maxBufferSize: 80 });
    const messages: unknown[] = [];
    transport.onmessage = (m) => messages.push(m);
    await transport.start();
    await feed(stdin, [exact.slice(0, 50), `${exact.slice(50)}\n`]);
    expect(messages).toEqual([{ ...ping(1), pad }]);
  });

  it('finds the id a request line ends with, and nothing else', () => {
    expect(trailingId('..."jsonrpc":"2.0","id":42}')).toBe('42');
    expect(trailingId('..."id" : "a\\"b" } ')).toBe('"a\\"b"');
    expect(trailingId('..."id":-3}')).toBe('-3');
    expect(trailingId('..."id":42,"method":"ping"}')).toBeNull();
    expect(trailingId('..."arguments":{"text":"x"}}')).toBeNull();
  });

  it('after stdin ends, a failing write to stdout is absorbed, not thrown', async () => {
    const t = await started(ours);
    t.stdin.end();
    await tick();
    expect(t.closes()).toBe(1);
    expect(() => t.stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).not.toThrow();
    expect(t.errors).toEqual([]);
  });

  it('closes once when stdin ends, and close() after that does nothing', async () => {
    const t = await started(ours);
    t.stdin.end(`${JSON.stringify(ping(1))}\n{"jsonrpc":"2.0","id":2,"met`);
    await tick();
    await tick();
    expect(t.messages).toEqual([ping(1)]);
    expect(t.closes()).toBe(1);
    await t.transport.close();
    expect(t.closes()).toBe(1);
    expect(t.stdin.listenerCount('data')).toBe(0);
  });

  it('refuses a second start', async () => {
    const t = await started(ours);
    await expect(t.transport.start()).rejects.toThrow(/already started/);
  });
});

describe('StdioTransport writing', () => {
  it('writes each message as one JSON line, and a given JSON text as a line', async () => {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += d));
    const transport = new StdioTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, result: { ok: 'é' } });
    await transport.writeLine('{"jsonrpc":"2.0","id":2,"result":{"from":"writeLine"}}');
    await tick();
    expect(out).toBe('{"jsonrpc":"2.0","id":1,"result":{"ok":"é"}}\n{"jsonrpc":"2.0","id":2,"result":{"from":"writeLine"}}\n');
  });

  it('hands a message to take first, and to onmessage only when take leaves it', async () => {
    const stdin = new PassThrough();
    const seen: string[] = [];
    const transport = new StdioTransport({ stdin, stdout: new PassThrough(), take: (m) => 'id' in m && m.id === 1 });
    transport.onmessage = (m) => seen.push(String('id' in m ? m.id : '-'));
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(seen).toEqual(['2']);
  });

  it('rejects, never throws, when a message cannot be serialised', async () => {
    const transport = new StdioTransport({ stdin: new PassThrough(), stdout: new PassThrough() });
    let sent: Promise<void> | undefined;
    expect(() => (sent = transport.send({ jsonrpc: '2.0', id: 1, result: { n: 1n } }))).not.toThrow();
    await expect(sent).rejects.toThrow(/BigInt/);
  });

  it('waits for drain when stdout is full, with one listener for every waiting send, and keeps the order', async () => {
    const written: string[] = [];
    const held: (() => void)[] = [];
    const stdout = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _enc, done) {
        written.push(chunk.toString());
        held.push(done);
      },
    });
    const transport = new StdioTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    const big = 'x'.repeat(100);
    const settled: number[] = [];
    const sends = [1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: { big } }).then(() => settled.push(id)));
    await tick();
    expect(settled).toEqual([]);
    expect(stdout.listenerCount('drain')).toBe(1);
    // Let the stream write everything it holds.
    while (held.length) {
      held.shift()!();
      await tick();
    }
    await Promise.all(sends);
    expect(settled).toEqual([1, 2, 3]);
    expect(written.map((w) => JSON.parse(w).id)).toEqual([1, 2, 3]);
    expect(written.every((w) => w.endsWith('}\n'))).toBe(true);
    expect(stdout.listenerCount('drain')).toBe(0);
    // With room again, a small send resolves without waiting.
    stdout._write = (chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void) => {
      written.push(chunk.toString());
      done();
    };
    await transport.send({ jsonrpc: '2.0', id: 4, result: {} });
    expect(JSON.parse(written.at(-1)!).id).toBe(4);
  });

  it('when stdout fails (EPIPE), reports the error, closes once and releases a send waiting for drain', async () => {
    const stdout = new Writable({
      highWaterMark: 16,
      write(_chunk: Buffer, _enc, done) {
        const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        setImmediate(() => done(err));
      },
    });
    const transport = new StdioTransport({ stdin: new PassThrough(), stdout });
    const errors: Error[] = [];
    let closes = 0;
    transport.onerror = (e) => errors.push(e);
    transport.onclose = () => closes++;
    await transport.start();
    // Larger than the buffer: this send waits for a drain that never comes.
    const waiting = transport.send({ jsonrpc: '2.0', id: 1, result: { big: 'x'.repeat(100) } });
    await tick();
    await tick();
    await expect(waiting).resolves.toBeUndefined();
    expect(errors.map((e) => (e as Error & { code?: string }).code)).toEqual(['EPIPE']);
    expect(closes).toBe(1);
    // A write still in flight may fail after the close: that is absorbed, not thrown.
    expect(() => stdout.emit('error', new Error('late EPIPE'))).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(closes).toBe(1);
    // Nothing is written once closed, and nothing throws.
    await expect(transport.send({ jsonrpc: '2.0', id: 2, result: {} })).resolves.toBeUndefined();
  });
});

/** A stdout whose client reads nothing until `read()`: every write after the first stays buffered. */
function unreadStdout() {
  const lines: string[] = [];
  let held: (() => void)[] = [];
  let reading = false;
  const stdout = new Writable({
    highWaterMark: 1_024,
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      if (reading) done();
      else held.push(() => done());
    },
  });
  const read = () => {
    reading = true;
    for (const done of held.splice(0)) done();
    held = [];
  };
  return { stdout, lines, read };
}

describe('StdioTransport backpressure', () => {
  const answer = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { pad: 'x'.repeat(1_000) } });

  /** A transport that answers each message itself with about 1 kB, and counts what it took. */
  async function answering(stdin: PassThrough, stdout: Writable) {
    const taken: unknown[] = [];
    let closes = 0;
    const transport: StdioTransport = new StdioTransport({
      stdin,
      stdout,
      stdoutHighWater: 10_000,
      take: (m) => {
        taken.push((m as { id?: unknown }).id);
        void transport.writeLine(answer((m as { id?: unknown }).id));
        return true;
      },
    });
    transport.onclose = () => closes++;
    await transport.start();
    return { transport, taken, closes: () => closes };
  }

  const requests = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `${JSON.stringify(ping(from + i))}\n`).join('');

  // Regression guard, fixed: a client that stopped reading stdout while it kept writing requests
  // had every answer queued in the server's memory (90 MB -> 309 MB over 2,000 dreams, still growing).
  it('stops reading stdin while stdout holds more than the high-water mark unread, and answers every request in order once it drains', async () => {
    const stdin = new PassThrough();
    const { stdout, lines, read } = unreadStdout();
    const { taken } = await answering(stdin, stdout);
    // 200 requests in one chunk, then 200 more: each answer is about 1 kB.
    await feed(stdin, [requests(1, 201)]);
    expect(taken.length).toBeGreaterThan(5);
    expect(taken.length).toBeLessThan(20);
    expect(stdout.writableLength).toBeLessThan(10_000 + 2_000);
    expect(stdin.isPaused()).toBe(true);
    await feed(stdin, [requests(201, 401)]);
    expect(taken.length).toBeLessThan(20);
    expect(stdin.readableLength).toBeGreaterThan(0);
    // The client reads again: the lines held, then the rest of stdin, are handled in order.
    read();
    for (let i = 0; i < 50 && lines.length < 400; i++) await tick();
    expect(taken).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(taken);
    expect(stdin.isPaused()).toBe(false);
  });

  it('answers the requests it had read when stdin ends while it waits for stdout, then closes', async () => {
    const stdin = new PassThrough();
    const { stdout, lines, read } = unreadStdout();
    const { taken, closes } = await answering(stdin, stdout);
    stdin.end(requests(1, 101));
    await tick();
    await tick();
    expect(taken.length).toBeLessThan(100);
    expect(closes()).toBe(0);
    read();
    for (let i = 0; i < 50 && lines.length < 100; i++) await tick();
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(closes()).toBe(1);
  });

  it('reads on while the client keeps up: nothing is held', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const { taken } = await answering(stdin, stdout);
    stdout.resume();
    await feed(stdin, [requests(1, 201)]);
    expect(taken).toHaveLength(200);
    expect(stdin.isPaused()).toBe(false);
  });
});
