import { describe, expect, it } from 'vitest';
import { scoreImportance, FILLER_IMPORTANCE } from './importance.js';
import { AUTO_SAVE_L4, AUTO_SAVE_THRESHOLD, L4_IMPORTANCE, SHORT_THOUGHT_CHARS } from './thresholds.js';

describe('scoreImportance', () => {
  it('puts a short explicit fact above the L4 threshold', () => {
    const text = 'Remember: my name is Alice';
    expect(text.length).toBeLessThan(SHORT_THOUGHT_CHARS);
    expect(scoreImportance(text)).toBeGreaterThan(L4_IMPORTANCE);
    expect(scoreImportance(text)).toBe(0.85);
  });

  it('scores filler very low', () => {
    expect(scoreImportance('ok thanks')).toBeLessThan(0.3);
    expect(scoreImportance('ok thanks')).toBe(FILLER_IMPORTANCE);
    expect(scoreImportance('lol')).toBe(FILLER_IMPORTANCE);
    expect(scoreImportance('Got it, thank you!')).toBe(FILLER_IMPORTANCE);
  });

  it('scores empty and whitespace text as 0', () => {
    expect(scoreImportance('')).toBe(0);
    expect(scoreImportance('   \n')).toBe(0);
  });

  it('auto-saves a habit statement to L3 but not to L4', () => {
    const s = scoreImportance('I always deploy on Fridays after the review');
    expect(s).toBeGreaterThanOrEqual(AUTO_SAVE_THRESHOLD);
    expect(s).toBeLessThan(AUTO_SAVE_L4);
  });

  it('reaches the additional L4 auto-save for a strong personal fact', () => {
    expect(scoreImportance('My birthday is March 3')).toBeGreaterThanOrEqual(AUTO_SAVE_L4);
  });

  it('raises importance for decisions', () => {
    const decision = scoreImportance('We decided to use Postgres for the event store');
    expect(decision).toBeGreaterThanOrEqual(AUTO_SAVE_THRESHOLD);
    expect(decision).toBeGreaterThan(scoreImportance('We looked at Postgres for the event store'));
  });

  it('keeps neutral statements below the auto-save threshold', () => {
    expect(scoreImportance('The build uses make')).toBeLessThan(AUTO_SAVE_THRESHOLD);
    expect(scoreImportance('I may go to the store')).toBeLessThan(AUTO_SAVE_THRESHOLD);
  });

  it('lowers importance for questions', () => {
    expect(scoreImportance('Is my name Alice?')).toBeLessThan(scoreImportance('My name is Alice.'));
    expect(scoreImportance('What is your name?')).toBeLessThan(0.2);
  });

  it('does not let secrets raise importance', () => {
    const secret = scoreImportance('my password is hunter');
    expect(secret).toBeLessThan(AUTO_SAVE_THRESHOLD);
    expect(secret).toBe(scoreImportance('the weather is hunter'));
    expect(secret).toBeLessThan(scoreImportance('my sister is hunter'));
  });

  it('counts dates, numbers and named entities', () => {
    const base = scoreImportance('the meeting moved again');
    expect(scoreImportance('the meeting moved to 2024-05-03')).toBeGreaterThan(base);
    expect(scoreImportance('the meeting moved to Tuesday')).toBeGreaterThan(base);
    expect(scoreImportance('the meeting moved to Berlin')).toBeGreaterThan(base);
  });

  it('stays within [0, 1] for marker-heavy text', () => {
    const s = scoreImportance(
      'Remember, this is important: never forget that my name is Alice, I always prefer tea, ' +
        'we decided on 2024-01-01 with Bob and Carol that the deadline must hold, note that.',
    );
    expect(s).toBeLessThanOrEqual(1);
    expect(s).toBeGreaterThan(0.9);
  });

  it('is deterministic', () => {
    const text = 'Note that Bob prefers the staging cluster in Frankfurt';
    expect(scoreImportance(text)).toBe(scoreImportance(text));
  });
});
