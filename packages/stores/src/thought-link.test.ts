import { describe, expect, it } from 'vitest';
import { thoughtLinkText, writtenText } from './thought-link.js';

describe('thought links', () => {
  const page = { title: 'Thought_20260101T000000Z', path: 'wiki/user/alice/diary/thought-20260101t000000z.md' };

  it('writtenText drops the page reference thoughtLinkText puts after the excerpt', () => {
    const link = thoughtLinkText('Notes on the caching layer…', page);
    expect(link).toBe('Notes on the caching layer… [wiki: Thought_20260101T000000Z (wiki/user/alice/diary/thought-20260101t000000z.md)]');
    expect(writtenText(link)).toBe('Notes on the caching layer…');
    // An excerpt that itself says "[wiki: " keeps it: only the last reference is the service's.
    expect(writtenText(thoughtLinkText('see [wiki: Old (wiki/x.md)] above', page))).toBe('see [wiki: Old (wiki/x.md)] above');
  });

  it('writtenText leaves any other text as it is', () => {
    for (const t of [
      'I keep my diary in wiki/user/alice/diary (private)',
      'Notes [wiki: Thought_1 (wiki/user/alice/diary/t.md)] and more',
      'Notes [wiki: Thought_1 (notes/t.md)]',
      'Notes [wiki: Thought_1\n(wiki/user/t.md)]',
      '',
    ]) {
      expect(writtenText(t), t).toBe(t);
    }
  });
});
