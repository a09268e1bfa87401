/**
 * Whether a kernel version satisfies a plugin's `kernel` range, with prereleases included: what
 * semver's validRange and satisfies(…, { includePrerelease: true }) answer.
 *
 * Nearly every plugin declares `^X.Y.Z` or an exact `X.Y.Z`, which are read here directly. semver
 * is loaded only for any other range: importing it and compiling its regular expressions on the
 * first check took about 15-20 ms of each start.
 */
import { createRequire } from 'node:module';

type Satisfies = (version: string, range: string, opts: { includePrerelease: boolean }) => boolean;
type ValidRange = (range: string) => string | null;

/** A release version without prerelease or build parts, numbers without leading zeros. */
const RELEASE = /^(0|[1-9]\d{0,14})\.(0|[1-9]\d{0,14})\.(0|[1-9]\d{0,14})$/;
const CARET_OR_EXACT = /^(\^?)(0|[1-9]\d{0,14})\.(0|[1-9]\d{0,14})\.(0|[1-9]\d{0,14})$/;

/**
 * The answer for `^X.Y.Z` or `X.Y.Z` against a release version, or undefined for any other range
 * or version. Caret: the left-most non-zero part is fixed and the rest may only grow
 * (^1.2.3 is >=1.2.3 <2.0.0, ^0.2.3 is >=0.2.3 <0.3.0, ^0.0.3 is 0.0.3).
 */
export function readSimpleRange(version: string, range: string): boolean | undefined {
  const v = RELEASE.exec(version);
  const r = CARET_OR_EXACT.exec(range.trim());
  if (!v || !r) return undefined;
  const [vMajor, vMinor, vPatch] = [Number(v[1]), Number(v[2]), Number(v[3])];
  const [major, minor, patch] = [Number(r[2]), Number(r[3]), Number(r[4])];
  const same = vMajor === major && vMinor === minor && vPatch === patch;
  if (r[1] === '' || (major === 0 && minor === 0)) return same;
  const atLeast = vMajor > major || (vMajor === major && (vMinor > minor || (vMinor === minor && vPatch >= patch)));
  return atLeast && (major > 0 ? vMajor === major : vMajor === 0 && vMinor === minor);
}

let semver: { satisfies: Satisfies; validRange: ValidRange } | undefined;

/** semver's two functions used here, loaded on first need. */
function loadSemver(): { satisfies: Satisfies; validRange: ValidRange } {
  if (!semver) {
    const require = createRequire(import.meta.url);
    semver = {
      satisfies: require('semver/functions/satisfies.js') as Satisfies,
      validRange: require('semver/ranges/valid.js') as ValidRange,
    };
  }
  return semver;
}

/** semver's answer, for the ranges readSimpleRange does not read. */
function semverAccepts(version: string, range: string): boolean {
  const s = loadSemver();
  return s.validRange(range) !== null && s.satisfies(version, range, { includePrerelease: true });
}

/** True when `range` is a valid semver range that `version` satisfies, prereleases included. */
export function rangeAccepts(version: string, range: string): boolean {
  if (typeof range !== 'string') return false;
  return readSimpleRange(version, range) ?? semverAccepts(version, range);
}

/** True when `range` is a semver range (`^1.0.0`, `>=1.2 <2`, `1.x`), whatever version it accepts. */
export function isValidRange(range: string): boolean {
  if (typeof range !== 'string') return false;
  return CARET_OR_EXACT.test(range.trim()) || loadSemver().validRange(range) !== null;
}
