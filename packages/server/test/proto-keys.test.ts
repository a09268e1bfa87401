import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@memory-service/kernel';
import { buildHttpApp } from '../src/http.js';
import { createService, type Service } from '../src/service.js';
import { runBin, tempDir } from './helpers.js';
import { messagesOf, rawSessionHeaders } from './http-helpers.js';

/**
 * A `__proto__` key inside a tool's free JSON arguments is refused the same way over stdio (the
 * calls answered without the SDK and those it answers) and over HTTP (/mcp, /api/tools,
 * /api/hooks): a validation error naming its path. It was dropped without a word under stdio (the
 * call succeeded) and refused as "Body is not valid JSON" over HTTP. The arguments are written as
 * JSON text, since an object literal's __proto__ is no key.
 */
const CALLS: { name: string; args: string; field: string }[] = [
  { name: 'memory_save_typed', args: '{"type":"decision","fields":{"name":"db","decision":"Use SQLite","__proto__":{"polluted":true}}}', field: 'fields.__proto__' },
  { name: 'memory_hook', args: '{"event":"memory_pressure","payload":{"note":{"__proto__":{"polluted":true}}}}', field: 'payload.note.__proto__' },
  { name: 'memory_hook', args: '{"event":"memory_pressure","__proto__":{"polluted":true}}', field: '__proto__' },
  { name: 'memory_session_end', args: '{"summary":"s","state_deltas":[{"__proto__":{"polluted":true}}]}', field: 'state_deltas.0.__proto__' },
];

/** A "constructor" key is an ordinary key, taken on both transports (HTTP refused it as "not valid JSON"). */
const CONSTRUCTOR_CALL = { name: 'memory_hook', args: '{"event":"memory_pressure","payload":{"constructor":{"prototype":{"polluted":true}}}}' };

const call = (id: number, name: string, args: string, progress = false) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},${progress ? `"_meta":{"progressToken":${id}},` : ''}"arguments":${args}}}`;

const toolError = (result: any) => {
  expect(result?.isError, JSON.stringify(result)).toBe(true);
  return JSON.parse(result.content[0].text).error;
};

const services: Service[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function expectRefused(error: any, field: string) {
  expect(error).toMatchObject({ type: 'ValidationError', code: 'KERNEL_ERR_VALIDATION', field, accepted: 'any object key other than "__proto__"' });
  expect(error.message).toContain(`field "${field}"`);
  expect(error.message).toContain('"__proto__" is not accepted as a key');
}

/** Every call of CALLS over stdio, answered without the SDK and (with a progress token) by it: the errors, in order. */
async function overStdio(): Promise<{ direct: any[]; sdk: any[]; constructorCall: any }> {
  const dir = tempDir();
  dirs.push(dir);
  const lines = [
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ...CALLS.map((c, i) => call(100 + i, c.name, c.args)),
    ...CALLS.map((c, i) => call(200 + i, c.name, c.args, true)),
    call(300, CONSTRUCTOR_CALL.name, CONSTRUCTOR_CALL.args),
    // The fact was not saved: a second save of the same type and name is a new one.
    call(301, 'memory_save_typed', '{"type":"decision","fields":{"name":"db","decision":"Use SQLite"}}'),
  ];
  const run = await runBin([], { MCP_MEMORY_DATA_DIR: dir, MEMORY_EXPOSE: 'all' }, `${lines.join('\n')}\n`);
  const answers = new Map<number, any>(run.stdout.split('\n').filter(Boolean).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
  expect(answers.get(301)?.result?.structuredContent?.created_new, run.stderr).toBe(true);
  return {
    direct: CALLS.map((_, i) => toolError(answers.get(100 + i)?.result)),
    sdk: CALLS.map((_, i) => toolError(answers.get(200 + i)?.result)),
    constructorCall: answers.get(300)?.result,
  };
}

describe('a __proto__ key in free JSON arguments', () => {
  it('is refused under stdio, naming its path, whether the SDK answers the call or not', async () => {
    const { direct, sdk, constructorCall } = await overStdio();
    CALLS.forEach((c, i) => expectRefused(direct[i], c.field));
    expect(sdk).toEqual(direct);
    expect(constructorCall.isError).toBeFalsy();
  });

  it('is refused over HTTP with the same error as under stdio, on /mcp, /api/tools and /api/hooks', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const service = await createService({ dataDir: dir, env: { MEMORY_EXPOSE: 'all' }, logger: silentLogger() });
    services.push(service);
    const app = await buildHttpApp(service, { host: '127.0.0.1', port: 0, dashboard: true });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const headers = await rawSessionHeaders(address);
    const post = async (body: string) => {
      const res = await fetch(`${address}/mcp`, { method: 'POST', headers, body });
      expect(res.status, body).toBe(200);
      return messagesOf(await res.text())[0];
    };
    const mcp: any[] = [];
    for (const [i, c] of CALLS.entries()) mcp.push(toolError((await post(call(i + 1, c.name, c.args))).result));
    const { direct } = await overStdio();
    expect(mcp).toEqual(direct);

    const json = { 'content-type': 'application/json' };
    for (const c of CALLS) {
      const res = await app.inject({ method: 'POST', url: `/api/tools/${c.name}`, headers: json, payload: c.args });
      expect(res.statusCode, c.args).toBe(400);
      expectRefused(res.json().error, c.field);
    }
    const hook = await app.inject({ method: 'POST', url: '/api/hooks/memory_pressure', headers: json, payload: '{"payload":{"a":[{"__proto__":{"polluted":true}}]}}' });
    expect(hook.statusCode).toBe(400);
    expectRefused(hook.json().error, 'payload.a.0.__proto__');

    // A "constructor" key is taken as under stdio.
    expect((await post(call(50, CONSTRUCTOR_CALL.name, CONSTRUCTOR_CALL.args))).result.isError).toBeFalsy();
    expect((await app.inject({ method: 'POST', url: '/api/hooks/memory_pressure', headers: json, payload: '{"payload":{"constructor":{"prototype":{"x":1}}}}' })).statusCode).toBe(200);
    // Nothing refused was stored, and no prototype was touched.
    const saved = await post(call(60, 'memory_save_typed', '{"type":"decision","fields":{"name":"db","decision":"Use SQLite"}}'));
    expect(saved.result.structuredContent.created_new).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await app.close();
  }, 30_000);
});
