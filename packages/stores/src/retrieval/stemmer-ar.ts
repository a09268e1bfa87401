/**
 * A light Arabic stemmer in the manner of Larkey, Ballesteros and Connell's "light10": a few
 * prefixes and suffixes are removed, no root is sought, so a word keeps its pattern and only its
 * article, conjunction and common endings go: "الكتاب" (the book), "كتابه" (his book) and "كتابها"
 * (her book) are all "كتاب".
 *
 * Words arrive folded (query.ts foldText): harakat, Quranic marks and tatweel are removed, and NFKD
 * has already written أ, إ, آ as ا, ؤ as و and ئ as ي (their hamza and madda are marks). Then:
 * 1. ة (ta marbuta) is written ه and ى (alef maqsura) ي, as writers use them interchangeably
 *    at the end of a word.
 * 2. At most one prefix is removed: the article and the article with a particle (وال، بال، كال،
 *    فال، ال، لل) when at least 3 letters remain, or else the conjunction و when at least 4
 *    remain. Light10 keeps 2 after the article ("الله" then lost its article and met "له") and 3
 *    after و; here 4, since many words begin with و (وزير, وقت, وصول) and a 3-letter rest is as
 *    likely a word of its own.
 * 3. Each suffix of ها، ان، ات، ون، ين، يه، ه، ي in that order (ية and ة are يه and ه after step
 *    1) is removed if the word ends with it and at least 3 letters remain. Light10 keeps 2;
 *    3 keeps a triliteral root whole, so "ابي" (my father) or "اخي" stay as they are.
 * A word of fewer than 3 letters is left alone. Precision is preferred to recall: what a light
 * stemmer merges wrongly (a noun whose own last letters look like a suffix) cannot be told apart
 * without a dictionary, so the rules stay few.
 */

const ARTICLES = ['وال', 'بال', 'كال', 'فال', 'ال', 'لل'];
const SUFFIXES = ['ها', 'ان', 'ات', 'ون', 'ين', 'يه', 'ه', 'ي'];
/** Letters that must remain after an article. */
const ARTICLE_REST = 3;
/** Letters that must remain after the conjunction و. */
const CONJUNCTION_REST = 4;
/** Letters that must remain after a suffix. */
const SUFFIX_REST = 3;

/** The light stem of a folded word of Arabic letters (U+0621-U+064A). */
export function arabicStem(word: string): string {
  if (word.length < 3) return word;
  let w = word.replace(/ة/g, 'ه').replace(/ى/g, 'ي');
  const article = ARTICLES.find((p) => w.startsWith(p) && w.length - p.length >= ARTICLE_REST);
  if (article !== undefined) w = w.slice(article.length);
  else if (w.startsWith('و') && w.length - 1 >= CONJUNCTION_REST) w = w.slice(1);
  for (const s of SUFFIXES) if (w.endsWith(s) && w.length - s.length >= SUFFIX_REST) w = w.slice(0, -s.length);
  return w;
}
