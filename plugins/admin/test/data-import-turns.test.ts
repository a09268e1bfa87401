import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { start, storesOf, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await s?.close();
  s = undefined;
});

const U = { layer: 'user' as const, user_id: 'default' };

describe('memory_data import gives the event loop a turn between its stalls (in-process MCP client)', () => {
  it('after the file is parsed and after the document is checked, work waiting on the event loop runs before the next step', async () => {
    s = await start();
    const st = storesOf(s);
    for (let i = 0; i < 5; i++) st.episodes.add(U, { summary: `Episode ${i} of the harbour`, importance: 0.4 });
    const out = await s.call('memory_data', { action: 'export', to_file: true });
    fs.copyFileSync(path.join(s.dataDir, 'exports', out.file), path.join(s.dataDir, 'exports', 'doc.json'));
    const sd = st.scopeData;
    const steps: string[] = [];
    // Each step queues a macrotask (what another client's request is): it runs at the next turn of the event loop.
    const queued = (name: string) => setImmediate(() => steps.push(`${name} waited`));
    const read = sd.readFileAsync.bind(sd);
    vi.spyOn(sd, 'readFileAsync').mockImplementation(async (name, field) => {
      const doc = await read(name, field);
      steps.push('parsed');
      queued('parsed');
      return doc;
    });
    const check = sd.check.bind(sd);
    vi.spyOn(sd, 'check').mockImplementation((input, root) => {
      // importScope asks again, and is answered the checked document as it is: only the first check counts.
      if (steps.includes('checked')) return check(input, root);
      steps.push('checked');
      const doc = check(input, root);
      queued('checked');
      return doc;
    });
    const write = sd.importScope.bind(sd);
    vi.spyOn(sd, 'importScope').mockImplementation((...args) => {
      steps.push('written');
      return write(...args);
    });
    const r = await s.call('memory_data', { action: 'import', file: 'doc.json', user_id: 'target', mode: 'replace' });
    expect(r.imported.episodes).toBe(5);
    expect(steps).toEqual(['parsed', 'parsed waited', 'checked', 'checked waited', 'written']);
  });
});
