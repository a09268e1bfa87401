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
