import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { INDEX_FORMAT, type SourceIndexState, type TermState } from './index-state.js';

/**
 * A retrieval index saved to a file, so a start reads it instead of rebuilding it from the table
 * (at 100,000 memories, tens of milliseconds instead of seconds). No database or file-system code
 * here: index-sync.ts decides when to save and whether a saved index still matches the database.
 *
 * Layout: the 8-byte magic, the header's length (uint32 LE), the header (JSON: what the index is
 * of and where each array lies in the body), the body (the arrays, one after another), and the
 * SHA-1 of everything before it. A file that is cut short, altered or of another format is
 * refused with an error; the caller then rebuilds.
 */

const MAGIC = Buffer.from('MSRIDX\u0000\u0001', 'latin1');
const DIGEST_BYTES = 20;

/** What the saved index is of: the caller compares these with the database before using it. */
export interface SnapshotMeta {
  source: string;
  /** Random per save; the database records the token of the last save (retrieval_snapshots). */
  token: string;
  /** seq of the last retrieval_changes row the index holds. */
  cursor: number;
}

type Span = [offset: number, bytes: number];

interface Header extends SnapshotMeta {
  format: number;
  /** The arrays are written in the machine's byte order: a file from a machine of the other order is refused. */
  endian: 'LE' | 'BE';
  weights: number[];
  nextSlot: number;
  live: number;
  dead: number;
  facets: string[];
  slotDoc: Span;
  slotPart: Span;
  slotFacet: Span;
  slotLen: Span;
  docSlot: Span;
  parts: { scope: string; docs: number; resident?: false; colTotals: number[]; stems: string[]; meta: Span; bytes: Span; skips: Span }[];
}

/** Per term in a part's meta array: df, n, len, last, skips used. */
const TERM_FIELDS = 5;

/**
 * The file of a snapshot, as the chunks to write one after another (the header, the arrays, the
 * checksum), so no copy of the whole is made. The chunks view the index's own arrays where they
 * can: write them before the index changes.
 */
export function encodeSnapshot(meta: SnapshotMeta, s: SourceIndexState): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  const put = (a: ArrayBufferView): Span => {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    chunks.push(bytes);
    const span: Span = [at, bytes.byteLength];
    at += bytes.byteLength;
    return span;
  };
  const header: Header = {
    format: INDEX_FORMAT,
    endian: endianness(),
    ...meta,
    weights: [...s.weights],
    nextSlot: s.nextSlot,
    live: s.live,
    dead: s.dead,
    facets: [...s.facets],
    slotDoc: put(s.slotDoc),
    slotPart: put(s.slotPart),
    slotFacet: put(s.slotFacet),
    slotLen: put(s.slotLen),
    docSlot: put(s.docSlot),
    parts: s.parts.map((p) => {
      const fields = new Int32Array(p.terms.length * TERM_FIELDS);
      let bytes = 0;
      let skips = 0;
      p.terms.forEach((t, i) => {
        fields.set([t.df, t.n, t.len, t.last, t.skips.length], i * TERM_FIELDS);
        bytes += t.bytes.byteLength;
        skips += t.skips.length;
      });
      const allBytes = new Uint8Array(bytes);
      const allSkips = new Int32Array(skips);
      let b = 0;
      let k = 0;
      for (const t of p.terms) {
        allBytes.set(t.bytes, b);
        b += t.bytes.byteLength;
        allSkips.set(t.skips, k);
        k += t.skips.length;
      }
      return {
        scope: p.scope,
        docs: p.docs,
        // Written for an evicted part only (no terms, no totals): the common part stays as it was.
        ...(p.resident ? {} : { resident: false as const }),
        colTotals: [...p.colTotals],
        stems: p.terms.map((t) => t.stem),
        meta: put(fields),
        bytes: put(allBytes),
        skips: put(allSkips),
      };
    }),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.byteLength);
  const all = [MAGIC, length, json, ...chunks];
  const hash = createHash('sha1');
  for (const c of all) hash.update(c);
  return [...all, hash.digest()];
}

/** The meta and state of a saved index; throws when the file is not a whole snapshot of this format. */
export function decodeSnapshot(file: Buffer): { meta: SnapshotMeta; state: SourceIndexState } {
  if (file.byteLength < MAGIC.byteLength + 4 + DIGEST_BYTES || !file.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
    throw new Error('not a retrieval index snapshot');
  }
  const end = file.byteLength - DIGEST_BYTES;
  if (!createHash('sha1').update(file.subarray(0, end)).digest().equals(file.subarray(end))) {
    throw new Error('retrieval index snapshot is damaged (checksum)');
  }
  const jsonAt = MAGIC.byteLength + 4;
  const jsonEnd = jsonAt + file.readUInt32LE(MAGIC.byteLength);
  if (jsonEnd > end) throw new Error('retrieval index snapshot is cut short');
  const h = JSON.parse(file.toString('utf8', jsonAt, jsonEnd)) as Header;
  if (h.format !== INDEX_FORMAT) throw new Error(`retrieval index snapshot of format ${h.format}, not ${INDEX_FORMAT}`);
  if (h.endian !== endianness()) throw new Error(`retrieval index snapshot in ${h.endian} byte order, not ${endianness()}`);
  // Every slot array is copied out of the file into its own buffer, once, and fromState copies the
  // postings: the file's memory is freed after.
  const at = ([offset, bytes]: Span, unit: number): number => {
    const from = jsonEnd + offset;
    if (offset < 0 || bytes < 0 || bytes % unit !== 0 || from + bytes > end) throw new Error('retrieval index snapshot has a bad span');
    return file.byteOffset + from;
  };
  const copy = (span: Span, unit: number): ArrayBuffer => {
    const from = at(span, unit);
    return file.buffer.slice(from, from + span[1]) as ArrayBuffer;
  };
  const i32 = (span: Span) => new Int32Array(copy(span, 4));
  const state: SourceIndexState = {
    weights: h.weights,
    nextSlot: h.nextSlot,
    live: h.live,
    dead: h.dead,
    slotDoc: i32(h.slotDoc),
    slotPart: i32(h.slotPart),
    slotFacet: i32(h.slotFacet),
    slotLen: new Float64Array(copy(h.slotLen, 8)),
    docSlot: i32(h.docSlot),
    facets: h.facets,
    parts: h.parts.map((p) => {
      const fields = i32(p.meta);
      // The terms' postings and skips are views of the file: SourceIndex.fromState copies them
      // (a small term's into its part's buffer), so no small buffer is made per term here.
      let b = at(p.bytes, 1);
      let k = at(p.skips, 4);
      const bytesEnd = b + p.bytes[1];
      const skipsEnd = k + p.skips[1];
      if (fields.length !== p.stems.length * TERM_FIELDS) throw new Error('retrieval index snapshot has a bad term table');
      const terms: TermState[] = [];
      for (let i = 0; i < p.stems.length; i++) {
        const [df, n, len, last, skipsUsed] = fields.subarray(i * TERM_FIELDS, (i + 1) * TERM_FIELDS);
        if (b + len > bytesEnd || k + 4 * skipsUsed > skipsEnd) throw new Error('retrieval index snapshot has a bad term table');
        const bytes = new Uint8Array(file.buffer, b, len);
        // Int32Array views need an aligned offset: the skips are copied when theirs is not.
        const skips = k % 4 === 0 ? new Int32Array(file.buffer, k, skipsUsed) : new Int32Array(file.buffer.slice(k, k + 4 * skipsUsed) as ArrayBuffer);
        terms.push({ stem: p.stems[i], df, n, len, last, bytes, skips });
        b += len;
        k += 4 * skipsUsed;
      }
      return { scope: p.scope, docs: p.docs, resident: p.resident !== false, colTotals: Float64Array.from(p.colTotals), terms };
    }),
  };
  const slots = h.nextSlot;
  if (state.slotDoc.length !== slots || state.slotPart.length !== slots || state.slotLen.length !== slots || (state.slotFacet.length !== 0 && state.slotFacet.length !== slots)) {
    throw new Error('retrieval index snapshot has slot arrays of the wrong length');
  }
  return { meta: { source: h.source, token: h.token, cursor: h.cursor }, state };
}
