import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot } from './index-snapshot.js';
import { INDEX_FORMAT, SourceIndex, type IndexedDoc } from './term-index.js';

const words = ['harbour', 'ferry', 'island', 'tide', 'lighthouse', 'gull', 'net', 'rope', 'kayak', 'canoe'];
const stems = ['harbour', 'ferri', 'island', 'tide', 'lighthous', 'gull', 'net', 'rope', 'kayak', 'cano'];

function docs(count: number, seed: number): IndexedDoc[] {
  let s = seed;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const text = () => Array.from({ length: 1 + rand(12) }, () => words[rand(words.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    scope: ['u', 'v', 'w'][rand(3)],
    facet: rand(4) === 0 ? 'diary' : rand(2) === 0 ? 'log' : null,
    columns: [text(), rand(3) === 0 ? text() : ''],
  }));
}

/** Every answer the index can give for these queries, to compare two indexes by. */
function answers(ix: SourceIndex): unknown[] {
  const out: unknown[] = [];
  for (const scope of ['u', 'v', 'w', 'none']) {
    out.push(ix.stats(scope), stems.map((st) => ix.df(scope, st)));
    for (let i = 0; i < stems.length; i++) {
      const terms = [stems[i], stems[(i + 3) % stems.length]].map((stem, k) => ({ stem, idf: 1 + k / 3 }));
      for (const facet of [null, 'diary', 'log']) out.push(ix.top(scope, terms, 7, 5, facet), ix.top(scope, terms.slice(0, 1), 300, 5, facet));
      // With this many query terms each term's walk starts far from its first posting, through
      // the skip table (terms no document holds still share the walk's budget).
      out.push(ix.top(scope, [...terms, ...Array.from({ length: 150 }, (_, k) => ({ stem: `zz${k}`, idf: 1 }))], 7, 5));
    }
  }
  return out;
}

/** An index of `count` documents with some removed (freed slots), as a long-lived one is. */
function used(count: number): SourceIndex {
  const ix = new SourceIndex([1, 0.5]);
  const all = docs(count, 11);
  for (const d of all) ix.add(d);
  for (const d of all) if (d.id % 5 === 0) ix.remove(d.id, d.columns);
  return ix;
}

const encode = (ix: SourceIndex, cursor = 9) => Buffer.concat(encodeSnapshot({ source: 'l3', token: 't', cursor }, ix.state()));
const roundTrip = (ix: SourceIndex) => SourceIndex.fromState(decodeSnapshot(encode(ix)).state);

describe('retrieval index snapshots', () => {
  it('give back an index that answers every query as the saved one did', () => {
    const ix = used(3000);
    const back = roundTrip(ix);
    expect(answers(back)).toEqual(answers(ix));
    expect([back.live, back.dead, back.slotsUsed]).toEqual([ix.live, ix.dead, ix.slotsUsed]);
    expect(decodeSnapshot(encode(ix)).meta).toEqual({ source: 'l3', token: 't', cursor: 9 });
  });

  it('give back an index that keeps taking changes as the saved one would', () => {
    const ix = used(1000);
    const back = roundTrip(ix);
    // Enough new documents that restored posting lists grow past their saved size and skip table.
    for (const d of docs(700, 5)) {
      const doc = { ...d, id: d.id + 5000 };
      ix.add(doc);
      back.add(doc);
    }
    for (const d of docs(1000, 11)) {
      if (d.id % 7 === 0 && d.id % 5 !== 0) {
        ix.remove(d.id, d.columns);
        back.remove(d.id, d.columns);
      }
    }
    expect(answers(back)).toEqual(answers(ix));
  });

  it('round-trip an empty index', () => {
    const ix = new SourceIndex([1]);
    expect(answers(roundTrip(ix))).toEqual(answers(ix));
  });

  it('refuse a file that is damaged, cut short, not a snapshot, or of another format', () => {
    const file = encode(used(200), 1);
    const flipped = Buffer.from(file);
    flipped[file.length >> 1] ^= 0x40;
    expect(() => decodeSnapshot(flipped)).toThrow(/checksum/);
    expect(() => decodeSnapshot(file.subarray(0, file.length - 7))).toThrow(/checksum/);
    expect(() => decodeSnapshot(Buffer.from('{"not":"an index"}'))).toThrow(/not a retrieval index snapshot/);
    // Another format (the one before, of as many digits, so the header keeps its length), with a
    // checksum that matches: refused for the format alone.
    const older = INDEX_FORMAT - 1;
    const body = Buffer.from(file.subarray(0, file.length - 20).toString('latin1').replace(`"format":${INDEX_FORMAT},`, `"format":${older},`), 'latin1');
    const other = Buffer.concat([body, createHash('sha1').update(body).digest()]);
    expect(() => decodeSnapshot(other)).toThrow(new RegExp(`format ${older}, not ${INDEX_FORMAT}`));
    // The other byte order, likewise.
    const mine = endianness();
    const body2 = Buffer.from(file.subarray(0, file.length - 20).toString('latin1').replace(`"endian":"${mine}"`, `"endian":"${mine === 'LE' ? 'BE' : 'LE'}"`), 'latin1');
    const swapped = Buffer.concat([body2, createHash('sha1').update(body2).digest()]);
    expect(() => decodeSnapshot(swapped)).toThrow(/byte order/);
  });
});
