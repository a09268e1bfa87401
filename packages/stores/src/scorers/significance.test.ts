import { describe, expect, it } from 'vitest';
import { isSignificant } from './significance.js';
import * as scorers from './index.js';

describe('isSignificant', () => {
  it('is true at importance 0.5 (inclusive)', () => {
    expect(isSignificant(0.5, 0)).toBe(true);
    expect(isSignificant(0.49, 0)).toBe(false);
  });

  it('is true only above emotional weight 0.5 (strict)', () => {
    expect(isSignificant(0, 0.51)).toBe(true);
    expect(isSignificant(0, 0.5)).toBe(false);
  });

  it('is false for NaN inputs', () => {
    expect(isSignificant(Number.NaN, Number.NaN)).toBe(false);
  });
});

describe('threshold constants', () => {
  it('match the spec Limits table', () => {
    expect({
      LONG_THOUGHT_CHARS: scorers.LONG_THOUGHT_CHARS,
      SHORT_THOUGHT_CHARS: scorers.SHORT_THOUGHT_CHARS,
      L4_IMPORTANCE: scorers.L4_IMPORTANCE,
      EMOTIONAL_L3: scorers.EMOTIONAL_L3,
      AUTO_SAVE_THRESHOLD: scorers.AUTO_SAVE_THRESHOLD,
      AUTO_SAVE_L4: scorers.AUTO_SAVE_L4,
    }).toEqual({
      LONG_THOUGHT_CHARS: 2000,
      SHORT_THOUGHT_CHARS: 60,
      L4_IMPORTANCE: 0.7,
      EMOTIONAL_L3: 0.5,
      AUTO_SAVE_THRESHOLD: 0.5,
      AUTO_SAVE_L4: 0.8,
    });
  });

  it('are all re-exported with the scorers from index', () => {
    for (const name of [
      'scoreImportance', 'scoreEmotionalWeight', 'scoreAgentVoice', 'trainingValue',
      'sessionQuality', 'estimateTokens', 'isSignificant', 'extractRelation',
    ]) {
      expect(typeof (scorers as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
