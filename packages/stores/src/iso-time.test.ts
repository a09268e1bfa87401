import { describe, expect, it } from 'vitest';
import { checkIsoTimestamp, checkTimeRange, ISO_MAX, ISO_MIN, isoOf, recencyAge, recentWindow } from './iso-time.js';

function errOf(fn: () => unknown): any {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return 'no error';
}

describe('checkIsoTimestamp', () => {
  it('takes the RFC 3339 variants: a space or lower-case t, lower-case z, and an offset of hours only', () => {
    expect(checkIsoTimestamp('2026-01-31 09:30:00Z', 'f')).toBe('2026-01-31T09:30:00.000Z');
    expect(checkIsoTimestamp('2026-01-31t09:30:00z', 'f')).toBe('2026-01-31T09:30:00.000Z');
    expect(checkIsoTimestamp('2026-01-31T09:30:00+02', 'f')).toBe('2026-01-31T07:30:00.000Z');
    expect(checkIsoTimestamp('2026-01-31T09:30-0230', 'f')).toBe('2026-01-31T12:00:00.000Z');
  });

  it('reads a date alone as the start of the day, or its last millisecond for an until bound', () => {
    expect(checkIsoTimestamp('2026-01-31', 'f')).toBe('2026-01-31T00:00:00.000Z');
    expect(checkIsoTimestamp('2026-01-31', 'f', 'end')).toBe('2026-01-31T23:59:59.999Z');
    expect(checkIsoTimestamp('2026-01-31T00:00Z', 'f', 'end')).toBe('2026-01-31T00:00:00.000Z');
  });

  it('refuses an instant outside 0000-01-01..9999-12-31 in UTC, naming the field and the range', () => {
    for (const bad of ['9999-12-31T23:30:00-01:00', '0000-01-01T00:30:00+01:00', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z']) {
      const e = errOf(() => checkIsoTimestamp(bad, 'created_until'));
      expect(e, bad).toMatchObject({ field: 'created_until', accepted: expect.stringContaining(ISO_MAX) });
    }
    expect(checkIsoTimestamp('9999-12-31T23:59:59.999Z', 'f')).toBe(ISO_MAX);
    expect(checkIsoTimestamp('9999-12-31', 'f', 'end')).toBe(ISO_MAX);
    expect(checkIsoTimestamp('0000-01-01', 'f')).toBe(ISO_MIN);
  });

  it('refuses forms that are not ISO 8601 and impossible dates, whatever Date.parse makes of them', () => {
    for (const bad of ['1', 'March 7, 2026', '2026-02-30', '2026-02-31T10:00:00Z', '2026-03-29T01:30:00', '2026-01-31T09:30:00+2', '2026-01-31T09:30:00+24:00']) {
      expect(errOf(() => checkIsoTimestamp(bad, 'data.facts[0].created')), bad).toMatchObject({ field: 'data.facts[0].created' });
    }
  });
});

describe('checkTimeRange', () => {
  it('names the since field when since is after until, and passes an equal or open range', () => {
    expect(errOf(() => checkTimeRange('2026-02-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'updated_since', 'updated_until'))).toMatchObject({
      field: 'updated_since',
      accepted: 'at or before 2026-01-01T00:00:00.000Z',
    });
    expect(() => checkTimeRange('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'a', 'b')).not.toThrow();
    expect(() => checkTimeRange(undefined, '2026-01-01T00:00:00.000Z', 'a', 'b')).not.toThrow();
  });
});

describe('recentWindow and recencyAge', () => {
  it('ends a window at now, and clamps a clock past 9999 so the window still holds what it wrote', () => {
    const now = Date.UTC(2026, 2, 29, 0, 35);
    expect(recentWindow(now, 60_000)).toEqual({ since: '2026-03-29T00:34:00.000Z', until: '2026-03-29T00:35:00.000Z' });
    const late = Date.parse(ISO_MAX) + 60_000;
    expect(recentWindow(late, 5 * 60_000)).toEqual({ since: isoOf(late - 5 * 60_000), until: ISO_MAX });
    expect(recentWindow(late, 5 * 60_000).since <= ISO_MAX).toBe(true);
  });

  it('counts a future record as far from now as a past one: never more recent than one written now', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(recencyAge(now, now)).toBe(0);
    expect(recencyAge(now, now + 5_000)).toBe(5_000);
    expect(recencyAge(now, Date.UTC(2099, 0, 1))).toBe(recencyAge(now, now - (Date.UTC(2099, 0, 1) - now)));
  });
});
