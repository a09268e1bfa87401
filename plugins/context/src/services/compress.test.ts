import { describe, expect, it } from 'vitest';
import { compress, compressLog, compressPython, isPython } from './compress.js';

const PY = [
  'import os',
  '',
  '@dataclass',
  'class Point:',
  '    x: int',
  '    y: int',
  '',
  '    def norm(self) -> float:',
  '        """Length."""',
  '        return (self.x ** 2 + self.y ** 2) ** 0.5',
  '',
  'async def fetch(url: str,',
  '                timeout: float = 1.0) -> bytes:  # network',
  '    def inner():',
  '        pass',
  '    return await get(url)',
  '',
  'class Empty:',
  '    pass',
  '',
  'def one(x): return x',
].join('\n');

describe('Python recognition', () => {
  it('takes def/class headers ending with a colon as Python, not Ruby or JavaScript', () => {
    expect(isPython(PY)).toBe(true);
    expect(isPython('def greet(name)\n  puts name\nend')).toBe(false);
    expect(isPython('function f(x) {\n  return x;\n}\nclass A {\n}')).toBe(false);
    expect(isPython('just a line')).toBe(false);
  });
});

describe('code mode', () => {
  it('keeps decorators, class headers and signatures, and drops bodies', () => {
    const r = compressPython(PY)!;
    expect(r.text).toBe(
      [
        '@dataclass',
        'class Point:',
        '    def norm(self) -> float:',
        '        ...',
        'async def fetch(url: str,',
        '                timeout: float = 1.0) -> bytes:  # network',
        '    ...',
        'class Empty:',
        '    ...',
        'def one(x): ...',
      ].join('\n'),
    );
    expect(r.original_lines).toBe(21);
    // Input lines kept: @dataclass, class Point, def norm, the two fetch lines, class Empty, def one.
    expect(r.kept_lines).toBe(7);
  });

  it('falls back to log mode on non-Python input, without an error', () => {
    const r = compress('function f() {\n  return 1;\n}', 'code');
    expect(r).toMatchObject({ mode: 'log', requested_mode: 'code', fell_back: true, original_lines: 3, kept_lines: 3 });
    expect(r.text).toBe('function f() {\n  return 1;\n}');
  });

  it('auto tries code first', () => {
    expect(compress(PY, 'auto')).toMatchObject({ mode: 'code', fell_back: false });
    expect(compress('a\nb', 'auto')).toMatchObject({ mode: 'log', fell_back: true });
    expect(compress(PY, 'log').mode).toBe('log');
  });
});

describe('log mode', () => {
  const log = [
    ...Array.from({ length: 20 }, (_, i) => `2026-01-01T00:00:${String(i).padStart(2, '0')} INFO step ${i}`),
    'WARNING disk at 91%',
    ...Array.from({ length: 10 }, (_, i) => `2026-01-01T00:01:${String(i).padStart(2, '0')} INFO heartbeat`),
    'ERROR connection refused',
    'INFO retrying',
    'ERROR connection refused',
    ...['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `INFO tail ${x}`),
  ];

  it('collapses repeats, keeps head, tail and each distinct signal line once', () => {
    const r = compressLog(log.join('\n'), 50);
    expect(r.original_lines).toBe(40);
    expect(r.text.split('\n')).toEqual([
      // The 20 "INFO step N" lines differ only in digits: one run.
      '2026-01-01T00:00:00 INFO step 0  [repeated 20 times]',
      'WARNING disk at 91%',
      '2026-01-01T00:01:00 INFO heartbeat  [repeated 10 times]',
      'ERROR connection refused',
      'INFO retrying',
      // The second "ERROR connection refused" is a signal seen before, and "tail a" is neither head nor tail.
      '[... 2 lines omitted ...]',
      'INFO tail b',
      'INFO tail c',
      'INFO tail d',
      'INFO tail e',
      'INFO tail f',
    ]);
    expect(r.kept_lines).toBe(10);
  });

  it('caps the kept lines at max_lines: head, then tail, then signals', () => {
    const plain = Array.from({ length: 30 }, (_, i) => `line ${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const lines = [...plain.slice(0, 15), 'fatal: boom', ...plain.slice(15), 'error: late'];
    const r = compressLog(lines.join('\n'), 11);
    const out = r.text.split('\n');
    expect(r.kept_lines).toBe(11);
    expect(out.slice(0, 5)).toEqual(['line aa', 'line ba', 'line ca', 'line da', 'line ea']);
    expect(out.slice(5)).toEqual(['[... 10 lines omitted ...]', 'fatal: boom', '[... 11 lines omitted ...]', 'line ab', 'line bb', 'line cb', 'line db', 'error: late']);
    // With room for 3, the head alone.
    expect(compressLog(lines.join('\n'), 3).text.split('\n')).toEqual(['line aa', 'line ba', 'line ca', '[... 29 lines omitted ...]']);
  });

  it('returns a short log unchanged', () => {
    expect(compressLog('one\ntwo\nthree\n')).toEqual({ original_lines: 3, kept_lines: 3, text: 'one\ntwo\nthree' });
  });
});
