import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@memory-service/kernel';
import { createService } from '../src/service.js';
import { BIN, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A data dir holding `n` facts of about 2.5 KB of non-Latin-1 text each (a 12 MB export for 4000). */
async function seeded(n: number): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const service = await createService({ dataDir: dir, env: {}, logger: silentLogger() });
  const stores = service.kernel.container.resolve<any>('stores');
  stores.ctx.tx(() => {
    for (let i = 0; i < n; i++) stores.facts.upsert({ layer: 'user', user_id: 'default' }, { key: `k${i}`, value: `memory ${i} ${'lorem ipsum dolor café ☕ '.repeat(100)}` });
  });
  await service.close();
  return dir;
}

/** Run the bin with a 32 MB heap, export once, and answer the export's result and how the process ended. */
function exportWithSmallHeap(dir: string, toFile: boolean): Promise<{ result: any; code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=32', BIN], { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MCP_MEMORY_DATA_DIR: dir, MEMORY_EXPOSE: 'all' } });
    let out = '';
    let stderr = '';
    let result: any;
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n').slice(0, -1)) {
        const m = JSON.parse(line);
        if (m.id === 2) {
          result = m.result;
          child.stdin.end();
        }
      }
      out = out.slice(out.lastIndexOf('\n') + 1);
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => resolve({ result, code, signal, stderr }));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'heap', version: '1' } } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'memory_data', arguments: { action: 'export', to_file: toFile } } });
  });
}

describe('memory_data export with a small heap', () => {
  // Regression guard, fixed: the export built the whole document as one string (twice) before
  // applying the inline limit, and the process aborted, out of memory.
  it('answers both an inline export past the limit and one to a file, each as a file, and the process goes on', async () => {
    const dir = await seeded(4000);
    for (const toFile of [false, true]) {
      const run = await exportWithSmallHeap(dir, toFile);
      expect(run.signal, run.stderr.slice(-500)).toBeNull();
      expect(run.code).toBe(0);
      const answer = run.result.structuredContent;
      expect(answer).toMatchObject({ action: 'export', counts: { facts: 4000 } });
      expect(answer.data).toBeUndefined();
      const file = path.join(dir, 'exports', answer.file);
      expect(fs.statSync(file).size).toBe(answer.bytes);
      expect(answer.bytes).toBeGreaterThan(10_000_000);
    }
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'exports', fs.readdirSync(path.join(dir, 'exports'))[0]!), 'utf8'));
    expect(doc.facts).toHaveLength(4000);
    expect(doc.facts[3999].value).toContain('café ☕');
    expect(fs.readdirSync(path.join(dir, 'exports')).every((f) => f.endsWith('.json'))).toBe(true);
  }, 120_000);
});
