/**
 * One term's postings: (slot, quantised weighted term frequency) pairs in increasing slot order,
 * each stored as two varints (the gap to the previous slot, then the frequency), so a common term
 * costs about two bytes a posting. A skip entry every SKIP_EVERY postings (its byte offset and the
 * slot before it) lets a reader start near any posting without decoding from the first.
 */

/** Postings between two skip entries. */
export const SKIP_EVERY = 64;

/** Bytes of one varint. */
export function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** Bytes that appending (slot, q) after `last` takes. */
export function postingSize(slot: number, last: number, q: number): number {
  return varintSize(slot - last) + varintSize(q);
}

export class PostingList {
  /** Postings written. */
  n = 0;
  /** Bytes written. */
  len = 0;
  /** Slot of the last posting (0 before the first). */
  last = 0;
  bytes: Uint8Array;
  /** Pairs (byte offset of posting k * SKIP_EVERY, slot of the posting before it). */
  skips: Int32Array;

  /** `bytes` and `postings`: the capacity to allocate up front (a build knows both exactly). */
  constructor(bytes = 4, postings = 1) {
    this.bytes = new Uint8Array(bytes);
    this.skips = new Int32Array(2 * (Math.floor((postings - 1) / SKIP_EVERY) + 1));
  }

  /** A list with the given contents (a snapshot's), taking ownership of the arrays. */
  static restore(n: number, len: number, last: number, bytes: Uint8Array, skips: Int32Array): PostingList {
    const list = new PostingList(0, 1);
    list.n = n;
    list.len = len;
    list.last = last;
    list.bytes = bytes;
    list.skips = skips;
    return list;
  }

  /** The skip entries in use: two numbers per SKIP_EVERY postings begun. */
  get skipsUsed(): number {
    return 2 * Math.ceil(this.n / SKIP_EVERY);
  }

  append(slot: number, q: number): void {
    if (slot <= this.last) throw new Error(`postings must grow: slot ${slot} after ${this.last}`);
    if (this.n % SKIP_EVERY === 0) {
      const k = 2 * (this.n / SKIP_EVERY);
      if (k + 1 >= this.skips.length) {
        const next = new Int32Array(Math.max(k + 2, this.skips.length * 2));
        next.set(this.skips);
        this.skips = next;
      }
      this.skips[k] = this.len;
      this.skips[k + 1] = this.last;
    }
    const need = this.len + postingSize(slot, this.last, q);
    if (need > this.bytes.length) {
      const next = new Uint8Array(Math.max(need, Math.ceil(this.bytes.length * 1.5) + 8));
      next.set(this.bytes.subarray(0, this.len));
      this.bytes = next;
    }
    this.len = writePosting(this.bytes, this.len, slot, this.last, q);
    this.last = slot;
    this.n++;
  }
}

function writeVarint(buf: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    buf[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[at++] = v;
  return at;
}

/**
 * Append (slot, q) after `last` to `buf` at byte `at` (the caller made room: postingSize bytes);
 * returns the byte after it. The encoding PostingList uses, for lists kept elsewhere (term-index.ts
 * keeps small ones inline in one buffer per scope).
 */
export function writePosting(buf: Uint8Array, at: number, slot: number, last: number, q: number): number {
  return writeVarint(buf, writeVarint(buf, at, slot - last), q);
}

/**
 * A forward reader over postings: next() decodes one posting into `slot` and `q`; it returns false
 * past the end. `over` reads a PostingList from index `from` on, `inline` a list of at most
 * SKIP_EVERY postings written with writePosting from `at` (no skip entries).
 */
export class PostingCursor {
  slot: number;
  q = 0;
  private at: number;
  private left: number;
  private readonly bytes: Uint8Array;

  /** Reading `left` postings of `bytes` from byte `at`, the slot before them being `slot`. */
  constructor(bytes: Uint8Array, at: number, slot: number, left: number) {
    this.bytes = bytes;
    this.at = at;
    this.slot = slot;
    this.left = left;
  }

  static over(list: PostingList, from: number): PostingCursor {
    const start = Math.max(0, Math.min(from, list.n));
    const k = Math.floor(start / SKIP_EVERY);
    const left = list.n - k * SKIP_EVERY;
    if (left <= 0) return new PostingCursor(list.bytes, list.len, 0, 0);
    const c = new PostingCursor(list.bytes, list.skips[2 * k], list.skips[2 * k + 1], left);
    for (let i = k * SKIP_EVERY; i < start; i++) c.next();
    return c;
  }

  /** The postings of an inline list (n <= SKIP_EVERY) at `at` of `bytes`, from index `from` on. */
  static inline(bytes: Uint8Array, at: number, n: number, from: number): PostingCursor {
    const c = new PostingCursor(bytes, at, 0, n);
    for (let i = 0; i < from && i < n; i++) c.next();
    return c;
  }

  next(): boolean {
    if (this.left === 0) return false;
    this.left--;
    const b = this.bytes;
    let at = this.at;
    // Most gaps and frequencies take one byte: the loop only runs for longer varints.
    let x = b[at++];
    let v = x & 0x7f;
    for (let mul = 0x80; x & 0x80; mul *= 0x80) {
      x = b[at++];
      v += (x & 0x7f) * mul;
    }
    this.slot += v;
    x = b[at++];
    v = x & 0x7f;
    for (let mul = 0x80; x & 0x80; mul *= 0x80) {
      x = b[at++];
      v += (x & 0x7f) * mul;
    }
    this.q = v;
    this.at = at;
    return true;
  }

}
