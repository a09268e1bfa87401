/** The flag loop and the integer checks the harnesses' option parsers share (ab, shapes, side-by-side, import-replace). */

/**
 * Walk argv as `--flag value` pairs, and the `switches` (flags without a value) alone, calling
 * `take` for each in order (a switch with an empty value). A flag with no value after it is an
 * error naming it, followed by the usage; `take` refuses the flags it does not know.
 */
export function readFlags(argv: readonly string[], usage: string, switches: readonly string[], take: (flag: string, value: string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (switches.includes(flag)) {
      take(flag, '');
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value\n${usage}`);
    take(flag, value);
  }
}

/** A flag's value as an integer of at least `min` (0: non-negative, 1: positive), or an error naming the flag. */
export function intFlag(flag: string, value: string, min: 0 | 1, unit = ''): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v < min) throw new Error(`${flag} needs a ${min === 0 ? 'non-negative' : 'positive'} integer${unit}, got ${value}`);
  return v;
}

/** A comma list of two or more ascending positive integers (`--sizes 1000,10000`), or an error naming the flag. */
export function sizesFlag(flag: string, value: string): number[] {
  const sizes = value.split(',').map((s) => intFlag(flag, s.trim(), 1));
  if (sizes.length < 2 || sizes.some((s, k) => k > 0 && s <= sizes[k - 1]!)) throw new Error(`${flag} needs two or more ascending sizes, got ${value}`);
  return sizes;
}
