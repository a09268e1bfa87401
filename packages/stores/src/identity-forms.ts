import { toNfc } from '@memory-service/kernel';

/** Text of ASCII only: every normalisation form of it is itself. */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/**
 * The record a name (a wiki title, a fact key) stands for, and the form of the name it is stored
 * under. Names are stored in NFC, so the same text sent precomposed or decomposed names one record.
 * A record stored before names were normalised keeps the form it was stored in, and an older build
 * may have stored a name in both forms as two records: the name exactly as given is looked up
 * first (so each of those two stays reachable by its own form, and no call aimed at one lands on
 * the other), then its NFC form, then its NFD form (the form macOS file names and some keyboards
 * send). A new record takes the NFC form. An ASCII name is looked up once.
 */
export function lookupForms<T>(given: string, find: (form: string) => T | undefined): { form: string; found: T | undefined } {
  if (!BEYOND_ASCII.test(given)) return { form: given, found: find(given) };
  const nfc = toNfc(given);
  for (const form of new Set([given, nfc, given.normalize('NFD')])) {
    const found = find(form);
    if (found !== undefined) return { form, found };
  }
  return { form: nfc, found: undefined };
}
