import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idSegment, slugify } from './paths.js';

/** The segment an id that is not a bare slug gets: its slug, '-', 10 hex digits of its SHA-256. */
const hashed = (id: string) => `${slugify(id)}-${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 10)}`;

/** A small seeded generator (mulberry32), so a failure names ids that reproduce. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEVICES = ['con', 'prn', 'aux', 'nul', 'com1', 'com9', 'lpt1', 'lpt9'];

/** Ids built to collide: slug-alikes, case variants, device names, long ids, others' hashed segments. */
function generatedIds(count: number): string[] {
  const next = random(20240611);
  const pick = <T>(xs: ArrayLike<T>): T => xs[Math.floor(next() * xs.length)]!;
  const alphabet = 'abcxyz019-_. AZé/\\';
  const ids = new Set<string>(['default', 'alice', 'Alice', 'ALICE', 'alice ', 'alicé', 'a-b', 'a_b', 'a b', 'A-B', '-a', 'a-', '..', '.', '-', '_', 'untitled']);
  for (const d of DEVICES) for (const v of [d, d.toUpperCase(), `${d}-x`, `${d}.json`, ` ${d}`]) ids.add(v);
  const long = 'x'.repeat(80);
  for (const tail of ['', 'a', 'b', '-c', 'Z', '--', '!']) ids.add(long + tail);
  while (ids.size < count) {
    const n = 1 + Math.floor(next() * 14);
    let s = '';
    for (let i = 0; i < n; i++) s += pick(alphabet);
    ids.add(s);
    ids.add(s.toUpperCase());
    if (next() < 0.05) ids.add(s.repeat(12));
  }
  // Every id spelled as another's hashed segment, and as its actual segment.
  for (const id of [...ids]) {
    ids.add(hashed(id));
    ids.add(idSegment(id));
  }
  return [...ids];
}

describe('idSegment', () => {
  it('keeps a bare slug as it is (existing data dirs keep their files)', () => {
    for (const id of ['default', 'alice', 'bob-2', 'nul-x', 'a1b2c3', 'alice-3bc510629', 'alice-3bc5106297a', 'alice-gbc5106297', 'x3bc5106297']) {
      expect(idSegment(id), id).toBe(id);
    }
  });

  it('gives an id spelled like another id\'s hashed segment a segment of its own', () => {
    expect(idSegment('Alice')).toBe('alice-3bc5106297');
    expect(idSegment('alice-3bc5106297')).not.toBe(idSegment('Alice'));
    expect(idSegment('alice-3bc5106297')).toBe(hashed('alice-3bc5106297'));
    expect(idSegment('nul')).not.toBe(idSegment(idSegment('nul')));
  });

  it('never gives two distinct ids the same segment, even ignoring case', () => {
    const ids = generatedIds(4000);
    const owner = new Map<string, string>();
    for (const id of ids) {
      const seg = idSegment(id);
      expect(seg, JSON.stringify(id)).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(seg.length, JSON.stringify(id)).toBeLessThanOrEqual(91);
      expect(DEVICES.includes(seg.replace(/\d$/, '1')), JSON.stringify(id)).toBe(false);
      const before = owner.get(seg.toLowerCase());
      if (before !== undefined) expect.fail(`${JSON.stringify(before)} and ${JSON.stringify(id)} share the segment ${seg}`);
      owner.set(seg.toLowerCase(), id);
    }
    expect(owner.size).toBe(ids.length);
  });
});
