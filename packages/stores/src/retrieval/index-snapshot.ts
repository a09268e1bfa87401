import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { INDEX_FORMAT, type PartState, type SourceIndexState, type TermState } from './index-state.js';

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
  own: number;
  nextSlot: number;
  live: number;
  dead: number;
  facets: string[];
  slotDoc: Span;
  slotPart: Span;
  slotFacet: Span;
  slotLen: Span;
  docSlot: Span;
  /** The parts' scopes, by part id - 1. */
  scopes: string[];
  /**
   * The parts' table (Float64, PART_FIELDS a part) and column totals (Float64, one per weight a
   * part): arrays in the body rather than an object a part in the header, which a start with
   * 10,000 scopes spent tens of milliseconds parsing.
   */
  parts: Span;
  colTotals: Span;
}

/**
 * Per part in the parts table: its documents, 1 when resident, its recency, then the offset and
 * length in the body of its stems (UTF-8, one after another), its term table (`meta`), its
 * postings and its skips.
 */
const PART_FIELDS = 11;
const P_DOCS = 0;
const P_RESIDENT = 1;
const P_RECENCY = 2;
const P_STEMS = 3;
const P_META = 5;
const P_BYTES = 7;
const P_SKIPS = 9;

/** Per term in a part's meta array: df, n, len, last, skips used, the stem's UTF-8 bytes. */
const TERM_FIELDS = 6;

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
    if (bytes.byteLength > 0) chunks.push(bytes);
    const span: Span = [at, bytes.byteLength];
    at += bytes.byteLength;
    return span;
  };
  const weights = s.weights.length;
  const table = new Float64Array(s.parts.length * PART_FIELDS);
  const totals = new Float64Array(s.parts.length * weights);
  const header: Header = {
    format: INDEX_FORMAT,
    endian: endianness(),
    ...meta,
    weights: [...s.weights],
    own: s.own,
    nextSlot: s.nextSlot,
    live: s.live,
    dead: s.dead,
    facets: [...s.facets],
    slotDoc: put(s.slotDoc),
    slotPart: put(s.slotPart),
    slotFacet: put(s.slotFacet),
    slotLen: put(s.slotLen),
    docSlot: put(s.docSlot),
    scopes: s.parts.map((p) => p.scope),
    parts: [0, 0],
    colTotals: [0, 0],
  };
  s.parts.forEach((p, i) => {
    const terms = p.saved ? p.saved() : p.terms;
    const fields = new Int32Array(terms.length * TERM_FIELDS);
    let bytes = 0;
    let skips = 0;
    let stemBytes = 0;
    terms.forEach((t, j) => {
      const stem = Buffer.byteLength(t.stem, 'utf8');
      fields.set([t.df, t.n, t.len, t.last, t.skips.length, stem], j * TERM_FIELDS);
      bytes += t.bytes.byteLength;
      skips += t.skips.length;
      stemBytes += stem;
    });
    const allBytes = new Uint8Array(bytes);
    const allSkips = new Int32Array(skips);
    // Each stem written on its own, so its length is the one in `fields` (UTF-8 of the stem alone).
    const allStems = Buffer.alloc(stemBytes);
    let b = 0;
    let k = 0;
    let st = 0;
    for (const t of terms) {
      st += allStems.write(t.stem, st, 'utf8');
      allBytes.set(t.bytes, b);
      b += t.bytes.byteLength;
      allSkips.set(t.skips, k);
      k += t.skips.length;
    }
    table.set([p.docs, p.resident ? 1 : 0, p.recency, ...put(allStems), ...put(fields), ...put(allBytes), ...put(allSkips)], i * PART_FIELDS);
    if (p.resident) totals.set(p.colTotals.subarray(0, weights), i * weights);
  });
  header.parts = put(table);
  header.colTotals = put(totals);
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.byteLength);
  const all = [MAGIC, length, json, ...chunks];
  const hash = createHash('sha1');
  for (const c of all) hash.update(c);
  return [...all, hash.digest()];
}

/**
 * The meta and state of a saved index; throws when the file is not a whole snapshot of this
 * format. At most `keep` parts keep their terms (the most recently used ones when more were
 * resident): the others come back evicted, to be reloaded from their rows at their first search.
 * A kept part's terms are not decoded here: its bytes are copied, with the other kept parts', into
 * one buffer of their own (so the file's memory is freed after), and its `saved` reads them when
 * called (SourceIndex.fromState calls it at the part's first use).
 */
export function decodeSnapshot(file: Buffer, keep = Number.POSITIVE_INFINITY): { meta: SnapshotMeta; state: SourceIndexState } {
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
  // Every slot array is copied out of the file into its own buffer, once: the file's memory is
  // freed after.
  const at = ([offset, bytes]: Span, unit: number): number => {
    const from = jsonEnd + offset;
    if (!(offset >= 0 && bytes >= 0 && bytes % unit === 0 && from + bytes <= end)) throw new Error('retrieval index snapshot has a bad span');
    return file.byteOffset + from;
  };
  const copy = (span: Span, unit: number): ArrayBuffer => {
    const from = at(span, unit);
    return file.buffer.slice(from, from + span[1]) as ArrayBuffer;
  };
  const i32 = (span: Span) => new Int32Array(copy(span, 4));
  const weights = h.weights.length;
  if (!(Number.isInteger(h.own) && h.own >= 1 && h.own <= weights)) throw new Error('retrieval index snapshot has a bad own column count');
  const n = h.scopes.length;
  const table = new Float64Array(copy(h.parts, 8));
  const totals = new Float64Array(copy(h.colTotals, 8));
  if (table.length !== n * PART_FIELDS || totals.length !== n * weights) throw new Error('retrieval index snapshot has a bad part table');
  const kept = keptParts(table, keep);
  const terms = savedTerms(file, table, kept, at);
  // Read by no one: an evicted or empty part's totals are zero, and it has no terms here.
  const none = new Float64Array(weights);
  const noTerms: readonly TermState[] = [];
  const parts: PartState[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const scope = h.scopes[i];
    const docs = table[i * PART_FIELDS + P_DOCS];
    const saved = terms.get(i);
    // A part without documents has nothing to decode: it is read as it is, resident and empty.
    if (docs === 0) parts[i] = { scope, docs: 0, resident: true, recency: 0, colTotals: none, terms: noTerms };
    else if (!saved) parts[i] = { scope, docs, resident: false, recency: 0, colTotals: none, terms: noTerms };
    else parts[i] = { scope, docs, resident: true, recency: table[i * PART_FIELDS + P_RECENCY], colTotals: totals.subarray(i * weights, (i + 1) * weights), terms: noTerms, saved };
  }
  const state: SourceIndexState = {
    weights: h.weights,
    own: h.own,
    nextSlot: h.nextSlot,
    live: h.live,
    dead: h.dead,
    slotDoc: i32(h.slotDoc),
    slotPart: i32(h.slotPart),
    slotFacet: i32(h.slotFacet),
    slotLen: new Float64Array(copy(h.slotLen, 8)),
    docSlot: i32(h.docSlot),
    facets: h.facets,
    parts,
  };
  const slots = h.nextSlot;
  if (state.slotDoc.length !== slots || state.slotPart.length !== slots || state.slotLen.length !== slots || (state.slotFacet.length !== 0 && state.slotFacet.length !== slots)) {
    throw new Error('retrieval index snapshot has slot arrays of the wrong length');
  }
  return { meta: { source: h.source, token: h.token, cursor: h.cursor }, state };
}

/** The indexes of the parts to keep the terms of: resident, with documents, the `keep` most recently used. */
function keptParts(table: Float64Array, keep: number): number[] {
  const resident: number[] = [];
  const n = table.length / PART_FIELDS;
  for (let i = 0; i < n; i++) if (table[i * PART_FIELDS + P_RESIDENT] === 1 && table[i * PART_FIELDS + P_DOCS] > 0) resident.push(i);
  if (resident.length <= keep) return resident;
  const recency = (i: number) => table[i * PART_FIELDS + P_RECENCY];
  // Most recently used first; among equals, the part made later (as an index evicts the earlier).
  return resident.sort((a, b) => recency(b) - recency(a) || b - a).slice(0, Math.max(0, keep));
}

/**
 * The kept parts' terms, each as a function that reads them from one buffer holding every kept
 * part's term table, skips, postings and stems (copied out of the file and checked here, so a
 * later call cannot fail).
 */
function savedTerms(file: Buffer, table: Float64Array, kept: readonly number[], at: (span: Span, unit: number) => number): Map<number, () => readonly TermState[]> {
  const out = new Map<number, () => readonly TermState[]>();
  if (kept.length === 0) return out;
  // The Int32 tables first, then the bytes, so every Int32Array view is aligned.
  let size = 0;
  const place = (span: Span, unit: number): number => {
    at(span, unit);
    const o = size;
    size += span[1];
    return o;
  };
  const span = (i: number, field: number): Span => [table[i * PART_FIELDS + field], table[i * PART_FIELDS + field + 1]];
  const parts = kept.map((i) => ({ stems: span(i, P_STEMS), meta: span(i, P_META), bytes: span(i, P_BYTES), skips: span(i, P_SKIPS) }));
  const where = parts.map((p) => {
    return { meta: place(p.meta, 4 * TERM_FIELDS), skips: place(p.skips, 4), bytes: 0, stems: 0 };
  });
  parts.forEach((p, j) => {
    where[j].bytes = place(p.bytes, 1);
    where[j].stems = place(p.stems, 1);
  });
  const buffer = Buffer.alloc(size);
  const move = (span: Span, to: number) => {
    const from = at(span, 1) - file.byteOffset;
    file.copy(buffer, to, from, from + span[1]);
  };
  kept.forEach((i, j) => {
    const p = parts[j];
    const w = where[j];
    move(p.meta, w.meta);
    move(p.skips, w.skips);
    move(p.bytes, w.bytes);
    move(p.stems, w.stems);
    const n = p.meta[1] / (4 * TERM_FIELDS);
    const fields = new Int32Array(buffer.buffer, buffer.byteOffset + w.meta, n * TERM_FIELDS);
    let bytes = 0;
    let skips = 0;
    let stems = 0;
    for (let t = 0; t < n; t++) {
      const f = t * TERM_FIELDS;
      if (fields[f + 2] < 0 || fields[f + 4] < 0 || fields[f + 5] < 0) throw new Error('retrieval index snapshot has a bad term table');
      bytes += fields[f + 2];
      skips += 4 * fields[f + 4];
      stems += fields[f + 5];
    }
    if (bytes !== p.bytes[1] || skips !== p.skips[1] || stems !== p.stems[1]) throw new Error('retrieval index snapshot has a bad term table');
    out.set(i, () => {
      const terms: TermState[] = [];
      let b = w.bytes;
      let k = w.skips;
      let s = w.stems;
      for (let t = 0; t < n; t++) {
        const [df, tn, len, last, skipsUsed, stemBytes] = fields.subarray(t * TERM_FIELDS, (t + 1) * TERM_FIELDS);
        terms.push({
          stem: buffer.toString('utf8', s, s + stemBytes),
          df,
          n: tn,
          len,
          last,
          bytes: new Uint8Array(buffer.buffer, buffer.byteOffset + b, len),
          skips: new Int32Array(buffer.buffer, buffer.byteOffset + k, skipsUsed),
        });
        b += len;
        k += 4 * skipsUsed;
        s += stemBytes;
      }
      return terms;
    });
  });
  return out;
}
