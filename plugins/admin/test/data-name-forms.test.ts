import { afterEach, describe, expect, it } from 'vitest';
import { start, storesOf, type TestServer } from './helpers.js';

/** memory_data import of a document holding one name in two Unicode forms, as an older build could export. */
let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe('memory_data import, names in two forms', () => {
  // Regression guard, fixed: both notes were reported imported while the second overwrote the first.
  it('imports the first of two scratchpad notes whose keys differ only in form and counts the other skipped', async () => {
    s = await start();
    const doc = (await s.call('memory_data', { action: 'export' })).data;
    const at = '2025-03-01T00:00:00.000Z';
    doc.scratchpad = [
      { key: 'caf\u00e9', content: 'NFC note', created: at, updated: at },
      { key: 'cafe\u0301', content: 'NFD note', created: at, updated: at },
    ];
    const r = await s.call('memory_data', { action: 'import', data: doc, user_id: 'bob' });
    expect(r).toMatchObject({ imported: { scratchpad: 1 }, skipped: { scratchpad: 1 } });
    expect(storesOf(s).scratchpad.get({ layer: 'user', user_id: 'bob' }, 'caf\u00e9')).toMatchObject({ content: 'NFC note', created: at });
  });
});
