/**
 * The short link think leaves in L4 or L3 for a long thought whose whole text went to a wiki page
 * (routing rule 1): the thought's first characters, then the page's title and path, which the
 * service made. forget matches the user's words only, so it reads such a record without that tail.
 */

const OPEN = ' [wiki: ';
const CLOSE = '.md)]';

/** The link text of a long thought: its excerpt, then `[wiki: <title> (<path>)]`. */
export function thoughtLinkText(excerpt: string, page: { title: string; path: string }): string {
  return `${excerpt}${OPEN}${page.title} (${page.path})]`;
}

/**
 * A record's text without the page reference a long thought's link ends with (thoughtLinkText):
 * the words the user wrote. The reference is known by its shape, `[wiki: <title> (wiki/...md)]`
 * at the very end, not by the record's metadata, so a copy of a link (an L3 link promoted to L4,
 * whose metadata names the episode instead) is read the same way. Any other text is returned as it is.
 */
export function writtenText(text: string): string {
  if (!text.endsWith(CLOSE)) return text;
  const at = text.lastIndexOf(OPEN);
  if (at < 0) return text;
  // The path is the page's, under wiki/: a title holds no line break.
  const ref = text.slice(at + OPEN.length);
  return ref.includes(' (wiki/') && !ref.includes('\n') ? text.slice(0, at) : text;
}
