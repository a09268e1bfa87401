import { describe, expect, it } from 'vitest';
import { lookupForms } from './identity-forms.js';

const nfc = 'caf\u00e9';
const nfd = 'cafe\u0301';

/** A table of names as an older build may have left it. */
function held(...names: string[]) {
  const rows = new Map(names.map((n, i) => [n, i]));
  const asked: string[] = [];
  return { asked, find: (form: string) => (asked.push(form), rows.get(form)) };
}

describe('lookupForms', () => {
  it('finds a name held in both forms by the form given, so neither record answers for the other', () => {
    const t = held(nfc, nfd);
    expect(lookupForms(nfc, t.find)).toEqual({ form: nfc, found: 0 });
    expect(lookupForms(nfd, t.find)).toEqual({ form: nfd, found: 1 });
  });

  it('finds a record held in one form by the other, and gives NFC for a new record', () => {
    expect(lookupForms(nfc, held(nfd).find)).toEqual({ form: nfd, found: 0 });
    expect(lookupForms(nfd, held(nfc).find)).toEqual({ form: nfc, found: 0 });
    expect(lookupForms(nfd, held().find)).toEqual({ form: nfc, found: undefined });
  });

  it('looks an ASCII name up once, and each other form at most once', () => {
    const ascii = held();
    lookupForms('cafe', ascii.find);
    expect(ascii.asked).toEqual(['cafe']);
    const t = held();
    lookupForms(nfc, t.find);
    expect(t.asked).toEqual([nfc, nfd]);
  });
});
