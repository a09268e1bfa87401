import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { MemoryError, openSqlite, silentLogger } from '@memory-service/kernel';
import { buildHttpApp, DRAIN_MS, statusFor } from '../src/http.js';
import { createService } from '../src/service.js';
import { BIN, runBin, stdioClient, tempDir } from './helpers.js';
import { app, appWith, bodyOf, closeServices, MCP_HEADERS, mcpClient, messagesOf, rawSession, spawnHttpBin } from './http-helpers.js';

afterEach(closeServices);

describe('HTTP routes', () => {
  it('/health, /ready and /alive answer', async () => {
    const a = await app();
    const health = await a.inject({ url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', version: '1.8.0', database: { connected: true } });
    expect(typeof health.json().uptime_seconds).toBe('number');
    // Regression guard, fixed: /health, open without a key, named the database file's absolute path.
    expect(health.json().database).toEqual({ connected: true });
    const ready = await a.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, database: { connected: true }, migrations: { current: true } });
    expect(ready.json().database.path).toMatch(/memory\.db$/);
    expect((await a.inject({ url: '/alive' })).json()).toEqual({ alive: true });
    expect((await a.inject({ url: '/nowhere' })).statusCode).toBe(404);
    await a.close();
  });

  it('a route asked with a method it does not take is a 405 naming the ones it does, not a 404', async () => {
    const a = await app(true);
    const hook = await a.inject({ method: 'GET', url: '/api/hooks/memory_pressure?x=1' });
    expect(hook.statusCode).toBe(405);
    expect(hook.headers.allow).toBe('POST');
    expect(hook.json().error).toMatchObject({ type: 'MethodNotAllowedError', field: 'method', accepted: ['POST'] });
    expect(hook.json().error.message).toBe('GET is not allowed on /api/hooks/memory_pressure: use POST');
    const health = await a.inject({ method: 'POST', url: '/health', payload: {} });
    expect(health.statusCode).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
    const mcp = await a.inject({ method: 'PUT', url: '/mcp', payload: {} });
    expect(mcp.statusCode).toBe(405);
    expect(mcp.headers.allow).toBe('GET, POST, DELETE');
    // HEAD was offered in Allow, and then answered 405 by the SDK's transport (or 400 without a session).
    const head = await a.inject({ method: 'HEAD', url: '/mcp', headers: { 'mcp-session-id': 'x' } });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET, POST, DELETE');
    expect((await a.inject({ method: 'HEAD', url: '/mcp' })).statusCode).toBe(405);
    expect((await a.inject({ method: 'DELETE', url: '/api/tools/echo_say' })).headers.allow).toBe('POST');
    expect((await a.inject({ method: 'POST', url: '/api/nothing/here', payload: {} })).statusCode).toBe(404);
    await a.close();
  });

  it('POST /api/hooks/:event dispatches, and an unknown event is a 400 naming ValueError', async () => {
    const a = await app();
    const ok = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', payload: { payload: {}, layer: 'agent', user_id: 'u1' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ event: 'memory_pressure', layer: 'agent', user_id: 'u1', results: { 'echo-plugin': { echoed: true } } });
    const empty = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure' });
    expect(empty.statusCode).toBe(200);
    const bad = await a.inject({ method: 'POST', url: '/api/hooks/not_an_event', payload: {} });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ type: 'ValueError', field: 'event' });
    const badLayer = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', payload: { layer: 'robot' } });
    expect(badLayer.statusCode).toBe(400);
    expect(badLayer.json().error.field).toBe('layer');
    const noSummary = await a.inject({ method: 'POST', url: '/api/hooks/session_ended', payload: { payload: { summary: 7 } } });
    expect(noSummary.statusCode).toBe(400);
    expect(noSummary.json().error).toMatchObject({ type: 'ValidationError', field: 'payload.summary' });
    const badTopics = await a.inject({ method: 'POST', url: '/api/hooks/session_ended', payload: { payload: { summary: 'x', topics: 'a' } } });
    expect(badTopics.statusCode).toBe(400);
    expect(badTopics.json().error).toMatchObject({ type: 'ValidationError', field: 'payload.topics', accepted: 'list of strings' });
    // As memory_hook refuses them: a null payload, layer or user_id is not taken as left out.
    for (const field of ['payload', 'layer', 'user_id']) {
      const nulled = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', payload: { [field]: null } });
      expect(nulled.statusCode, field).toBe(400);
      expect(nulled.json().error).toMatchObject({ type: 'ValidationError', field });
    }
    // Regression guard, fixed: `user` and `userId` were dropped and the event fired for the default
    // user. Another name of a scope key is refused naming it and the key it meant; others still pass.
    for (const [key, meant] of [['user', 'user_id'], ['userId', 'user_id'], ['layr', 'layer']]) {
      const misnamed = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', payload: { payload: {}, [key]: 'agent' } });
      expect(misnamed.statusCode, key).toBe(400);
      expect(misnamed.json().error, key).toMatchObject({ type: 'ValidationError', field: key });
      expect(misnamed.json().error.message, key).toContain(`is not a key of the hook body; did you mean "${meant}"?`);
    }
    const extra = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', payload: { payload: {}, user_id: 'u2', source: 'cron' } });
    expect(extra.statusCode).toBe(200);
    expect(extra.json()).toMatchObject({ user_id: 'u2' });
    await a.close();
  });

  it('/mcp speaks streamable HTTP with sessions to the SDK client; foreign origins are refused', async () => {
    const a = await app();
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const { client, transport } = await mcpClient(address);
    expect(transport.sessionId).toBeTruthy();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo_say']);
    const res: any = await client.callTool({ name: 'echo_say', arguments: { text: 'over http' } });
    expect(res.structuredContent).toEqual({ text: 'over http', mood: 'calm' });
    await client.close();
    const foreign = await fetch(`${address}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(foreign.status).toBe(403);
    const noSession = await fetch(`${address}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(noSession.status).toBe(400);
    await a.close();
  });

  it('refuses a body that is not UTF-8 or names another charset, and a foreign origin on every route', async () => {
    const a = await app(true);
    const json = { 'content-type': 'application/json' };
    const bytes = Buffer.concat([Buffer.from('{"text":"delta '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' eps"}')]);
    const notUtf8 = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: json, payload: bytes });
    expect(notUtf8.statusCode).toBe(400);
    expect(notUtf8.json().error.message).toMatch(/not valid UTF-8/);
    const latin1 = await a.inject({ method: 'POST', url: '/api/hooks/memory_pressure', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, payload: Buffer.from('{"payload":{"note":"caf\xe9"}}', 'latin1') });
    expect(latin1.statusCode).toBe(415);
    const utf8 = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { 'content-type': 'application/json; charset=UTF-8' }, payload: '{"text":"café ☕"}' });
    expect(utf8.json()).toEqual({ result: { text: 'café ☕', mood: 'calm' } });
    // A __proto__ key is refused by the kernel, naming it (the body is valid JSON: fastify's parse said it was not).
    const proto = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: json, payload: '{"__proto__":{"x":1},"text":"a"}' });
    expect(proto.statusCode).toBe(400);
    expect(proto.json().error).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: '__proto__', message: expect.stringContaining('"__proto__" is not accepted as a key') });
    for (const url of ['/api/tools/echo_say', '/api/hooks/memory_pressure']) {
      const foreign = await a.inject({ method: 'POST', url, headers: { ...json, origin: 'https://evil.example' }, payload: '{"text":"x"}' });
      expect(foreign.statusCode, url).toBe(403);
    }
    const local = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { ...json, origin: 'http://localhost:5173' }, payload: '{"text":"x"}' });
    expect(local.statusCode).toBe(200);
    // Listening on loopback, a request made to another name (DNS rebinding: Host and Origin alike) is refused.
    const rebound = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { ...json, host: 'evil.example', origin: 'http://evil.example' }, payload: '{"text":"x"}' });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json().error.message).toMatch(/Host evil\.example is not allowed/);
    for (const host of ['localhost:8080', '127.0.0.1', '[::1]:3000']) {
      expect((await a.inject({ url: '/alive', headers: { host } })).statusCode, host).toBe(200);
    }
    await a.close();
  });

  it("refuses what fastify refuses (too large, wrong type, bad URL) in the kernel's error shape, saying what is accepted", async () => {
    const a = await app(true, { bodyLimit: 1024 });
    const big = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ text: 'x'.repeat(2000) }) });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'body', accepted: { max: 1024 }, message: 'The body is larger than 1024 bytes' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const other = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { 'content-type': type }, payload: 'text=x' });
      expect(other.statusCode, type).toBe(415);
      expect(other.json().error, type).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'content-type', accepted: 'application/json' });
    }
    const notJson = await a.inject({ method: 'POST', url: '/api/tools/echo_say', headers: { 'content-type': 'application/json' }, payload: '{"text":' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'body' });
    const badUrl = await a.inject({ method: 'POST', url: '/api/tools/%ZZ', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json().error).toMatchObject({ code: 'KERNEL_ERR_VALIDATION', field: 'url' });
    await a.close();
  });

  it("answers a request Node cannot read in the kernel's error shape, naming what was wrong", async () => {
    const a = await app(true);
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    /** The answer to `text` sent as is on a new connection. */
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        let out = '';
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
        socket.on('data', (d) => (out += d));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(out));
      });
    // fastify's default answered {"error":"Bad Request","message":"Client Error","statusCode":400}.
    for (const [text, status, field] of [
      ['POST /api/tools/echo_say HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}', 400, 'content-length'],
      ['POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400, 'transfer-encoding'],
      [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'headers'],
    ] as const) {
      const answer = await raw(text);
      expect(answer.split('\r\n')[0], field).toBe(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`);
      const error = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error;
      expect(error, field).toMatchObject({ type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', field });
      expect(error.message, field).not.toBe('Client Error');
    }
    // A body still being read and dropped after its 413 that then times out gets no second answer on the same connection.
    const sockets: net.Socket[] = [];
    a.server.on('connection', (s: net.Socket) => sockets.push(s));
    const big = new Promise<string>((resolve) => {
      let out = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('POST /api/tools/echo_say HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n{"text":"'));
      socket.on('data', (d) => {
        out += d;
        if (out.includes('}}}')) a.server.emit('clientError', Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), sockets.at(-1));
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(out));
    });
    const answer = await big;
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect((await fetch(`${address}/alive`)).status).toBe(200);
    await a.close();
  });

  it('/mcp answers a tools/call with malformed params with invalid params, as stdio does', async () => {
    const a = await app();
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const { client, transport } = await mcpClient(address);
    const post = (body: unknown) =>
      fetch(`${address}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify(body),
      });
    for (const [params, pattern] of [
      [{ name: 5 }, /params\.name must be a string/],
      [{ name: 'echo_say', arguments: [1] }, /params\.arguments must be an object/],
      [undefined, /params must be an object/],
    ] as const) {
      const res = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', ...(params === undefined ? {} : { params }) });
      const text = await res.text();
      const answer = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
      expect(answer.id).toBe(7);
      expect(answer.error.code, JSON.stringify(params)).toBe(-32602);
      expect(answer.error.message).toMatch(pattern);
    }
    const ok: any = await client.callTool({ name: 'echo_say', arguments: { text: 'still here' } });
    expect(ok.structuredContent.text).toBe('still here');
    await client.close();
    await a.close();
  });

  it('/mcp refuses a request whose id a request of the session still running has, instead of leaving that one unanswered', async () => {
    const a = await appWith('wait', false);
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const post = await rawSession(address);
    const call = (id: unknown, ms: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait_for', arguments: { ms } } });
    const first = post(call(1, 400));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The second took the first's route: the first's response stayed open for ever.
    const again = await post(call(1, 0));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringMatching(/id 1 is already the id of a request of this session not yet answered/) } });
    const twice = await post([call('b', 0), call('b', 0)]);
    expect(twice.status).toBe(400);
    expect((await bodyOf(twice)).error.message).toMatch(/id "b"/);
    // "1" is another id than 1; the first is answered, and its id is free again once it is.
    expect(messagesOf(await (await post(call('1', 0))).text())).toMatchObject([{ id: '1', result: { structuredContent: { waited: 0 } } }]);
    expect(messagesOf(await (await first).text())).toMatchObject([{ id: 1, result: { structuredContent: { waited: 400 } } }]);
    expect(messagesOf(await (await post(call(1, 0))).text())).toMatchObject([{ id: 1, result: { structuredContent: { waited: 0 } } }]);
    // Ids of a body the transport refused (here: a batch with a malformed member) are not kept.
    expect((await post([call(2, 0), { jsonrpc: '2.0', id: 3, method: 5 }])).status).toBe(400);
    expect(messagesOf(await (await post(call(2, 0))).text())).toMatchObject([{ id: 2, result: { structuredContent: { waited: 0 } } }]);
    await a.close();
  });

  it('/mcp names the member of a JSON-RPC message it refuses, with its id when it has one, as stdio does', async () => {
    const a = await app();
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const post = await rawSession(address);
    // Each was answered -32700 "Parse error: Invalid JSON-RPC message" with id null, naming nothing.
    for (const [body, id, code, pattern] of [
      [{ jsonrpc: '2.0', id: 4, method: 'ping', params: 5 }, 4, -32602, /^Invalid params: params: .*expected object/],
      [{ jsonrpc: '2.0', id: 'x', method: 'ping', extra: 1 }, 'x', -32600, /^Invalid Request: extra: /],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, -32600, /^Invalid Request: id: must be a string or an integer$/],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null, -32600, /^Invalid Request: id: must be a string or an integer$/],
      [{ jsonrpc: '2.0', method: 7 }, null, -32600, /^Invalid Request: method: /],
      [[{ jsonrpc: '2.0', id: 6, method: 'ping' }, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: 5 } }], 7, -32602, /^Invalid params: \[1\]\.params\._meta: /],
      [[{ jsonrpc: '2.0', id: 8, method: 'ping' }, 5], null, -32600, /^Invalid Request: \[1\] must be a JSON-RPC 2\.0 message object/],
      [{ id: 9, method: 'ping' }, 9, -32600, /must be a JSON-RPC 2\.0 message object with "jsonrpc": "2\.0", or a batch/],
      [[], null, -32600, /the batch is empty/],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = await bodyOf(res);
      expect(answer, JSON.stringify(body)).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
      expect(answer.error.message, JSON.stringify(body)).toMatch(pattern);
    }
    // Without a session, an initialize with params an initialize does not take was told to send initialize first.
    const init = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 5 } }) });
    expect(init.status).toBe(400);
    const answer = await bodyOf(init);
    expect(answer).toMatchObject({ id: 0, error: { code: -32602 } });
    expect(answer.error.message).toMatch(/^Invalid params: params\.protocolVersion: /);
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const batched = await fetch(`${address}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify([initialize]) });
    expect(batched.status).toBe(400);
    expect((await bodyOf(batched)).error).toEqual({ code: -32600, message: 'Invalid Request: send initialize alone, not in a batch' });
    expect(messagesOf(await (await post({ jsonrpc: '2.0', id: 10, method: 'ping' })).text())).toMatchObject([{ id: 10, result: {} }]);
    await a.close();
  });

  // Regression guard, fixed: the SDK sends nothing for a cancelled request and its transport ends a POST's event stream only
  // once every request in it is answered, so a cancelled call's response stayed open for ever.
  it('/mcp ends a cancelled call\'s response with an error for its id, and the id is free again', async () => {
    const a = await appWith('wait', false);
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const post = await rawSession(address);
    const started = Date.now();
    const call = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait_for', arguments: { ms: 3_000 } } });
    const cancel = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'no longer needed' } });
    expect(cancel.status).toBe(202);
    expect(messagesOf(await call.text())).toMatchObject([{ id: 5, error: { code: -32800, message: expect.stringMatching(/^Request cancelled/) } }]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(messagesOf(await (await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait_for', arguments: { ms: 0 } } })).text())).toMatchObject([
      { id: 5, result: { structuredContent: { waited: 0 } } },
    ]);
    // A cancellation of a call already answered, or of an id never sent, changes nothing.
    expect((await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } })).status).toBe(202);
    expect((await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never' } })).status).toBe(202);
    await a.close();
  });

  // Regression guard, fixed: fastify bounds preClose by pluginTimeout (10 s by default), which fired before the default
  // drain ended: the close failed, the requests still running got no answer and the database was not closed.
  it('lets the stop\'s drain run to its end: fastify\'s hook bound is longer than drainMs', async () => {
    const a = await app();
    expect(a.initialConfig.pluginTimeout).toBeGreaterThan(DRAIN_MS + 1_000);
    await a.close();
  });

  it('closing waits for the requests received, refuses new ones with a 503, and answers those still running after drainMs with an error', async () => {
    const a = await appWith('wait', false, { drainMs: 600 });
    const address = await a.listen({ host: '127.0.0.1', port: 0 });
    const post = await rawSession(address);
    const call = (id: number, ms: number) => post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait_for', arguments: { ms } } });
    // Both are received (their event streams are open) before the close starts.
    const [short, long] = await Promise.all([call(1, 300), call(2, 2_000)]);
    const started = Date.now();
    const closed = a.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const late = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait_for', arguments: { ms: 0 } } });
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/stopping.*not run/) } });
    const health = await fetch(`${address}/health`);
    expect(health.status).toBe(503);
    expect((await bodyOf(health)).error).toMatchObject({ code: 'KERNEL_ERR_CLOSED' });
    // The one that finishes within drainMs is answered; the other is answered with an error naming its id.
    expect(messagesOf(await short.text())).toMatchObject([{ id: 1, result: { structuredContent: { waited: 300 } } }]);
    expect(messagesOf(await long.text())).toMatchObject([{ id: 2, error: { code: -32000, message: expect.stringMatching(/stopped before this request was answered/) } }]);
    await closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('--dashboard serves the page and reaches every tool', async () => {
    const a = await app(true);
    const page = await a.inject({ url: '/dashboard' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Memory service</title>');
    const tools = await a.inject({ url: '/api/tools' });
    expect(tools.json().tools.map((t: any) => t.name)).toEqual(['echo_say']);
    const call = await a.inject({ method: 'POST', url: '/api/tools/echo_say', payload: { text: 'x', mood: 'loud' } });
    expect(call.json()).toEqual({ result: { text: 'X', mood: 'loud' } });
    const unknown = await a.inject({ method: 'POST', url: '/api/tools/echo_shout', payload: {} });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ code: 'KERNEL_ERR_TOOL_UNKNOWN', field: 'name', accepted: ['echo_say'] });
    const bad = await a.inject({ method: 'POST', url: '/api/tools/echo_say', payload: { mood: 'loud' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('text');
    await a.close();
  });
});

describe('shutdown', () => {
  it('SIGTERM stops the HTTP server and exits 0', async () => {
    const child = spawn(process.execPath, [BIN, '--transport', 'http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: tempDir() },
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('listening on')) resolve();
      });
      child.on('exit', () => reject(new Error(stderr)));
    });
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(stderr).toMatch(/stopping \(SIGTERM\)/);
  });

  it('SIGTERM with tools/call requests in flight answers each one (run and kept, or refused with a 503), resets none, and exits 0', async () => {
    const dir = tempDir();
    const { child, address } = await spawnHttpBin(dir);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    const post = await rawSession(address);
    const words = ['amberline', 'basaltic', 'cedarwood', 'dahlias', 'emberglow', 'fjordland', 'garnets', 'harborside'];
    const calls = words.map((word, i) =>
      post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'think', arguments: { text: `The ${word} project ships its release notes on Fridays.`, layer: 'user' } } }),
    );
    // SIGTERM as soon as the first call is being answered: the others are queued behind it.
    await Promise.race(calls);
    child.kill('SIGTERM');
    const answers = await Promise.all(
      calls.map((c) =>
        c.then(
          async (res) => ({ status: res.status, messages: messagesOf(await res.text()) }),
          (err: any) => ({ status: 0, messages: [], failure: String(err?.cause?.code ?? err) }),
        ),
      ),
    );
    expect(await exited).toBe(0);
    const kept: string[] = [];
    answers.forEach((a, i) => {
      expect(a, words[i]).not.toHaveProperty('failure');
      const [m] = a.messages;
      expect(m.id ?? null, words[i]).toBe(a.status === 503 ? null : i + 1);
      if (m.result) {
        expect(a.status).toBe(200);
        expect(m.result.isError, words[i]).toBeFalsy();
        kept.push(words[i]!);
      } else {
        expect(a.status, words[i]).toBe(503);
        expect(m.error).toMatchObject({ code: -32000, message: expect.stringMatching(/server is stopping/) });
      }
    });
    expect(kept.length).toBeGreaterThan(0);
    // What was answered as done is in the database after a restart.
    const again = await stdioClient({ MCP_MEMORY_DATA_DIR: dir });
    try {
      for (const word of kept) {
        const found: any = await again.client.callTool({ name: 'dream', arguments: { query: word } });
        expect(found.structuredContent.summary, word).toContain(`The ${word} project`);
      }
    } finally {
      await again.close();
    }
  });

  it('a body over the limit is answered 413 to a client still sending it, not reset, and the server goes on', async () => {
    const { child, address } = await spawnHttpBin(tempDir(), ['--dashboard']);
    try {
      // The connection was closed with the body unread: Node's fetch (the MCP SDK client's) got EPIPE, not the 413.
      for (const url of ['/mcp', '/api/tools/dream', '/api/hooks/new_message', '/mcp']) {
        const res = await fetch(`${address}${url}`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ text: 'x'.repeat(5_000_000) }) });
        expect(res.status, url).toBe(413);
        expect((await bodyOf(res)).error, url).toMatchObject({ field: 'body', accepted: { max: 4 * 1024 * 1024 } });
      }
      expect((await fetch(`${address}/alive`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('a port already in use stops the start with a message naming --port, and exit 1', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const dir = tempDir();
      const res = await runBin(['--transport', 'http', '--port', String(port)], { MCP_MEMORY_DATA_DIR: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`memory-service: cannot listen on 127.0.0.1:${port}: the port is in use (--port)`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      // The data dir was closed cleanly: a server on it starts and answers.
      const again = await stdioClient({ MCP_MEMORY_DATA_DIR: dir });
      const res2: any = await again.client.callTool({ name: 'think', arguments: { text: 'The port was taken.', layer: 'user' } });
      await again.close();
      expect(res2.isError).toBeFalsy();
    } finally {
      taken.close();
    }
  });
});

describe('HTTP status of a coded error', () => {
  // Regression guard, fixed: a full disk or a deleted memory.db answered 400, which tells a client its request was wrong.
  it('answers 503 for a storage failure and a closing server, 404 for what is not there, 500 for a tool failure, 400 otherwise', () => {
    const status = (code: string) => statusFor(new MemoryError(code as never, 'x'));
    expect(status('KERNEL_ERR_STORAGE')).toBe(503);
    expect(status('KERNEL_ERR_CLOSED')).toBe(503);
    expect(status('KERNEL_ERR_BUSY')).toBe(503);
    expect(status('KERNEL_ERR_NOT_FOUND')).toBe(404);
    expect(status('KERNEL_ERR_TOOL_FAILED')).toBe(500);
    expect(status('KERNEL_ERR_VALIDATION')).toBe(400);
  });
});

describe('a write that waits for another process\'s write lock', () => {
  // Regression guard, fixed (audit-o finding 4): it answered 500 KERNEL_ERR_TOOL_FAILED "database is locked".
  it('answers 503 with Retry-After and a KERNEL_ERR_BUSY saying another process holds the write lock and to try again', async () => {
    const dir = tempDir();
    const service = await createService({ dataDir: dir, env: { MEMORY_EXPOSE: 'primitives' }, logger: silentLogger() });
    const a = await buildHttpApp(service, { host: '127.0.0.1', port: 0, dashboard: true });
    const other = openSqlite(path.join(dir, 'memory.db'));
    try {
      service.kernel.storage.db.pragma('busy_timeout = 100');
      other.exec('BEGIN IMMEDIATE');
      const res = await a.inject({ method: 'POST', url: '/api/tools/think', headers: { 'content-type': 'application/json' }, payload: { text: 'written while another process imports' } });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      const { error } = res.json();
      expect(error).toMatchObject({ code: 'KERNEL_ERR_BUSY', type: 'BusyError' });
      expect(error.message).toContain('another process holds its write lock');
      expect(error.message).toContain('Try again later');
      other.exec('ROLLBACK');
      expect((await a.inject({ method: 'POST', url: '/api/tools/think', headers: { 'content-type': 'application/json' }, payload: { text: 'written once the lock is free' } })).statusCode).toBe(200);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await a.close();
      await service.close();
    }
  });
});
