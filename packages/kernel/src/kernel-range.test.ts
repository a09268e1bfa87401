import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import { describe, expect, it } from 'vitest';
import { rangeAccepts, readSimpleRange } from './kernel-range.js';

const semverSays = (version: string, range: string) => validRange(range) !== null && satisfies(version, range, { includePrerelease: true });

const VERSIONS = ['1.0.0', '1.2.3', '1.10.0', '2.0.0', '0.2.5', '0.2.0', '0.3.0', '0.0.3', '0.0.4', '10.4.1', '2.0.0-rc.1', '1.0.0-alpha'];
const SIMPLE = ['^1.0.0', '^1.2.3', '^1.2.4', '^1.3.0', '^2.0.0', '^0.2.0', '^0.2.5', '^0.2.6', '^0.0.3', '^0.0.4', '^10.0.0', '1.0.0', '1.2.3', '0.0.3', ' ^1.0.0 '];
const OTHER = ['>=1.0.0', '~1.0.0', '1.x', '*', '', '^1.0.0 || ^2.0.0', '^1.0.0-beta', '^01.0.0', '^1.0', 'v1.0.0', '=1.0.0', 'garbage', '^ 1.0.0', '1.0.0 - 2.0.0'];

describe('the kernel range check', () => {
  it('reads ^X.Y.Z and X.Y.Z itself, as semver does', () => {
    for (const version of VERSIONS.filter((v) => !v.includes('-'))) {
      for (const range of SIMPLE) {
        expect(readSimpleRange(version, range), `${version} against ${range}`).toBe(semverSays(version, range));
      }
    }
    expect(readSimpleRange('1.4.0', '^1.2.3')).toBe(true);
    expect(readSimpleRange('2.0.0', '^1.2.3')).toBe(false);
    expect(readSimpleRange('0.3.0', '^0.2.0')).toBe(false);
    expect(readSimpleRange('0.0.4', '^0.0.3')).toBe(false);
  });

  it('leaves every other range, and a prerelease version, to semver', () => {
    for (const range of OTHER) expect(readSimpleRange('1.0.0', range), range).toBeUndefined();
    expect(readSimpleRange('2.0.0-rc.1', '^2.0.0')).toBeUndefined();
  });

  it('answers as semver for every version and range', () => {
    for (const version of VERSIONS) {
      for (const range of [...SIMPLE, ...OTHER]) {
        expect(rangeAccepts(version, range), `${version} against ${range}`).toBe(semverSays(version, range));
      }
    }
    expect(rangeAccepts('1.0.0', undefined as unknown as string)).toBe(false);
  });
});
