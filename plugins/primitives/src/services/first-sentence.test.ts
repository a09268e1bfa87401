import { describe, expect, it } from 'vitest';
import { firstSentence, isAbbreviation } from './first-sentence.js';

const head = (text: string) => firstSentence(text).head;

describe('firstSentence', () => {
  it('cuts after the first . ! or ? followed by white space, as before', () => {
    expect(firstSentence('Use Postgres. It handles the telemetry volume.')).toEqual({ head: 'Use Postgres.', rest: 'It handles the telemetry volume.' });
    expect(firstSentence('Ship it! Now.')).toEqual({ head: 'Ship it!', rest: 'Now.' });
    expect(firstSentence('Why Postgres? Volume.')).toEqual({ head: 'Why Postgres?', rest: 'Volume.' });
    expect(firstSentence('  Use Postgres.\nIt is fast.  ')).toEqual({ head: 'Use Postgres.', rest: 'It is fast.' });
    expect(firstSentence('Pin v1.2.3 of the driver. Later ones leak.')).toEqual({ head: 'Pin v1.2.3 of the driver.', rest: 'Later ones leak.' });
    expect(firstSentence('No end here')).toEqual({ head: 'No end here', rest: '' });
    // A first line without an end keeps the whole text as the decision, as the old pattern did.
    expect(firstSentence('Use Postgres\nIt is fast. More.')).toEqual({ head: 'Use Postgres\nIt is fast. More.', rest: '' });
    expect(head('Wait... then decide. Later.')).toBe('Wait...');
  });

  it('cuts after an ideographic full stop or a full-width ! or ?, with no space after them, keeping closing quotes', () => {
    expect(firstSentence('采用Postgres。它能处理遥测数据量。')).toEqual({ head: '采用Postgres。', rest: '它能处理遥测数据量。' });
    expect(firstSentence('Postgresを使う！理由は量だ。')).toEqual({ head: 'Postgresを使う！', rest: '理由は量だ。' });
    expect(firstSentence('なぜPostgres？量のため。')).toEqual({ head: 'なぜPostgres？', rest: '量のため。' });
    expect(firstSentence('「Postgresを使う。」理由は量だ。')).toEqual({ head: '「Postgresを使う。」', rest: '理由は量だ。' });
    // The first end found wins, whichever script it belongs to.
    expect(firstSentence('Use Postgres. 理由は量だ。')).toEqual({ head: 'Use Postgres.', rest: '理由は量だ。' });
    expect(firstSentence('采用Postgres')).toEqual({ head: '采用Postgres', rest: '' });
  });

  it('does not end a sentence at a common abbreviation', () => {
    expect(firstSentence('Hire Dr. Smith for the review. She knows the code.')).toEqual({
      head: 'Hire Dr. Smith for the review.',
      rest: 'She knows the code.',
    });
    expect(head('Ask Mr. Jones and Mrs. Lee first. Then ship.')).toBe('Ask Mr. Jones and Mrs. Lee first.');
    expect(head('Pick Postgres vs. MySQL by load, e.g. writes per second. Measured.')).toBe('Pick Postgres vs. MySQL by load, e.g. writes per second.');
    expect(head('Cache tokens, sessions, etc. in Redis. It is shared.')).toBe('Cache tokens, sessions, etc. in Redis.');
    expect(head('Log less (i.e. errors only) in prod. Noise hurts.')).toBe('Log less (i.e. errors only) in prod.');
    expect(head('Follow Smith et al. on caching. It fits.')).toBe('Follow Smith et al. on caching.');
    expect(head('Ship on DR. Day one. Later.')).toBe('Ship on DR. Day one.');
  });

  it('does not end a sentence at an initial or at letters joined by dots', () => {
    expect(head('Read J. R. R. Tolkien first. It helps.')).toBe('Read J. R. R. Tolkien first.');
    expect(head('Host it in the U.S. region. Latency matters.')).toBe('Host it in the U.S. region.');
    expect(head('Deploy at 5 a.m. on Mondays. Traffic is low.')).toBe('Deploy at 5 a.m. on Mondays.');
    // Lower-case single letters and ordinary words still end a sentence.
    expect(head('Choose option a. It is simpler.')).toBe('Choose option a.');
    expect(head('The answer is no. We build it.')).toBe('The answer is no.');
  });

  it('is deterministic and linear on long text with many dots', () => {
    const long = `${'Dr. '.repeat(5000)}Smith decides. Rationale.`;
    const a = firstSentence(long);
    expect(a.head.endsWith('Smith decides.')).toBe(true);
    expect(firstSentence(long)).toEqual(a);
  });

  it('isAbbreviation reads the word before the dot, ignoring opening quotes and brackets', () => {
    for (const w of ['Dr', 'dr', 'VS', '(e.g', '"Mr', 'U.S', 'J', 'etc', 'Inc']) expect(isAbbreviation(w), w).toBe(true);
    for (const w of ['Postgres', 'a', 'no', 'may', '2', 'Ph', '']) expect(isAbbreviation(w), w).toBe(false);
  });
});
