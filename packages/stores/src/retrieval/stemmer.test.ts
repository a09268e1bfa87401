import { sqliteDriver } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { wordTokens } from './query.js';
import { porterStem, stemMayChangeStart, stemWord } from './stemmer.js';

const WORDS = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping
tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer
conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful
goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent
adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll
running went painting painted paints support group camping mountains yesterday powerful generously conversations
ideas abilities organization organizations relational agreement meeting meetings lgbtq adopting adoption kids
children festival friends friendship university universal it is a an at by gymnastics photography`.split(/\s+/);

const ROOTS = 'relat condit hop happ conflat troubl siz fil agre feed plaster motor sing fall hiss fizz cry sky generaliz oscil control roll a b xy sty be bee ye us oe ion'.split(' ');
const SUFFIXES = `s es ies ed ing ly y e eed ated bled izing ying ational tional enci anci izer abli alli entli eli ousli ization ation
ator alism iveness fulness ousness aliti iviti biliti icate ative alize iciti ical ful ness al ance ence er ic able ible ant
ement ment ent ion ou ism ate iti ous ive ize ll`.split(/\s+/);

describe('porterStem', () => {
  it('only rewrites the ending: a word begins with its stem less the stem\'s last two letters', () => {
    const words = [...WORDS, ...ROOTS.flatMap((r) => ['', ...SUFFIXES].flatMap((a) => ['', ...SUFFIXES].map((b) => r + a + b)))];
    for (const w of words) {
      const stem = porterStem(w);
      expect(w.startsWith(stem.slice(0, Math.max(1, stem.length - 2))), `${w} -> ${stem}`).toBe(true);
    }
  });

  it('matches SQLite FTS5 porter tokenizer output', () => {
    const db = new (sqliteDriver().Database)(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')");
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
    const ins = db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)');
    WORDS.forEach((w, i) => ins.run(i + 1, w));
    const rows = db.prepare('SELECT term, doc FROM v').all() as { term: string; doc: number }[];
    const got = rows.sort((a, b) => a.doc - b.doc).map((r) => `${WORDS[r.doc - 1]}=${r.term}`);
    expect(WORDS.map((w) => `${w}=${porterStem(w)}`)).toEqual(got);
    db.close();
  });
});

describe('stemWord', () => {
  const stems = (text: string) => wordTokens(text).map(stemWord);

  it('stems a word of [a-z0-9] exactly as porterStem, and so as FTS5', () => {
    const words = [...WORDS, ...ROOTS.flatMap((r) => SUFFIXES.map((a) => r + a)), 'x', 'ab', '42x', 'a'.repeat(65)];
    expect(words.map(stemWord)).toEqual(words.map(porterStem));
  });

  it('stems Russian and Arabic words, so their inflected forms meet', () => {
    expect(stems('Встреча с инвесторами в понедельник')).toEqual(stems('встречу с инвестором в понедельник'));
    expect(stems('ВСТРЕЧИ')).toEqual(['встреч']);
    expect(stems('الكتاب كتابه كتابها')).toEqual(['كتاب', 'كتاب', 'كتاب']);
  });

  it('leaves alone words mixing scripts, words of other languages written in those scripts, and short words', () => {
    for (const w of ['кафеcafe', 'cafeкафе', 'книги2', 'كتابbook', 'книгиكتاب', 'інвестори', 'їжаками', 'єврами', 'љубави', 'پدرها', 'کتابها', 'ab', 'ся', 'ال']) {
      expect(stemWord(w), w).toBe(w);
    }
    // Greek, Hebrew, Devanagari, CJK bigrams: as they were.
    for (const w of wordTokens('καλημέρα φίλοι שלום עולם नमस्ते दोस्तों 東京都')) expect(stemWord(w), w).toBe(w);
  });

  it('keeps a stem a prefix of its word but for the last two letters, except for an Arabic word (stemMayChangeStart)', () => {
    for (const w of wordTokens('Встречами инвесторами красивейших районными прекраснейшая сделавшись читайте')) {
      expect(w.startsWith(stemWord(w).slice(0, Math.max(1, stemWord(w).length - 2))), w).toBe(true);
      expect(stemMayChangeStart(w)).toBe(false);
    }
    expect(stemMayChangeStart('الكتاب')).toBe(true);
    expect(stemMayChangeStart('meetings')).toBe(false);
  });
});
