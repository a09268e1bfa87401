import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '@memory-service/kernel';
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

  it('leave every page file holding the save or delete that committed last, when three save and delete one page at the same moment', async () => {
    const dataDir = tempDir();
    const procs: Awaited<ReturnType<typeof stdioClient>>[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await stdioClient({ MCP_MEMORY_DATA_DIR: dataDir, MEMORY_EXPOSE: 'operator' });
      open.push(c);
      procs.push(c);
    }
    const call = async (i: number, name: string, args: Record<string, unknown>) => {
      const out: any = await procs[i]!.client.callTool({ name, arguments: args });
      if (out.isError) throw new Error(`${name} failed: ${JSON.stringify(out.content)}`);
      return out;
    };
    await call(0, 'wiki_add', { title: 'Race', content: 'init', wiki_type: 'diary' });
    const db = openSqlite(path.join(dataDir, 'memory.db'), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT content FROM wiki_pages WHERE title = ?').pluck();
      const file = path.join(dataDir, 'wiki/user/default/diary/race.md');
      const fileText = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
      // Before the fix a round in four to twenty left the file holding an earlier save (audit-o, finding 1).
      const wrong: string[] = [];
      for (let r = 0; r < 60; r++) {
        await Promise.all(procs.map((_, i) => call(i, 'wiki_add', { title: 'Race', content: `round ${r} from p${i}`, wiki_type: 'diary' })));
        if (fileText() !== row.get('Race')) wrong.push(`save round ${r}: file ${JSON.stringify(fileText())}, row ${JSON.stringify(row.get('Race'))}`);
      }
      // One deletes while two save it again (finding 2): the file exists exactly when the row does, with its text.
      for (let r = 0; r < 40; r++) {
        await call(0, 'wiki_add', { title: 'Race', content: `base ${r}`, wiki_type: 'diary' });
        await Promise.all([
          call(0, 'wiki_delete', { title: 'Race', shadow_bin: false }),
          call(1, 'wiki_add', { title: 'Race', content: `resaved ${r} by p1`, wiki_type: 'diary' }),
          call(2, 'wiki_add', { title: 'Race', content: `resaved ${r} by p2`, wiki_type: 'diary' }),
        ]);
        const now = (row.get('Race') as string | undefined) ?? null;
        if (fileText() !== now) wrong.push(`delete round ${r}: file ${JSON.stringify(fileText())}, row ${JSON.stringify(now)}`);
      }
      expect(wrong).toEqual([]);
    } finally {
      db.close();
    }
  });
});
