import { toNfc } from '@memory-service/kernel';

/** Text of ASCII only: every normalisation form of it is itself. */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/**
 * The record a name (a wiki title, a fact key) stands for, and the form of the name it is stored
 * under. Names are stored and looked up in NFC, so the same text sent precomposed or decomposed
 * names one record. A record stored before names were normalised keeps the form it was stored in
 * while no record holds the NFC form: it is found (and updated in place, not duplicated) by the
 * name as given, or by the name's NFD form (the form macOS file names and some keyboards send), so
 * no data dir loses one. An ASCII name is looked up once.
 */
export function lookupForms<T>(given: string, find: (form: string) => T | undefined): { form: string; found: T | undefined } {
  if (!BEYOND_ASCII.test(given)) return { form: given, found: find(given) };
  const nfc = toNfc(given);
  const found = find(nfc);
  if (found !== undefined) return { form: nfc, found };
  for (const earlier of new Set([given, given.normalize('NFD')])) {
    if (earlier === nfc) continue;
    const held = find(earlier);
    if (held !== undefined) return { form: earlier, found: held };
  }
  return { form: nfc, found: undefined };
}
