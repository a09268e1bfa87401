import { describe, expect, it } from 'vitest';
import { isQueryWord, MAX_WORD_CHARS, queryTerms, wordTokens } from './query.js';
import { delimiterJoins } from './word-delimiter.js';
import { porterStem } from './stemmer.js';

/** Tokens come folded by NFKD: a kana with a voiced sound mark (で) is two code points. */
const nfkd = (tokens: string[]): string[] => tokens.map((t) => t.normalize('NFKD'));

describe('wordTokens in scripts written without spaces', () => {
  it('cuts a run of Chinese, Japanese or Thai into overlapping character bigrams', () => {
    expect(wordTokens('我喜欢吃苹果和香蕉')).toEqual(['我喜', '喜欢', '欢吃', '吃苹', '苹果', '果和', '和香', '香蕉']);
    expect(wordTokens('東京は日本の首都です')).toEqual(nfkd(['東京', '京は', 'は日', '日本', '本の', 'の首', '首都', '都で', 'です']));
    // Punctuation ends a run; a run of one character is one token.
    expect(wordTokens('我的名字是王小明。我，北京')).toEqual(['我的', '的名', '名字', '字是', '是王', '王小', '小明', '我', '北京']);
    expect(wordTokens('ภาษาไทย')).toEqual(['ภา', 'าษ', 'ษา', 'าไ', 'ไท', 'ทย']);
  });

  it('keeps marks with the character they follow, so a bigram is two characters', () => {
    // Thai vowel and tone marks; a Japanese voiced sound mark (split off by NFKD) and the prolonged sound mark.
    expect(wordTokens('ที่นี่')).toEqual(['ที่นี่']);
    expect(wordTokens('コーヒーとデータ')).toEqual(nfkd(['コー', 'ーヒ', 'ヒー', 'ーと', 'とデ', 'デー', 'ータ']));
    // Half-width katakana folds to full width, a character outside the BMP is one character.
    expect(wordTokens('ｺｰﾋｰ')).toEqual(['コー', 'ーヒ', 'ヒー']);
    expect(wordTokens('𠮷野家')).toEqual(['𠮷野', '野家']);
  });

  it('splits where such a run meets other letters, which tokenise as before', () => {
    expect(wordTokens('iPhone15を買った Café')).toEqual(['iphone15', 'を買', '買っ', 'った', 'cafe']);
    expect(delimiterJoins('東京-大阪へ e-mailを送る')).toEqual(['email']);
  });

  it('leaves spaced scripts as they were: Latin, accented, Korean, Cyrillic', () => {
    expect(wordTokens('The Crème brûlée, naïve café-goers; 42 x')).toEqual(['the', 'creme', 'brulee', 'naive', 'cafe', 'goers', '42', 'x']);
    expect(wordTokens('한국어 서울에서')).toEqual(nfkd(['한국어', '서울에서']));
    expect(wordTokens('Привет, мир')).toEqual(['привет', 'мир']);
  });

  it('makes query terms of the bigrams: no stop word, no stemming, one character kept, no length limit on the run', () => {
    expect(queryTerms('苹果')).toEqual(['苹果']);
    expect(queryTerms('王小明 and the apples')).toEqual(['王小', '小明', 'apples']);
    expect(isQueryWord('猫')).toBe(true);
    expect(isQueryWord('x')).toBe(false);
    for (const t of wordTokens('東京は日本の首都です ภาษาไทย')) expect(porterStem(t)).toBe(t);
    const page = '汉'.repeat(2001);
    const tokens = wordTokens(page);
    expect(tokens).toHaveLength(2000);
    expect(tokens.every(isQueryWord)).toBe(true);
  });
});

describe('wordTokens in scripts with marks inside words, and letters folded plain', () => {
  it('keeps vowel signs and viramas inside a word: Devanagari, Bengali and Tamil words are one token each', () => {
    expect(wordTokens('दिल्ली में हिंदी')).toEqual(['दिल्ली', 'में', 'हिंदी']);
    expect(wordTokens('বাংলা ভাষা')).toEqual(['বাংলা', 'ভাষা']);
    expect(wordTokens('சென்னை நகரம்')).toEqual(['சென்னை', 'நகரம்']);
    expect(queryTerms('दिल्ली')).toEqual(['दिल्ली']);
    // Two words differing in their marks stay two terms.
    expect(queryTerms('नमस्ते नमस्कार')).toHaveLength(2);
    expect(delimiterJoins('दिल्ली-मुंबई')).toEqual(['दिल्लीमुंबई']);
  });

  it('removes the marks a writer may leave out: Hebrew points, Arabic harakat and tatweel', () => {
    expect(wordTokens('שָׁלוֹם')).toEqual(wordTokens('שלום'));
    expect(wordTokens('مُحَمَّد')).toEqual(wordTokens('محمد'));
    expect(wordTokens('ســلام')).toEqual(wordTokens('سلام'));
  });

  it('removes invisible format characters inside a word, and writes letters without a decomposition plain', () => {
    expect(wordTokens('Key\u200Bkeeper co\u00ADoperate')).toEqual(['keykeeper', 'cooperate']);
    expect(wordTokens('Goethestraße Łódź smørrebrød Æsir Œuvre Đorđe Þór ılık')).toEqual(['goethestrasse', 'lodz', 'smorrebrod', 'aesir', 'oeuvre', 'dorde', 'thor', 'ilik']);
    expect(wordTokens('ΟΔΟΣ οδός')).toEqual(['οδοσ', 'οδοσ']);
  });

  it('cuts a word over MAX_WORD_CHARS to its head instead of dropping it, in ASCII and beyond', () => {
    const compound = 'Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft';
    const [w] = wordTokens(compound);
    expect(w).toHaveLength(MAX_WORD_CHARS);
    expect(queryTerms(compound)).toEqual([w]);
    const ascii = 'a'.repeat(100);
    expect(wordTokens(`${ascii} b`)).toEqual(['a'.repeat(MAX_WORD_CHARS), 'b']);
    // A cut never leaves half a surrogate pair.
    const gothicWord = `${'x'.repeat(MAX_WORD_CHARS - 1)}𐌰bc`;
    expect(wordTokens(gothicWord)[0]).toBe('x'.repeat(MAX_WORD_CHARS - 1));
  });
});
