import { afterEach, describe, expect, it } from 'vitest';
import { start, type TestServer } from './helpers.js';

/** memory_data import with mode replace and the target's L1 ring (recent turns), which the document does not carry. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_data import replace', () => {
  it("clears the target's recent turns: wake_up no longer shows the replaced memory", async () => {
    s = await start();
    await s.call('think', { text: 'Imported memory: the team moved standups to 10am on Mondays.', user_id: 'source' });
    const doc = (await s.call('memory_data', { action: 'export', user_id: 'source' })).data;
    await s.call('think', { text: 'Old secret memory: my bank PIN hint is the cat name Whiskers.', user_id: 'target' });
    expect((await s.call('wake_up', { user_id: 'target' })).brief).toContain('Whiskers');
    const r = await s.call('memory_data', { action: 'import', data: doc, user_id: 'target', mode: 'replace' });
    expect(r).toMatchObject({ mode: 'replace', cleared_l1: 1, imported: { episodes: 1 } });
    expect((await s.call('wake_up', { user_id: 'target' })).brief).not.toContain('Whiskers');
  });
});
