import { describe, expect, it } from 'vitest';
import { scoreEmotionalWeight } from './emotional.js';
import { EMOTIONAL_L3 } from './thresholds.js';

describe('scoreEmotionalWeight', () => {
  it('puts joyful, grateful text above the L3 threshold', () => {
    const s = scoreEmotionalWeight("I'm so happy and grateful, this is amazing!");
    expect(s).toBeGreaterThan(EMOTIONAL_L3);
    expect(s).toBe(0.9);
  });

  it('keeps neutral text below 0.2', () => {
    expect(scoreEmotionalWeight('The build uses make')).toBeLessThan(0.2);
    expect(scoreEmotionalWeight('The build uses make')).toBe(0);
    expect(scoreEmotionalWeight('')).toBe(0);
  });

  it('covers negative emotions', () => {
    expect(scoreEmotionalWeight('I am really scared and frustrated about the layoffs')).toBeGreaterThan(EMOTIONAL_L3);
    expect(scoreEmotionalWeight('I feel sad and lonely tonight')).toBeGreaterThan(EMOTIONAL_L3);
  });

  it('keeps a single plain emotion word at or below the threshold', () => {
    expect(scoreEmotionalWeight("I'm happy")).toBe(0.3);
    expect(scoreEmotionalWeight("I'm happy")).toBeLessThanOrEqual(EMOTIONAL_L3);
  });

  it('raises weight for intensifiers, exclamation marks and capitals', () => {
    const plain = scoreEmotionalWeight('I am happy');
    expect(scoreEmotionalWeight('I am very happy')).toBeGreaterThan(plain);
    expect(scoreEmotionalWeight('I am happy!')).toBeGreaterThan(plain);
    expect(scoreEmotionalWeight('I am HAPPY')).toBeGreaterThan(plain);
  });

  it('caps exclamation marks at 0.2', () => {
    expect(scoreEmotionalWeight('wow!!!!!!')).toBe(scoreEmotionalWeight('wow!!'));
  });

  it('adds a bonus for shouting', () => {
    expect(scoreEmotionalWeight('I HATE THIS SO MUCH')).toBeGreaterThan(EMOTIONAL_L3);
    expect(scoreEmotionalWeight('THE BUILD USES MAKE')).toBe(0.1);
  });

  it('handles negation lightly', () => {
    const negated = scoreEmotionalWeight('I am not happy');
    expect(negated).toBeLessThan(scoreEmotionalWeight('I am happy'));
    expect(negated).toBeGreaterThan(0);
  });

  it('stays within [0, 1]', () => {
    const s = scoreEmotionalWeight('SO HAPPY!!! SO GRATEFUL!!! I LOVE THIS, AMAZING, WONDERFUL!!!');
    expect(s).toBeLessThanOrEqual(1);
    expect(s).toBe(1);
  });

  it('is deterministic', () => {
    const text = 'Honestly I am worried but also excited!';
    expect(scoreEmotionalWeight(text)).toBe(scoreEmotionalWeight(text));
  });
});
