import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioClient, tempDir } from './helpers.js';

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('two server processes on one data dir', () => {
  it('lose no write: every thought is recallable from either process and the L1 file holds them all', async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, 'config.yaml'), 'l1:\n  size: 200\n');
    const a = await stdioClient({ MCP_MEMORY_DATA_DIR: dataDir });
    open.push(a);
    const b = await stdioClient({ MCP_MEMORY_DATA_DIR: dataDir });
    open.push(b);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      const client = i % 2 === 0 ? a.client : b.client;
      writes.push(
        client.callTool({ name: 'think', arguments: { text: `Shared ledger entry number ${i} records the parcel zx${i}q delivered to the depot.`, layer: 'user' } }),
      );
    }
    const results: any[] = await Promise.all(writes);
    expect(results.every((r) => !r.isError)).toBe(true);
    for (const i of [0, 1, 17, 38, 39]) {
      for (const c of [a, b]) {
        const found: any = await c.client.callTool({ name: 'dream', arguments: { query: `parcel zx${i}q`, limit: 3 } });
        // The best hit's text is the summary's first section.
        expect(found.structuredContent.result_count).toBeGreaterThan(0);
        expect(found.structuredContent.summary.split('\n\n')[0]).toContain(`number ${i} `);
      }
    }
    await a.close();
    await b.close();
    open.splice(0);
    const ring = JSON.parse(fs.readFileSync(path.join(dataDir, 'l1', 'user', 'default.json'), 'utf8'));
    const texts: string[] = ring.items.map((i: { text: string }) => i.text);
    for (let i = 0; i < 40; i++) expect(texts.some((t) => t.includes(`number ${i} `))).toBe(true);
  });
});
