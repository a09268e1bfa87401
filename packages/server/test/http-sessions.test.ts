import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { app, appWith, bodyOf, closeServices, INITIALIZE, MCP_HEADERS, mcpClient, messagesOf, rawSession, rawSessionHeaders } from './http-helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A POST of `body` to /mcp at `address` whose body is sent in two halves: the first now, the
 * second when `finish` is called (a large body still uploading). `answer` resolves to its status and text.
 */
function slowPost(address: string, headers: Record<string, string>, body: unknown) {
  const bytes = Buffer.from(JSON.stringify(body));
  const half = Math.floor(bytes.length / 2);
  const req = http.request(`${address}/mcp`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(bytes.length) } });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
  req.write(bytes.subarray(0, half));
  return { answer, finish: () => req.end(bytes.subarray(half)) };
}

/** A raw connection to `address`, once connected; `answer` resolves to what came back once it holds `until`, the server closed it, or `ms` passed. */
async function rawConnection(address: string) {
  const url = new URL(address);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  const answer = (until: RegExp, ms: number) =>
    new Promise<string>((resolve) => {
      const done = () => (clearTimeout(timer), resolve(text));
      const timer = setTimeout(done, ms);
      socket.on('data', (d) => ((text += d), until.test(text) && done()));
      socket.once('close', done);
    });
  return { socket, answer };
}

/** A request's bytes on the wire: its request line, headers (Content-Length from `body`) and body. */
function requestBytes(host: string, headers: Record<string, string>, body: string): string {
  const lines = Object.entries({ ...headers, host, 'content-length': String(Buffer.byteLength(body)) }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join('')}\r\n${body}`;
}

const say = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo_say', arguments: { text } } });

afterEach(closeServices);

describe('HTTP MCP sessions', () => {
  it('holds at most maxSessions MCP sessions, closing the one used longest ago, and closes idle ones', async () => {
    const a = await app(false, { maxSessions: 2, sessionIdleMs: 200 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const open = () => mcpClient(address);
    const first = await open();
    const second = await open();
    await first.client.listTools();
    // A third session makes room by closing the one used longest ago: the second.
    const third = await open();
    await expect(second.client.listTools()).rejects.toThrow();
    expect((await first.client.listTools()).tools).toHaveLength(1);
    expect((await third.client.listTools()).tools).toHaveLength(1);
    // Unused for longer than sessionIdleMs, both are closed by the next sweep (every second at most).
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    await expect(first.client.listTools()).rejects.toThrow();
    await expect(third.client.listTools()).rejects.toThrow();
    for (const c of [first, second, third]) await c.client.close().catch(() => undefined);
    await a.close();
  });

  it('does not close a session with a request running, idle or to make room: that request was left unanswered', async () => {
    const a = await appWith('wait', false, { maxSessions: 1, sessionIdleMs: 200 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const post = await rawSession(address);
    const running = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait_for', arguments: { ms: 1_500 } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The only session is busy: a new one is refused for now rather than closing it.
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const refused = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(initialize) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await bodyOf(refused)).error.message).toMatch(/all 1 have a request running/);
    // Its response ended empty when the sweep (every second) or the new session closed the session under it.
    expect(messagesOf(await (await running).text())).toMatchObject([{ id: 1, result: { structuredContent: { waited: 1_500 } } }]);
    const opened = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(initialize) });
    expect(opened.status).toBe(200);
    await opened.text();
    await a.close();
  });

  // Regression guard, fixed: a request counted as running only once its body was read and parsed,
  // so a session whose request was still uploading was closed to make room, and that request then
  // answered 404 "Session not found" and was not run.
  it('counts a request as running from its arrival: a session whose body is still uploading is not closed to make room', async () => {
    const a = await app(false, { maxSessions: 1 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const headers = await rawSessionHeaders(address);
    const upload = slowPost(address, headers, say(1, `uploaded slowly ${'x'.repeat(50_000)}`));
    await sleep(200);
    const refused = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(503);
    expect((await bodyOf(refused)).error.message).toMatch(/all 1 have a request running/);
    upload.finish();
    const { status, text } = await upload.answer;
    expect(status).toBe(200);
    expect(messagesOf(text)).toMatchObject([{ id: 1, result: { structuredContent: { text: expect.stringMatching(/^uploaded slowly x/) } } }]);
    // Answered, the session has no request running: a new one closes it.
    const opened = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(opened.status).toBe(200);
    await opened.text();
    const gone = await fetch(`${address}/mcp`, { method: 'POST', headers, body: JSON.stringify(say(2, 'late')) });
    expect(gone.status).toBe(404);
    await a.close();
  });

  it('does not close a session as idle while its request body is still uploading, however long that takes', async () => {
    const a = await app(false, { sessionIdleMs: 200 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const headers = await rawSessionHeaders(address);
    const upload = slowPost(address, headers, say(1, 'uploaded slowly'));
    // The sweep runs every second at most: past it, the session was closed under its upload.
    await sleep(1_300);
    upload.finish();
    const { status, text } = await upload.answer;
    expect(status).toBe(200);
    expect(messagesOf(text)).toMatchObject([{ id: 1, result: { structuredContent: { text: 'uploaded slowly' } } }]);
    const next = await fetch(`${address}/mcp`, { method: 'POST', headers, body: JSON.stringify(say(2, 'next')) });
    expect(next.status).toBe(200);
    await next.text();
    await a.close();
  });

  it('at the cap, reads the requests that came in the same turn before choosing the session to close', async () => {
    const a = await app(false, { maxSessions: 1 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const host = new URL(address).host;
    const headers = await rawSessionHeaders(address);
    const opener = await rawConnection(address);
    const caller = await rawConnection(address);
    await sleep(50);
    // Both arrive while the event loop is held (as by a long call): the initialize first, then the
    // start of a request in the session, whose body is still coming.
    const call = JSON.stringify(say(1, 'while the loop was held'));
    opener.socket.write(requestBytes(host, { ...MCP_HEADERS, connection: 'close' }, JSON.stringify(INITIALIZE)));
    caller.socket.write(requestBytes(host, { ...headers, connection: 'close' }, call).slice(0, -10));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    expect(await opener.answer(/\r\n\r\n\{.*\}$/s, 2_000)).toMatch(/^HTTP\/1\.1 503/);
    caller.socket.write(call.slice(-10));
    const answered = await caller.answer(/while the loop was held.*\n\n/s, 2_000);
    expect(answered).toMatch(/^HTTP\/1\.1 200/);
    expect(answered).toContain('while the loop was held');
    opener.socket.destroy();
    caller.socket.destroy();
    await a.close();
  });
});
