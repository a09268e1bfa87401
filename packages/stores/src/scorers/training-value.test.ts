import { describe, expect, it } from 'vitest';
import { trainingValue, TRAINING_HIGH_IMPORTANCE, TRAINING_LOW_IMPORTANCE, TRAINING_SHORT_CHARS } from './training-value.js';

describe('trainingValue', () => {
  it('is high at or above importance 0.7', () => {
    expect(trainingValue('my name is Alice', TRAINING_HIGH_IMPORTANCE)).toBe('high');
    expect(trainingValue('my name is Alice', 0.69)).toBe('medium');
  });

  it('is high for a decision, a lesson or a correction at any importance', () => {
    expect(trainingValue('We decided to drop Redis', 0.1)).toBe('high');
    expect(trainingValue('Lesson: run migrations first', 0.1)).toBe('high');
    expect(trainingValue('Correction: the meeting is on Monday', 0.1)).toBe('high');
    expect(trainingValue('Turns out I was wrong about the cache', 0.1)).toBe('high');
  });

  it('is low for short, unimportant text', () => {
    expect(trainingValue('ok thanks', 0.05)).toBe('low');
    expect(trainingValue('ok thanks', TRAINING_LOW_IMPORTANCE - 0.01)).toBe('low');
  });

  it('is medium at importance 0.4 or for long text', () => {
    expect(trainingValue('ok thanks', TRAINING_LOW_IMPORTANCE)).toBe('medium');
    const long = 'the weather stayed grey all afternoon '.repeat(4);
    expect(long.trim().length).toBeGreaterThanOrEqual(TRAINING_SHORT_CHARS);
    expect(trainingValue(long, 0.1)).toBe('medium');
  });

  it('treats a non-finite importance as 0', () => {
    expect(trainingValue('ok', Number.NaN)).toBe('low');
  });

  it('is deterministic', () => {
    expect(trainingValue('the sky is grey', 0.5)).toBe(trainingValue('the sky is grey', 0.5));
  });
});
