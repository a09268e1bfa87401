import { describe, expect, it } from 'vitest';
import { mentionsAny } from './audit-words.js';

describe('mentionsAny', () => {
  const testing = mentionsAny(['test', 'ci', 'fixture']);

  it('finds a word whole or with a common ending, ignoring case', () => {
    for (const t of ['a test', 'Tests pass', 'tested twice', 'TESTING', 'run ci.', 'the fixtures']) expect(testing(t), t).toBe(true);
  });

  it('does not find a word that is only the start or the end of another', () => {
    for (const t of ['testament', 'the city', 'a circus', 'unittest', 'prefixture']) expect(testing(t), t).toBe(false);
  });

  it('reads file paths, snake_case and camelCase word by word', () => {
    for (const t of ['tests/test_login.py', '.github/ci.yml', 'src/TestRunner.ts', 'loginTest.ts', 'CIConfig.ts']) expect(testing(t), t).toBe(true);
    expect(mentionsAny(['auth'])('src/authService.ts')).toBe(true);
    expect(mentionsAny(['auth'])('the author')).toBe(false);
  });
});
