import { describe, expect, it } from 'vitest';
import { checkNoControlChars, controlCharAt } from './control.js';

describe('control characters', () => {
  it('finds C0, DEL and C1 in a single-line text, line breaks and tabs included', () => {
    for (const bad of ['\u0007', 'a\u001b[31mred', 'nul\u0000', 'tab\there', 'line\nbreak', 'cr\r', 'del\u007f', 'nel\u0085', 'csi\u009b', '\u0080', 'line\u2028sep', 'para\u2029sep']) {
      expect(controlCharAt(bad), JSON.stringify(bad)).toBeGreaterThanOrEqual(0);
    }
    expect(controlCharAt('a\u001b[31m')).toBe(1);
    for (const ok of ['', 'plain', 'café ☕ 𝄞', 'nbsp\u00a0here', '\u00a0', '\u00ff', '~']) {
      expect(controlCharAt(ok), JSON.stringify(ok)).toBe(-1);
    }
  });

  it('a multi-line text may keep LF, CRLF and tabs, and no other control character', () => {
    for (const ok of ['one\ntwo', 'one\r\ntwo', 'a\tb', '\n\n\t', 'line\u2028sep', 'para\u2029sep']) expect(controlCharAt(ok, { multiline: true }), JSON.stringify(ok)).toBe(-1);
    for (const bad of ['bell\u0007', 'esc\u001b[0m', 'lone\rcr', 'cr at end\r', 'nul\u0000', 'vt\u000b', 'ff\u000c', 'del\u007f', 'c1\u0085']) {
      expect(controlCharAt(bad, { multiline: true }), JSON.stringify(bad)).toBeGreaterThanOrEqual(0);
    }
  });

  it('checkNoControlChars throws a validation error naming the field, the character and its index', () => {
    expect(() => checkNoControlChars('name', 'Apo\u0007llo')).toThrow(
      expect.objectContaining({ code: 'KERNEL_ERR_VALIDATION', field: 'name', message: expect.stringMatching(/control characters.*U\+0007 at index 3/) }),
    );
    expect(() => checkNoControlChars('status', 'done\n')).toThrow(expect.objectContaining({ field: 'status', message: expect.stringMatching(/U\+000A.*single line/) }));
    expect(() => checkNoControlChars('details', 'ok\nfine')).toThrow(expect.objectContaining({ field: 'details' }));
    expect(() => checkNoControlChars('key', 'a\u2028b')).toThrow(expect.objectContaining({ field: 'key', message: expect.stringMatching(/U\+2028 at index 1.*U\+2028 and U\+2029/) }));
    expect(() => checkNoControlChars('title', 'a\u2029b')).toThrow(expect.objectContaining({ field: 'title', message: expect.stringMatching(/U\+2029 at index 1/) }));
    expect(() => checkNoControlChars('details', 'ok\nfine\u009b', { multiline: true })).toThrow(
      expect.objectContaining({ field: 'details', message: expect.stringMatching(/U\+009B.*line breaks and tabs/) }),
    );
    expect(() => checkNoControlChars('details', 'ok\r\nfine\tgo', { multiline: true })).not.toThrow();
  });
});
