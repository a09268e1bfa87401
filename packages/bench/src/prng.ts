import { seededRandom } from '@memory-service/kernel';

/** A small seeded pseudo-random generator (the kernel's mulberry32), so generated workloads are reproducible. */
export class Prng {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new RangeError('pick from an empty list');
    return list[this.int(list.length)];
  }
}
