import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { idSegment, safeJoin, slugify } from './paths.js';

describe('paths', () => {
  it('slugify strips separators, dots and diacritics', () => {
    expect(slugify('../../etc')).toBe('etc');
    expect(slugify('..')).toBe('untitled');
    expect(slugify('Café Déjà Vu!')).toBe('cafe-deja-vu');
    expect(slugify('a/b\\c')).toBe('a-b-c');
    expect(slugify('x'.repeat(200))).toHaveLength(80);
  });

  it('idSegment is one-to-one for ids that slug alike', () => {
    expect(idSegment('default')).toBe('default');
    expect(idSegment('Alice')).not.toBe(idSegment('alice'));
    expect(idSegment('../x')).toMatch(/^x-[0-9a-f]{10}$/);
    // A device name on Windows is never a file name, and stays apart from the id that is its new slug.
    expect(idSegment('nul')).toMatch(/^nul-x-[0-9a-f]{10}$/);
    expect(idSegment('nul-x')).toBe('nul-x');
  });

  it('safeJoin throws on escape', () => {
    const root = path.resolve('/tmp/root');
    expect(safeJoin(root, 'a', 'b.md')).toBe(path.join(root, 'a', 'b.md'));
    expect(() => safeJoin(root, '..', 'etc')).toThrow(/escapes/);
    expect(() => safeJoin(root, '/etc/passwd')).toThrow(/escapes/);
    expect(() => safeJoin(root, 'a/../../b')).toThrow(/escapes/);
  });
});
