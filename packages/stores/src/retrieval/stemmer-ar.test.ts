import { describe, expect, it } from 'vitest';
import { wordTokens } from './query.js';
import { arabicStem } from './stemmer-ar.js';

/** The stem of a word as written, folded first as retrieval folds it (harakat, hamza forms). */
const stem = (word: string) => arabicStem(wordTokens(word)[0]!);

describe('arabicStem (light, in the manner of light10)', () => {
  it('removes the article, the conjunction and the common endings', () => {
    const table: [string, string][] = [
      ['الكتاب', 'كتاب'],
      ['كتابه', 'كتاب'],
      ['كتابها', 'كتاب'],
      ['والكتاب', 'كتاب'],
      ['بالكتاب', 'كتاب'],
      ['للكتاب', 'كتاب'],
      ['وكتاب', 'كتاب'],
      ['الْكِتَابُ', 'كتاب'],
      ['مكتبة', 'مكتب'],
      ['المكتبة', 'مكتب'],
      ['معلومات', 'معلوم'],
      ['موظفين', 'موظف'],
      ['موظفون', 'موظف'],
      ['عربية', 'عرب'],
      ['عربي', 'عرب'],
      ['مستشفى', 'مستشف'],
      ['أصدقائي', 'اصدقاي'],
    ];
    expect(table.map(([w]) => `${w}=${stem(w)}`)).toEqual(table.map(([w, s]) => `${w}=${s}`));
  });

  it('folds ta marbuta to ha and alef maqsura to ya', () => {
    expect(arabicStem('فتاة')).toBe(arabicStem('فتاه'));
    expect(arabicStem('على')).toBe('علي');
  });

  it('does not over-stem: short words, roots of three letters, a short rest after و or the article', () => {
    for (const [w, s] of [
      ['في', 'في'],
      ['من', 'من'],
      ['بيت', 'بيت'],
      ['بيته', 'بيت'],
      ['ابي', 'ابي'],
      ['اخي', 'اخي'],
      ['وزير', 'وزير'],
      ['وقت', 'وقت'],
      ['الام', 'الام'],
      ['لبن', 'لبن'],
    ] as const) {
      expect(stem(w), w).toBe(s);
    }
    // The article stays where only two letters would remain: "الله" does not become "له" (for him).
    expect(stem('الله')).not.toBe(stem('له'));
  });
});
