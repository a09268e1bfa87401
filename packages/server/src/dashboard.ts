import type { FastifyInstance } from 'fastify';
import { SERVICE_VERSION, toMemoryError } from '@memory-service/kernel';
import { replyError } from './error-status.js';
import type { Service } from './service.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Memory service</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;max-width:70rem;color:#1d2330}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.3rem .5rem;text-align:left;vertical-align:top}
.ok{color:#1b7f3b}.bad{color:#b42318}code{background:#f3f4f8;padding:0 .25rem;border-radius:3px}
</style></head><body>
<h1>Memory service <span id="version"></span></h1>
<p id="status">loading…</p>
<h2>Migrations</h2><table id="migrations"><tr><th>owner</th><th>applied</th><th>head</th></tr></table>
<h2>Tools</h2><p>Every tool is reachable here with <code>POST /api/tools/&lt;name&gt;</code> and a JSON body of its arguments.</p>
<table id="tools"><tr><th>tool</th><th>tiers</th><th>description</th></tr></table>
<script>
async function load(){
  const s = await (await fetch('/api/dashboard/summary')).json();
  document.getElementById('version').textContent = 'v' + s.version;
  const st = document.getElementById('status');
  st.textContent = (s.database.connected ? 'database connected' : 'database unreachable') + ' · up ' + s.uptime_seconds + ' s · ' + s.tools + ' tools, ' + s.exposed + ' exposed over MCP';
  st.className = s.database.connected ? 'ok' : 'bad';
  const mt = document.getElementById('migrations');
  for (const m of s.migrations) { const r = mt.insertRow(); [m.owner, m.applied, m.head].forEach(v => r.insertCell().textContent = v); }
  const t = await (await fetch('/api/tools')).json();
  const tt = document.getElementById('tools');
  for (const x of t.tools) { const r = tt.insertRow(); [x.name, x.tiers.join(', '), x.description].forEach(v => r.insertCell().textContent = v); }
}
load();
</script></body></html>`;

/** --dashboard: a status page and the operator JSON API that reaches every tool. */
export function registerDashboard(app: FastifyInstance, service: Service): void {
  const { kernel } = service;
  app.get('/dashboard', async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/api/dashboard/summary', async () => ({
    version: SERVICE_VERSION,
    uptime_seconds: Math.round((Date.now() - service.startedAt) / 1000),
    database: { connected: kernel.storage.ping() },
    migrations: kernel.storage.status(),
    plugins: kernel.pluginNames,
    tiers: kernel.tiers,
    tools: service.operatorSurface.tools.length,
    exposed: service.surface.tools.length,
  }));
  app.get('/api/tools', async () => ({
    tools: kernel.tools().map((t) => ({ name: t.name, title: t.title, tiers: t.tiers, description: t.description, annotations: t.annotations })),
  }));
  app.post<{ Params: { name: string }; Body: unknown }>('/api/tools/:name', async (req, reply) => {
    const tool = service.operatorSurface.get(req.params.name);
    try {
      if (!tool) return await kernel.callTool(req.params.name, req.body ?? {});
      return { result: await tool.invoke(req.body ?? {}) };
    } catch (err) {
      // The status every /api route answers (statusFor): 503 with Retry-After for a write that waited for another process's write lock.
      return replyError(reply, toMemoryError(err));
    }
  });
}
