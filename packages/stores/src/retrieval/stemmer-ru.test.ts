import { describe, expect, it } from 'vitest';
import { wordTokens } from './query.js';
import { russianStem } from './stemmer-ru.js';

/** The stem of a word as written, folded first as retrieval folds it (ё as е, й as и). */
const stem = (word: string) => russianStem(wordTokens(word)[0]!);

describe('russianStem (Snowball Russian)', () => {
  it('gives the published algorithm\'s stems', () => {
    // Word -> stem, as the Snowball Russian stemmer gives them (й and ё folded on both sides).
    const table: [string, string][] = [
      ['вагоне', 'вагон'],
      ['важная', 'важн'],
      ['важнейшие', 'важн'],
      ['вазы', 'ваз'],
      ['валялась', 'валя'],
      ['валяясь', 'вал'],
      ['ванной', 'ван'],
      ['вареники', 'вареник'],
      ['книги', 'книг'],
      ['линией', 'лин'],
      ['красивейший', 'красив'],
      ['бегущая', 'бегущ'],
      ['прекрасная', 'прекрасн'],
      ['сделавшись', 'сдела'],
      ['противоестественном', 'противоестествен'],
      ['районный', 'раион'],
      ['стать', 'стат'],
      ['читайте', 'чита'],
      ['говорите', 'говор'],
      ['радость', 'радост'],
      ['ёлками', 'елк'],
    ];
    expect(table.map(([w]) => `${w}=${stem(w)}`)).toEqual(table.map(([w, s]) => `${w}=${s}`));
  });

  it('brings the case and number forms of a noun, and the forms of an adjective, to one stem', () => {
    for (const forms of [
      ['встреча', 'встречи', 'встрече', 'встречу', 'встречей', 'встречами', 'встречах'],
      ['инвестор', 'инвестора', 'инвестору', 'инвестором', 'инвесторы', 'инвесторами', 'инвесторов'],
      ['новый', 'новая', 'новое', 'новые', 'нового', 'новому', 'новыми'],
    ]) {
      expect(new Set(forms.map(stem)), forms.join(' ')).toEqual(new Set([stem(forms[0]!)]));
    }
  });

  it('does not over-stem: an ending is only removed inside RV, so the part before it stays', () => {
    // RV begins after the first vowel: nothing before it, nor the vowel, is ever removed.
    for (const [w, s] of [
      ['да', 'да'],
      ['мы', 'мы'],
      ['нет', 'нет'],
      ['сон', 'сон'],
      ['стол', 'стол'],
      ['понедельник', 'понедельник'],
      ['ость', 'ост'],
      ['кость', 'кост'],
      ['москва', 'москв'],
    ] as const) {
      expect(stem(w), w).toBe(s);
    }
    // A derivational ending is removed only inside R2: "кость" (bone) keeps "ост", "радость" too.
    expect(stem('кости')).toBe('кост');
  });
});
