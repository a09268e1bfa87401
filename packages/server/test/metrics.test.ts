import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLogger } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpApp } from '../src/http.js';
import { serveStdio } from '../src/serve.js';
import { createService, type Service } from '../src/service.js';
import { tempDir } from './helpers.js';

const services: Service[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  await Promise.all(services.splice(0).map((s) => s.close()));
});

/** A clock the test moves (the replica's freshness is read by it). */
const clock = { t: Date.now(), now() { return this.t; } };

/** The first-party service (the stores register record counts, breakers and API keys), every tool exposed. */
async function service(env: Record<string, string> = {}): Promise<Service> {
  const s = await createService({ dataDir: tempDir(), env: { MEMORY_EXPOSE: 'all', ...env }, logger: silentLogger(), clock });
  services.push(s);
  return s;
}

/** The app listening on a free port of 127.0.0.1; answers its address. */
async function listening(s: Service): Promise<string> {
  const app = await buildHttpApp(s, { host: '127.0.0.1', port: 0, dashboard: false });
  closers.push(() => app.close());
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/** An SDK client over streamable HTTP at `address`/mcp, with the given headers. */
async function mcpClient(address: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers } }));
  closers.unshift(() => client.close());
  return client;
}

/** GET /metrics: its status, content type and samples by series (`name{labels}` -> value). */
async function scrape(address: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${address}/metrics`, { headers });
  const text = await res.text();
  const samples = new Map<string, number>();
  if (res.status === 200) {
    expect(text.endsWith('\n')).toBe(true);
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const at = line.lastIndexOf(' ');
      samples.set(line.slice(0, at), Number(line.slice(at + 1).replace('+Inf', 'Infinity')));
    }
  }
  return { status: res.status, type: res.headers.get('content-type'), text, samples };
}

const records = (m: Map<string, number>, kind: string, layer = 'user') => m.get(`memory_service_records{kind="${kind}",layer="${layer}"}`);

describe('GET /metrics over HTTP', () => {
  it('answers the Prometheus text format and counts a tool call made over /mcp, answered and failed', async () => {
    const address = await listening(await service());
    const before = await scrape(address);
    expect(before.status).toBe(200);
    expect(before.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(before.text).toContain('# TYPE memory_service_tool_calls_total counter\n');
    expect(before.text).toContain('# TYPE memory_service_tool_call_duration_seconds histogram\n');
    expect(before.samples.get('memory_service_info{version="1.8.0"}')).toBe(1);
    expect(before.samples.get('memory_service_uptime_seconds')).toBeGreaterThanOrEqual(0);
    expect(before.samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(before.samples.get('nodejs_heap_used_bytes')).toBeGreaterThan(0);
    expect(before.samples.has('memory_service_tool_calls_total{tool="think",outcome="ok"}')).toBe(false);

    const client = await mcpClient(address);
    const ok = await client.callTool({ name: 'think', arguments: { text: 'The metrics route counts this thought', layer: 'user' } });
    expect(ok.isError).toBeFalsy();
    const bad = await client.callTool({ name: 'think', arguments: { text: '' } });
    expect(bad.isError).toBe(true);

    const after = (await scrape(address)).samples;
    expect(after.get('memory_service_tool_calls_total{tool="think",outcome="ok"}')).toBe(1);
    expect(after.get('memory_service_tool_calls_total{tool="think",outcome="error"}')).toBe(1);
    expect(after.get('memory_service_tool_call_duration_seconds_count{tool="think"}')).toBe(2);
    expect(after.get('memory_service_tool_call_duration_seconds_bucket{tool="think",le="+Inf"}')).toBe(2);
    expect(after.get('memory_service_tool_call_duration_seconds_sum{tool="think"}')).toBeGreaterThan(0);
    // The thought is counted in the live database (no replica yet), and every breaker is closed.
    expect(after.get('memory_service_records_readable')).toBe(1);
    expect(after.get('memory_service_records_from_replica')).toBe(0);
    expect(after.has('memory_service_replica_age_seconds')).toBe(false);
    const stored = [...after].filter(([k]) => k.startsWith('memory_service_records{')).reduce((n, [, v]) => n + v, 0);
    expect(stored).toBeGreaterThan(0);
    expect(after.get('memory_service_breaker_open{breaker="deferred_writes"}')).toBe(0);
  });

  it('is open while no API key exists; once one does, 401 without it, 403 with a wrong one, 200 with it', async () => {
    const s = await service();
    const address = await listening(s);
    expect((await scrape(address)).status).toBe(200);
    const { key } = ((await s.kernel.callTool('memory_api_key', { action: 'create', name: 'prometheus' })) as { created: { key: string } }).created;
    const none = await scrape(address);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error).toMatchObject({ type: 'AuthenticationError', field: 'authorization' });
    expect((await scrape(address, { authorization: 'Bearer msk_wrong_key' })).status).toBe(403);
    const ok = await scrape(address, { authorization: `Bearer ${key}` });
    expect(ok.status).toBe(200);
    expect(ok.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    // The key creation itself was a tool call.
    expect(ok.samples.get('memory_service_tool_calls_total{tool="memory_api_key",outcome="ok"}')).toBe(1);
  });

  it('reads record counts from a fresh replica (memory_sync_replica), and from the live database once it is older than 300 s', async () => {
    const s = await service();
    const address = await listening(s);
    const client = await mcpClient(address);
    await client.callTool({ name: 'memory_remember', arguments: { key: 'first', value: 'synced into the replica', layer: 'user' } });
    const live = (await scrape(address)).samples;
    expect(live.get('memory_service_records_from_replica')).toBe(0);
    const factsBefore = records(live, 'facts')!;
    expect(factsBefore).toBeGreaterThan(0);

    const sync = await client.callTool({ name: 'memory_sync_replica', arguments: { action: 'sync' } });
    expect(sync.isError).toBeFalsy();
    expect((sync.structuredContent as { rows: { facts: number } }).rows.facts).toBe(factsBefore);
    // Written after the sync: the live database has it, the replica does not.
    await client.callTool({ name: 'memory_remember', arguments: { key: 'second', value: 'after the sync', layer: 'user' } });
    clock.t += 120_000;

    const fromReplica = (await scrape(address)).samples;
    expect(fromReplica.get('memory_service_records_from_replica')).toBe(1);
    expect(fromReplica.get('memory_service_replica_age_seconds')).toBe(120);
    expect(records(fromReplica, 'facts')).toBe(factsBefore);

    clock.t += 181_000;
    const stale = (await scrape(address)).samples;
    expect(stale.get('memory_service_records_from_replica')).toBe(0);
    expect(stale.get('memory_service_replica_age_seconds')).toBe(301);
    expect(records(stale, 'facts')).toBe(factsBefore + 1);
  });

  it('counts the calls made over stdio in the same process (the kernel counts, whatever the transport)', async () => {
    const s = await service();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answers: unknown[] = [];
    let rest = '';
    stdout.on('data', (d: Buffer) => {
      rest += d.toString('utf8');
      for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
        answers.push(JSON.parse(rest.slice(0, nl)));
        rest = rest.slice(nl + 1);
      }
    });
    const serving = await serveStdio(s, { stdin, stdout });
    closers.push(() => serving.close());
    const send = (m: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'dream', arguments: { query: 'anything', layer: 'user' } } });
    await expect.poll(() => answers.some((a) => (a as { id?: number }).id === 2)).toBe(true);

    const address = await listening(s);
    const m = (await scrape(address)).samples;
    expect(m.get('memory_service_tool_calls_total{tool="dream",outcome="ok"}')).toBe(1);
    expect(m.get('memory_service_tool_call_duration_seconds_count{tool="dream"}')).toBe(1);
  });

  it("counts the catalogue's calls and a dispatcher's list under their own names, a member called through a dispatcher under its own", async () => {
    const address = await listening(await service({ MEMORY_META: '1' }));
    const client = await mcpClient(address);
    expect((await client.callTool({ name: 'memory_catalog', arguments: { query: 'graph' } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'memory_catalog', arguments: { query: 5 } })).isError).toBe(true);
    expect((await client.callTool({ name: 'memory_tier_insight', arguments: { action: 'list' } })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'memory_tier_insight', arguments: { action: 'memory_stats', args: { layer: 'user' } } })).isError).toBeFalsy();
    const m = (await scrape(address)).samples;
    expect(m.get('memory_service_tool_calls_total{tool="memory_catalog",outcome="ok"}')).toBe(1);
    expect(m.get('memory_service_tool_calls_total{tool="memory_catalog",outcome="error"}')).toBe(1);
    expect(m.get('memory_service_tool_call_duration_seconds_count{tool="memory_catalog"}')).toBe(2);
    expect(m.get('memory_service_tool_calls_total{tool="memory_tier_insight",outcome="ok"}')).toBe(1);
    expect(m.get('memory_service_tool_calls_total{tool="memory_stats",outcome="ok"}')).toBe(1);
  });
});
