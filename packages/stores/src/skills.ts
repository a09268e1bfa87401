import { cutChars, isBlank } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import { EPISODE_PREFIX, type Episode, type EpisodeStore } from './episodes.js';
import { notFound, validationError } from './errors.js';
import type { Scope } from './types.js';
import { checkScope, checkText, normalizeTags, parseId } from './util.js';
import { WIKI_TITLE_MAX, type WikiPage, type WikiStore } from './wiki.js';
import { SKILL_PAGE_MAX_BYTES } from './wiki-types.js';

/** The tag an episode gets once it is promoted to a skill page: a second promotion finds it and writes nothing. */
export const SKILL_PROMOTED_TAG = 'skill_promoted';
/** The tag of agent-distilled episodes eligible for promotion (the nightly skill_promotion phase). */
export const DREAM_SKILL_TAG = 'dream_skill';
/** The tag of a skill page written directly (title plus content) rather than promoted from an episode. */
export const AGENT_DISTILLED_TAG = 'agent_distilled';
/** Most episodes promoted in one call. */
export const SKILL_PROMOTE_MAX_EPISODES = 50;
/** Longest title made from an episode's first line (before a `-2`, `-3` suffix keeps it unique). */
export const SKILL_TITLE_CHARS = 80;

/** The faceted tag naming the episode a promoted skill page came from: `episode:ep_12`. */
export function skillSourceTag(episodeId: string): string {
  return `episode:${episodeId}`;
}

/** The provenance footer of a skill page promoted from an episode. */
export function skillFooter(ep: Episode): string {
  return `\n\n---\nProvenance: promoted verbatim from episode ${ep.id} (layer ${ep.layer}, created ${ep.created}).\n`;
}

export interface SkillPromotion {
  episode_id: string;
  /** promoted: a page was written now; already_promoted: the episode carried skill_promoted, nothing was written. */
  status: 'promoted' | 'already_promoted';
  /** The skill page; null when an already promoted episode's page was deleted since. */
  page: WikiPage | null;
}

/**
 * Skill pages (wiki type `skill`): episodes promoted verbatim, each to a page of its own with a
 * provenance footer naming it, or skills the agent distilled written directly. A skill page is at
 * most SKILL_PAGE_MAX_BYTES (4 KB); a larger one is refused, not saved and flagged.
 */
export class SkillStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly episodes: EpisodeStore,
    private readonly wiki: WikiStore,
  ) {}

  /**
   * Promote episodes of the scope to skill pages, in one transaction: each episode not yet tagged
   * skill_promoted becomes a page holding its summary verbatim plus the provenance footer, tagged
   * `skill_promoted` and `episode:<id>`, and the episode gets the skill_promoted tag. An episode
   * already tagged is answered with its page and nothing is written. A malformed or unknown id, or
   * a page that would be over 4 KB, is an error naming episode_ids and nothing is written.
   */
  promoteEpisodes(scope: Scope, ids: readonly string[]): SkillPromotion[] {
    checkScope(scope);
    if (!Array.isArray(ids) || ids.length === 0) throw validationError('episode_ids', 'episode_ids must list at least one episode id', 'ep_<number> ids');
    if (ids.length > SKILL_PROMOTE_MAX_EPISODES) throw validationError('episode_ids', `at most ${SKILL_PROMOTE_MAX_EPISODES} episodes per call`, { max: SKILL_PROMOTE_MAX_EPISODES });
    const unique = [...new Set(ids.map((id) => (typeof id === 'string' ? id.trim() : '')))];
    return this.ctx.tx(() =>
      unique.map((id) => {
        if (parseId(EPISODE_PREFIX, id) === null) throw validationError('episode_ids', `${JSON.stringify(id)} is not an episode id`, 'ep_<number>');
        const ep = this.episodes.get(scope, id);
        if (!ep) throw notFound(`episode of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, id, 'episode_ids');
        if (ep.tags.includes(SKILL_PROMOTED_TAG)) return { episode_id: ep.id, status: 'already_promoted' as const, page: this.pageOf(scope, ep.id) };
        const content = ep.summary + skillFooter(ep);
        this.checkSize(content, 'episode_ids', `the skill page of ${ep.id}`);
        const page = this.wiki.save(scope, {
          title: this.wiki.freeTitle(scope, titleOf(ep.summary, ep.id)),
          content,
          wiki_type: 'skill',
          tags: [SKILL_PROMOTED_TAG, skillSourceTag(ep.id)],
        });
        this.episodes.setTags(scope, ep.id, [...ep.tags, SKILL_PROMOTED_TAG]);
        return { episode_id: ep.id, status: 'promoted' as const, page };
      }),
    );
  }

  /**
   * Write an agent-distilled skill page directly: a new title adds a page, the title of a skill page
   * replaces its content. The title of a page of another type is an error naming title (it is not
   * turned into a skill); content over 4 KB is an error naming content.
   */
  write(scope: Scope, input: { title: string; content: string; tags?: string[] }): WikiPage & { created_new: boolean } {
    checkScope(scope);
    const title = checkText(input.title, 'title', WIKI_TITLE_MAX).trim();
    const content = checkText(input.content, 'content', this.ctx.config.maxTextChars);
    this.checkSize(content, 'content', 'the skill page');
    const tags = normalizeTags([AGENT_DISTILLED_TAG, ...normalizeTags(input.tags)]);
    return this.ctx.tx(() => {
      const before = this.wiki.getByTitle(scope, title);
      if (before && before.wiki_type !== 'skill') {
        throw validationError('title', `${JSON.stringify(title)} is a ${before.wiki_type} page; a skill needs a title of its own`, 'a new title or that of a skill page');
      }
      return this.wiki.save(scope, { title, content, wiki_type: 'skill', tags });
    });
  }

  /** The skill page promoted from an episode (tagged episode:<id>), or null. */
  pageOf(scope: Scope, episodeId: string): WikiPage | null {
    checkScope(scope);
    const title = this.ctx
      .stmt("SELECT title FROM wiki_pages WHERE layer = ? AND user_id = ? AND wiki_type = 'skill' AND instr(tags, ?) > 0 ORDER BY id LIMIT 1")
      .pluck(true)
      .get(scope.layer, scope.user_id, JSON.stringify(skillSourceTag(episodeId))) as string | undefined;
    return title === undefined ? null : this.wiki.getByTitle(scope, title);
  }

  private checkSize(content: string, field: string, what: string): void {
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > SKILL_PAGE_MAX_BYTES) {
      throw validationError(field, `${what} would be ${bytes} bytes; skill pages are capped at ${SKILL_PAGE_MAX_BYTES} bytes (4 KB)`, { max_bytes: SKILL_PAGE_MAX_BYTES });
    }
  }
}

/** A one-line page title from an episode's first line (Markdown heading marks dropped), else `Skill <id>`. */
function titleOf(summary: string, id: string): string {
  const first = (summary.split(/\r?\n/).find((l) => !isBlank(l)) ?? '').replace(/^\s*#+\s*/, '');
  // eslint-disable-next-line no-control-regex
  const line = first.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return line ? cutChars(line, SKILL_TITLE_CHARS).trim() : `Skill ${id}`;
}
