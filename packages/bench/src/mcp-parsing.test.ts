import { describe, expect, it } from 'vitest';
import { runPool } from './concurrency.js';
import { parseVmHwm } from './proc-stats.js';
import { dreamHits, thinkActions } from './server-retriever.js';

describe('ThinkResult and DreamResult parsing', () => {
  it('reads (store, id) actions and (source, id) hits', () => {
    expect(thinkActions({ routing: {}, actions: [{ store: 'l3', id: 'a', extra: 1 }, { store: 'graph', id: 7 }, { nope: true }] })).toEqual([
      { store: 'l3', id: 'a' },
      { store: 'graph', id: '7' },
    ]);
    expect(dreamHits({ summary: '', hits: [{ source: 'l4', id: 'f', score: 1 }] })).toEqual([{ source: 'l4', id: 'f' }]);
    expect(() => thinkActions(undefined)).toThrow(/actions/);
    expect(() => dreamHits({ summary: '' })).toThrow(/hits/);
  });
});

describe('process figures', () => {
  it('parses VmHWM in bytes', () => {
    expect(parseVmHwm('Name:\tnode\nVmPeak:\t  999 kB\nVmHWM:\t   51200 kB\nVmRSS:\t 100 kB\n')).toBe(51200 * 1024);
    expect(parseVmHwm('Name:\tnode\n')).toBeNull();
  });
});

describe('runPool', () => {
  it('runs every task with bounded concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await runPool(50, 4, async (i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      seen.push(i);
      inFlight--;
    });
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('rejects on the first failure', async () => {
    await expect(runPool(10, 2, async (i) => {
      if (i === 3) throw new Error('boom');
    })).rejects.toThrow('boom');
  });
});
