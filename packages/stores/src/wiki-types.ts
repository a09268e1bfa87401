import { validationError } from './errors.js';

/** Wiki types of the user layer (8). */
export const WIKI_TYPES_USER = [
  'diary',
  'relationships',
  'desires',
  'aspirations',
  'work_notes',
  'preferences',
  'retrospective',
  'project_spec',
] as const;

/** Wiki types of the agent layer (7). */
export const WIKI_TYPES_AGENT = [
  'decision_log',
  'error_analysis',
  'personality_evolution',
  'emotional_context',
  'wiki_agent',
  'learning_journal',
  'principle_log',
] as const;

/** All accepted wiki types: the 15 layer types plus the first-class `skill`. */
export const WIKI_TYPES = [...WIKI_TYPES_USER, ...WIKI_TYPES_AGENT, 'skill'] as const;

export type WikiType = (typeof WIKI_TYPES)[number];

export const WIKI_LINK_RELATIONS = ['review_of', 'revises', 'follows'] as const;
export type WikiLinkRelation = (typeof WIKI_LINK_RELATIONS)[number];

/** Skill pages are capped at 4 KB by lint. */
export const SKILL_PAGE_MAX_BYTES = 4096;

export function isWikiType(v: unknown): v is WikiType {
  return typeof v === 'string' && (WIKI_TYPES as readonly string[]).includes(v);
}

export function checkWikiType(v: unknown): WikiType {
  if (!isWikiType(v)) {
    throw validationError(
      'wiki_type',
      `wiki_type must be one of ${WIKI_TYPES.join(', ')}; got ${JSON.stringify(v)}`,
      WIKI_TYPES,
    );
  }
  return v;
}

/**
 * The size lint of a page: a note when it is a skill page over SKILL_PAGE_MAX_BYTES (the spec's
 * "capped by lint"), else null. wiki_add reports it and wiki_reflect lists the pages it flags.
 */
export function wikiSizeLint(page: { wiki_type: string; size: number }): string | null {
  if (page.wiki_type !== 'skill' || page.size <= SKILL_PAGE_MAX_BYTES) return null;
  return `skill page is ${page.size} bytes, over the ${SKILL_PAGE_MAX_BYTES}-byte skill page cap`;
}

/** Every lint note of a page saved on `layer`: its size lint, and a type of the other layer. Lint never refuses a write. */
export function wikiLint(layer: 'user' | 'agent', page: { wiki_type: string; size: number }): string[] {
  const notes: string[] = [];
  const size = wikiSizeLint(page);
  if (size !== null) notes.push(size);
  const otherLayer: readonly string[] = layer === 'user' ? WIKI_TYPES_AGENT : WIKI_TYPES_USER;
  if (otherLayer.includes(page.wiki_type)) notes.push(`${page.wiki_type} is ${layer === 'user' ? 'an agent' : 'a user'}-layer type, saved on the ${layer} layer as asked`);
  return notes;
}
