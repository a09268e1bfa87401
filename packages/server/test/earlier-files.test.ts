import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioClient, tempDir } from './helpers.js';

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const l1File = (dir: string) => path.join(dir, 'l1', 'user', 'default.json');

// Regression guard, fixed: with memory.db lost or emptied, the server started on a new, empty
// database without a word, and 250 ms later rewrote each L1 file from its empty ring: the last copy
// of those turns was gone.
describe('a database made anew beside files of an earlier one', () => {
  it('sets the earlier files aside under earlier-files/, says so on stderr, and a later start leaves files alone', async () => {
    const dir = tempDir();
    const first = await stdioClient({ MCP_MEMORY_DATA_DIR: dir, MEMORY_EXPOSE: 'all' });
    await first.client.callTool({ name: 'think', arguments: { text: 'The boiler was serviced on Tuesday by Ana.' } });
    await first.client.callTool({ name: 'wiki_add', arguments: { title: 'Boiler', content: 'Serviced on Tuesday.', wiki_type: 'diary' } });
    await first.close();
    const earlierL1 = fs.readFileSync(l1File(dir), 'utf8');
    expect(earlierL1).toContain('boiler was serviced');
    for (const f of ['memory.db', 'memory.db-wal', 'memory.db-shm']) fs.rmSync(path.join(dir, f), { force: true });
    fs.writeFileSync(path.join(dir, 'memory.db'), '');

    const second = await stdioClient({ MCP_MEMORY_DATA_DIR: dir, MEMORY_EXPOSE: 'all' });
    open.push(second);
    const listed: any = await second.client.callTool({ name: 'wiki_list', arguments: {} });
    expect(listed.structuredContent.total).toBe(0);
    // Past the start-up repair (250 ms after ready), which rewrote the L1 file before.
    await new Promise((r) => setTimeout(r, 600));
    const [stamp] = fs.readdirSync(path.join(dir, 'earlier-files'));
    const aside = path.join(dir, 'earlier-files', stamp!);
    expect(fs.readFileSync(path.join(aside, 'l1', 'user', 'default.json'), 'utf8')).toBe(earlierL1);
    expect(fs.readdirSync(path.join(aside, 'wiki'), { recursive: true }).map(String)).toContain(path.join('user', 'default', 'diary', 'boiler.md'));
    expect(second.stderr()).toContain(`${path.join(dir, 'memory.db')} was made anew, but the data dir held files written from an earlier database (l1, wiki`);
    expect(second.stderr()).toContain(`moved to ${aside}, nothing deleted`);
    await second.client.callTool({ name: 'think', arguments: { text: 'A new memory after the loss.' } });
    await second.close();
    open.pop();

    // The database is there now: nothing is set aside again.
    const third = await stdioClient({ MCP_MEMORY_DATA_DIR: dir, MEMORY_EXPOSE: 'all' });
    open.push(third);
    await new Promise((r) => setTimeout(r, 600));
    expect(fs.readdirSync(path.join(dir, 'earlier-files'))).toEqual([stamp]);
    expect(fs.readFileSync(l1File(dir), 'utf8')).toContain('A new memory after the loss.');
    expect(third.stderr()).not.toContain('was made anew');
  });
});
