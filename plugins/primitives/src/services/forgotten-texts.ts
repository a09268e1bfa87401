import { foldText } from '@memory-service/stores';

/** A text as forget compares it: folded as retrieval folds (foldText: case, accents, full-width forms), white space collapsed. */
export const norm = (s: string) => foldText(s).replace(/\s+/g, ' ').trim();

/**
 * Characters a text must have to count as distinctive on length alone (carriesValue), and the
 * least of a text's start that an excerpt or a cut-off context must hold (isExcerptOf,
 * holdsStartOf): one figure, so a value of this length or more is found by its first WINDOW characters.
 */
export const WINDOW = 16;

/** Whether a folded value is matched where a record contains it (else only where a record is exactly it): at least 3 words or WINDOW characters. */
export function isDistinctive(folded: string): boolean {
  return folded.length >= WINDOW || folded.split(' ').length >= 3;
}

/** Bits of the filter a window's hash is looked up in before its text is (2^20 bits: 128 KiB). */
const FILTER_BITS = 20;
const FILTER_MASK = (1 << FILTER_BITS) - 1;
/** The rolling hash's multiplier (odd, so every power of it is too). */
const BASE = 0x01000193;

/**
 * Texts of one length `width` (or the first `width` characters of longer ones), found at every
 * position of a text in one pass: a rolling hash of the window at each position is tested against
 * a bit filter, and only a hit reads the window and looks it up. A pass costs a few operations a
 * character however many texts there are, where testing each text in turn cost one search each.
 */
class WindowIndex {
  private readonly byHead = new Map<string, string[]>();
  private readonly filter = new Uint32Array(1 << (FILTER_BITS - 5));
  /** BASE to the power width - 1: what the character leaving the window weighed. */
  private readonly top: number;

  constructor(readonly width: number) {
    let p = 1;
    for (let i = 1; i < width; i++) p = Math.imul(p, BASE);
    this.top = p;
  }

  get size(): number {
    return this.byHead.size;
  }

  add(text: string): void {
    const head = text.slice(0, this.width);
    const list = this.byHead.get(head);
    if (list) {
      if (!list.includes(text)) list.push(text);
      return;
    }
    this.byHead.set(head, [text]);
    const h = this.hashAt(head, 0) & FILTER_MASK;
    this.filter[h >>> 5] |= 1 << (h & 31);
  }

  /** The texts whose first `width` characters are `head`. */
  withHead(head: string): readonly string[] | undefined {
    return this.byHead.get(head);
  }

  private hashAt(s: string, from: number): number {
    let h = 0;
    for (let k = 0; k < this.width; k++) h = (Math.imul(h, BASE) + s.charCodeAt(from + k)) | 0;
    return h;
  }

  /** Whether `hit` is true for some position of `s` whose window is the head of indexed texts (given them). */
  some(s: string, hit: (at: number, texts: readonly string[]) => boolean): boolean {
    const w = this.width;
    if (this.byHead.size === 0 || s.length < w) return false;
    const { filter, top } = this;
    let h = this.hashAt(s, 0);
    for (let i = 0; ; i++) {
      const b = h & FILTER_MASK;
      if (filter[b >>> 5] & (1 << (b & 31))) {
        const texts = this.byHead.get(s.slice(i, i + w));
        if (texts && hit(i, texts)) return true;
      }
      if (i + w >= s.length) return false;
      h = (Math.imul((h - Math.imul(s.charCodeAt(i), top)) | 0, BASE) + s.charCodeAt(i + w)) | 0;
    }
  }
}

/**
 * The texts a forget removes (a fact's value, the deleted episodes' summaries, pages' contents),
 * folded once, and the tests forget makes of every other record against all of them at once. Each
 * test answers as testing each text in turn with carriesValue, isExcerptOf and holdsStartOf
 * (forgetter.ts) would, but in one pass over the record: a fuzzy forget of 3,700 episodes tested
 * 100,000 contexts against each of them (about a minute and a half at 100,000 memories).
 */
export class ForgottenTexts {
  /** Every text, folded: a record that is exactly one of them carries it. */
  private readonly all = new Set<string>();
  /** Texts of WINDOW characters or more, by their first WINDOW. */
  private readonly long = new WindowIndex(WINDOW);
  /** Texts shorter than WINDOW, one index per length; `shortDistinctive` holds those of 3 words or more. */
  private readonly short = new Map<number, WindowIndex>();
  private readonly shortDistinctive = new Map<number, WindowIndex>();

  constructor(texts: Iterable<string>) {
    for (const text of texts) {
      const v = norm(text);
      if (!v || this.all.has(v)) continue;
      this.all.add(v);
      if (v.length >= WINDOW) {
        this.long.add(v);
        continue;
      }
      indexAt(this.short, v);
      if (isDistinctive(v)) indexAt(this.shortDistinctive, v);
    }
  }

  get size(): number {
    return this.all.size;
  }

  /**
   * Whether a record carries one of the texts (carriesValue: a distinctive one contained, another
   * the whole record) or is an excerpt of one (isExcerptOf: at least WINDOW characters of its start, then "…").
   */
  carriedBy(recordText: string): boolean {
    const r = norm(recordText);
    if (r && this.all.has(r)) return true;
    if (this.long.some(r, (at, texts) => texts.some((v) => r.startsWith(v, at)))) return true;
    for (const index of this.shortDistinctive.values()) if (index.some(r, () => true)) return true;
    // The ellipsis is looked for before folding, which spells it "...".
    const trimmed = recordText.trimEnd();
    if (!trimmed.endsWith('…')) return false;
    const head = norm(trimmed.slice(0, -1));
    return head.length >= WINDOW && (this.long.withHead(head.slice(0, WINDOW))?.some((v) => v.startsWith(head)) ?? false);
  }

  /**
   * Whether a context holds one of the texts (holdsStartOf): whole, or its start (at least WINDOW
   * characters) cut off at the context's end.
   */
  startHeldBy(context: string): boolean {
    const c = norm(context);
    if (this.long.some(c, (at, texts) => texts.some((v) => c.startsWith(v, at) || v.startsWith(c.slice(at))))) return true;
    for (const index of this.short.values()) if (index.some(c, () => true)) return true;
    return false;
  }
}

function indexAt(indexes: Map<number, WindowIndex>, v: string): void {
  let index = indexes.get(v.length);
  if (!index) indexes.set(v.length, (index = new WindowIndex(v.length)));
  index.add(v);
}
