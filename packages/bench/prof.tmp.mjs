import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { createService } from '@memory-service/server';
import { silentLogger } from '@memory-service/kernel';
import primitives from '@memory-service/plugin-primitives';
import { TextGenerator } from './dist/textgen.js';
const N = Number(process.argv[2] ?? 10000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-'));
const svc = await createService({ dataDir: dir, plugins: [primitives], env: {}, logger: silentLogger() });
const k = svc.kernel; const g = new TextGenerator(42);
let t = performance.now();
for (let i = 0; i < N; i++) await k.callTool('think', { text: g.nextText(), layer: 'user' });
console.log('preload per item ms', ((performance.now() - t) / N).toFixed(3));
const ms = (f) => { const a=[]; return async (n) => { for (let i=0;i<n;i++){ const s=performance.now(); await f(); a.push(performance.now()-s);} a.sort((x,y)=>x-y); return a[a.length>>1].toFixed(3); }; };
if (process.env.ONLY_DREAM) { const { Session } = await import('node:inspector/promises'); const ses = new Session(); ses.connect(); await ses.post('Profiler.enable'); await ses.post('Profiler.start'); for (let i=0;i<3000;i++) await k.callTool('dream', { query: g.nextQuery(), limit: 10 }); const { profile } = await ses.post('Profiler.stop'); fs.mkdirSync('/tmp/prof',{recursive:true}); fs.writeFileSync('/tmp/prof/dream.cpuprofile', JSON.stringify(profile)); }
console.log('think p50', await ms(() => k.callTool('think', { text: g.nextText(), layer: 'user' }))(300));
console.log('dream p50', await ms(() => k.callTool('dream', { query: g.nextQuery(), limit: 10 }))(300));
await svc.close();
