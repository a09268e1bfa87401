import { describe, expect, it } from 'vitest';
import { allocate } from './smart-context.js';

const granted = (r: ReturnType<typeof allocate>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.allocated]));

describe('allocate', () => {
  it('gives every source its weight-proportional floor when all need more than it', () => {
    const r = allocate(1000, { important: 5000, relevant: 5000, recent: 5000, day: 5000, ops: 5000 });
    expect(granted(r)).toEqual({ important: 300, relevant: 300, recent: 150, day: 150, ops: 100 });
    expect(r.important).toEqual({ weight: 30, floor: 300, ceiling: 600, demand: 5000, allocated: 300 });
  });

  it('redistributes what a source does not need by weight among the others, in rounds', () => {
    const r = allocate(1000, { important: 1000, relevant: 0, recent: 50, day: 400, ops: 100 });
    // Floors granted: 300 + 0 + 50 + 150 + 100 = 600; leftover 400 to important (needs 300) and day (needs 150),
    // weights 30:15: 266 and 133, then the last token to important.
    expect(granted(r)).toEqual({ important: 567, relevant: 0, recent: 50, day: 283, ops: 100 });
  });

  it('never gives a source more than twice its floor; what nobody can take stays unallocated', () => {
    const r = allocate(1000, { important: 10_000, relevant: 0, recent: 0, day: 0, ops: 0 });
    expect(granted(r)).toEqual({ important: 600, relevant: 0, recent: 0, day: 0, ops: 0 });
    const odd = allocate(333, { important: 90, relevant: 1000, recent: 1000, day: 0, ops: 0 });
    // Floors 99, 99, 49, 49, 33: important takes 90, relevant 99, recent 49; leftover 95 to relevant and recent
    // (30:15): 63 and 31, then the last token to relevant, first in order.
    expect(granted(odd)).toEqual({ important: 90, relevant: 163, recent: 80, day: 0, ops: 0 });
  });
});
