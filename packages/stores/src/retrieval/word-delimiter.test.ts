import { describe, expect, it } from 'vitest';
import { queryTerms } from './query.js';
import { columnTerms } from './doc-terms.js';
import { porterStem } from './stemmer.js';
import { caseDigitPieces, delimiterJoins, delimiterTerms, groupedJoined, nameTerms, spelledApart, umlautSpellings } from './word-delimiter.js';

/**
 * Whether the index terms of `doc` hold the query's terms (stemmed): all of them, or two when it
 * has more (a query "250ms" has the terms 250m, 250 and ms; "250 ms" holds the last two).
 */
function finds(doc: string, query: string): boolean {
  const { stems } = columnTerms(doc);
  const terms = queryTerms(query).map((t) => porterStem(t));
  return terms.length > 0 && terms.filter((t) => stems.includes(t)).length >= Math.min(2, terms.length);
}

describe('word delimiter, rule 1: splits at case and letter-digit changes', () => {
  it('cuts camelCase, PascalCase and a capital run before a capitalised word', () => {
    expect(caseDigitPieces('fetchUserProfile')).toEqual(['fetch', 'User', 'Profile']);
    expect(caseDigitPieces('HTTPClient')).toEqual(['HTTP', 'Client']);
    expect(caseDigitPieces('XMLHttpRequest')).toEqual(['XML', 'Http', 'Request']);
    expect(caseDigitPieces('macOS')).toEqual(['mac', 'OS']);
  });

  it('cuts a number from a unit or code of at least two letters', () => {
    expect(caseDigitPieces('250ms')).toEqual(['250', 'ms']);
    expect(caseDigitPieces('5GB')).toEqual(['5', 'GB']);
    expect(caseDigitPieces('LH456')).toEqual(['LH', '456']);
    expect(caseDigitPieces('GPT4')).toEqual(['GPT', '4']);
    expect(caseDigitPieces('20000mAh')).toEqual(['20000', 'mAh']);
    expect(caseDigitPieces('iPhone15')).toEqual(['iPhone', '15']);
  });

  it('leaves short mixed tokens, plurals of capitals, one-letter pieces and ids whole', () => {
    for (const w of ['k8s', 'i18n', 'b2b', 'a1', 'x86', 'v14a', 'iOS', 'iPhone', 'URLs', 'IDs', 'PhD', 'getX', 'w12ab', 'a5f3c9e2b7d1', 'GPT4o', 'fetch', 'HTTP', '2026']) {
      expect(caseDigitPieces(w), w).toEqual([w]);
    }
    expect(delimiterTerms('k8s i18n b2b a1 x86 iOS URLs')).toEqual([]);
  });

  it("takes a version's v off its number", () => {
    expect(caseDigitPieces('v14')).toEqual(['v', '14']);
    expect(delimiterTerms('We pinned Postgres to v14.9.2')).toEqual(['14']);
  });

  it('splits on the original case of letters beyond ASCII, folded after', () => {
    expect(caseDigitPieces('größeÄnderung')).toEqual(['größe', 'Änderung']);
    expect(delimiterTerms('die größeÄnderung')).toEqual(['grosse', 'anderung', 'groesseaenderung']);
  });
});

describe('word delimiter, rule 2: joins runs over single _, . or -', () => {
  it('joins snake_case, dotted names, SCREAMING_CASE and a letter run with a number', () => {
    expect(delimiterJoins('fetch_user_profile, Node.js and MAX_UPLOAD_SIZE_MB')).toEqual(['fetchuserprofile', 'nodejs', 'maxuploadsizemb']);
    expect(delimiterJoins('GPT-4 and COVID-19 rules')).toEqual(['gpt4', 'covid19']);
    expect(delimiterJoins('--dry-run')).toEqual(['dryrun']);
  });

  it('never joins two numbers (versions, dates, times), nor more than 4 runs unless letter words with hyphens', () => {
    expect(delimiterJoins('v14.9.2 and 1.2.3 on 2026-03-07, x86_64, 3.5 km')).toEqual([]);
    expect(delimiterJoins('a.b.c.d.e but up-to-the-minute-news')).toEqual(['uptotheminutenews']);
    expect(delimiterJoins('a_b_c_d')).toEqual(['abcd']);
  });
});

describe('word delimiter, rule 3: numbers', () => {
  it('gives a zero-padded number without its zeros, and keeps zeros alone as they are', () => {
    expect(delimiterTerms('on 2026-03-07 at 09:30')).toEqual(['3', '7', '9']);
    expect(delimiterTerms('007 and 0 and 000')).toEqual(['7']);
  });

  it('joins a number grouped by thousands with a comma, underscore, apostrophe or thin space, not a dot or a plain space', () => {
    expect(delimiterTerms('$12,400.50, 1_000_000, 12\'400 and 3\u202f500')).toEqual(['12400', '1000000', '3500']);
    expect(delimiterTerms('12.400 and 12 400 and 1,2,3 and 1,23')).toEqual([]);
  });
});

describe('word delimiter, rule 4: emoji and C++, C#, F#', () => {
  it('makes each emoji a term, with its modifiers and ZWJ sequence as one, variation selector dropped', () => {
    expect(delimiterTerms('Team lunch: 🍕 beat 🍣, ❤️ 👍🏽 👨‍👩‍👧')).toEqual(['🍕', '🍣', '❤', '👍🏽', '👨‍👩‍👧']);
    expect(queryTerms('🍕')).toEqual(['🍕']);
    expect(finds('In the release channel 🚀 means shipped.', '🚀')).toBe(true);
    expect(finds('In the release channel ❤️ means liked.', '❤')).toBe(true);
  });

  it('makes 1 to 3 letters ending a word with ++ or # a term, and nothing else with them', () => {
    expect(delimiterTerms('Maya writes the engine in C++ and the tools in C#, F# too')).toEqual(['c++', 'c#', 'f#']);
    expect(queryTerms('C++')).toEqual(['c++']);
    expect(delimiterTerms('issue#42 #4821 a+b x++y')).toEqual([]);
  });
});

describe('word delimiter, rule 5: German umlauts spelled ae, oe, ue (documents and queries)', () => {
  it('adds the spelling as a document term and as a query term', () => {
    expect(umlautSpellings('Die Kündigungsfrist für GRÖSSE')).toEqual(['kuendigungsfrist', 'fuer', 'groesse']);
    expect(delimiterTerms('Kündigungsfrist')).toEqual(['kuendigungsfrist']);
    expect(queryTerms('Kündigungsfrist')).toEqual(['kundigungsfrist', 'kuendigungsfrist']);
    expect(finds('Die Kündigungsfrist für die Wohnung ist drei Monate.', 'Kuendigungsfrist')).toBe(true);
    expect(finds('Die Kündigungsfrist für die Wohnung ist drei Monate.', 'Kündigungsfrist')).toBe(true);
  });

  it('finds a document written with ae, oe, ue by a query written with the umlaut', () => {
    const shares = (doc: string, query: string): boolean => {
      const { stems } = columnTerms(doc);
      return queryTerms(query).some((t) => stems.includes(porterStem(t)));
    };
    expect(shares('Die Kuendigung kam per Post.', 'Kündigung')).toBe(true);
    expect(shares('Wir treffen uns in Koeln.', 'KÖLN')).toBe(true);
    // The spelling without the dots still finds what it found; no umlaut, no other term.
    expect(shares('Die Kundigung kam per Post.', 'Kündigung')).toBe(true);
    expect(queryTerms('Kuendigung Koeln')).toEqual(['kuendigung', 'koeln']);
  });
});

describe('word delimiter: the extra terms meet the other spelling, both ways', () => {
  it('finds identifiers, units, codes and numbers by their other spellings', () => {
    const pairs: [string, string][] = [
      ['The retry logic lives in fetchUserProfile.', 'fetch user profile'],
      ['The retry logic lives in fetchUserProfile.', 'fetch_user_profile'],
      ['The retry logic lives in fetch_user_profile.', 'fetchUserProfile'],
      ['The env var MAX_UPLOAD_SIZE_MB controls it.', 'maxUploadSizeMb'],
      ['It is in src/middleware/rateLimiter.ts', 'rate limiter'],
      ['The build server needs Node.js 20.', 'NodeJS'],
      ['p95 of the search endpoint is 250ms.', '250 ms'],
      ['p95 of the search endpoint is 250 ms.', '250ms'],
      ['The archive is 5 GB compressed.', '5GB'],
      ['My return flight LH456 leaves at noon.', 'LH 456'],
      ['Our AWS bill was $12,400 in October.', '12400'],
      ['The review moved to 3pm on Thursdays.', '3 pm'],
      ['COVID-19 rules apply.', 'covid19'],
      ['Dentist appointment on 2026-03-07.', '3/7/2026'],
      ['We pinned Postgres to v14.9.2 for now.', '14.9.2'],
    ];
    for (const [doc, query] of pairs) expect(finds(doc, query), `${query} in ${doc}`).toBe(true);
  });

  it('adds terms, not tokens: the document length is unchanged', () => {
    expect(columnTerms('fetchUserProfile at 250ms, 🍕').length).toBe(3);
    expect(columnTerms('fetchUserProfile at 250ms, 🍕').stems).toEqual(['fetchuserprofil', '250m', 'fetch', 'user', 'profil', '250', 'ms', '🍕']);
  });

  it('keeps k8s from matching the 8 of other texts', () => {
    expect(queryTerms('k8s')).toEqual(['k8s']);
    expect(finds('We run 8 nodes.', 'k8s')).toBe(false);
  });
});

describe('stop words written as names', () => {
  it('takes capitals of two letters or more, and capitalised words not at a sentence start', () => {
    expect(nameTerms('IT replaced the charger; the US and WHO agree.')).toEqual(['it', 'us', 'who']);
    expect(nameTerms('It is late. Ask Will, and Don.')).toEqual(['will', 'don']);
    expect(nameTerms('The cat. Then it slept: "Where" is it? I am here, A.')).toEqual([]);
    expect(nameTerms('cats AND dogs OR NOT birds')).toEqual([]);
  });

  it('takes the stop words that are given names at a sentence start too, but not a contraction', () => {
    expect(nameTerms('Will is the new product manager.')).toEqual(['will']);
    expect(nameTerms("Don't deploy on Friday. Don’t.")).toEqual([]);
    expect(nameTerms("Don prefers window seats. Will's laptop")).toEqual(['don', 'will']);
  });

  it('indexes them and searches them: a query of stop words alone searches them all', () => {
    expect(queryTerms('Will')).toEqual(['will']);
    expect(queryTerms('who is Will')).toEqual(['will']);
    expect(queryTerms('who is will')).toEqual(['who', 'is', 'will']);
    expect(queryTerms('what will the weather be')).toEqual(['weather']);
    expect(finds('Will is the new product manager for billing.', 'Will')).toBe(true);
    expect(finds('Will is the new product manager for billing.', 'who is Will')).toBe(true);
    expect(finds('IT replaced the laptop charger.', 'IT')).toBe(true);
    // An ordinary stop word is still neither indexed nor searched.
    expect(finds('I will call it later.', 'will')).toBe(false);
    expect(columnTerms('I will call it later.').stems).toEqual(['call', 'later']);
  });
});

describe('spelledApart (forget word match)', () => {
  it('writes runs apart, numbers without zeros, and umlauts as ae, oe, ue when asked', () => {
    expect(spelledApart('fetchUserProfile at 250ms on 2026-03-07', false)).toBe('fetch User Profile at 250 ms on 2026-3-7');
    expect(spelledApart('Kündigungsfrist k8s', true)).toBe('Kuendigungsfrist k8s');
    expect(spelledApart('Kündigungsfrist', false)).toBe('Kündigungsfrist');
    expect(spelledApart('plain words here', true)).toBe('plain words here');
  });
});

describe('groupedJoined (forget word match)', () => {
  it('joins the numbers grouped by thousands that delimiterTerms also indexes joined, and no other', () => {
    expect(groupedJoined('Our AWS bill was $12,400 in October.')).toBe('Our AWS bill was $12400 in October.');
    expect(groupedJoined("1_000_000 rows, 12'400 CHF, 12\u00a0400 EUR")).toBe('1000000 rows, 12400 CHF, 12400 EUR');
    for (const text of ['it weighs 12.400 kg', 'rooms 12 400', '1,2345', 'plain words here']) expect(groupedJoined(text)).toBe(text);
    // The same numbers as the index's terms: one rule.
    for (const text of ['$12,400 and 1,234,567 but 12.400', "12'400 or 1_000"]) {
      const joined = groupedJoined(text).match(/\d+/g) ?? [];
      for (const t of delimiterTerms(text).filter((x) => /^\d{4,}$/.test(x))) expect(joined).toContain(t);
    }
  });
});
