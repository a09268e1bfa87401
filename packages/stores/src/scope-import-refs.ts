import type { Reflection } from './reflections.js';
import { skillSourceTag } from './skills.js';

/** The tag prefix naming the episode a skill page was promoted from (`episode:ep_12`). */
const SKILL_SOURCE_PREFIX = skillSourceTag('');

/** The start of the link a long thought leaves in L4 or L3: `<excerpt> [wiki: <title> (<path>)]` (think). */
const LINK_OPEN = '[wiki: ';

/** A target page an import wrote or found: its id and the path of its file. */
interface PageRef {
  id: string;
  path: string;
}

/**
 * memory_data import: the ids of the exported scope that a document's records name, mapped to the
 * ids the import gave (or, for a record merge skipped, found for) the same records in the target.
 * Named are graph nodes (a fact's or episode's `derived_nodes`, a timeline event's `graph:` refs),
 * episodes (`from_episode`, `l3:` refs, a reflection's most recalled), facts (`l4:` refs, evolve's
 * event `entry_id`, most recalled), wiki pages (a long thought's `wiki_path` and the path its link
 * text shows, `wiki:` refs), sessions (a session summary's `session_id`) and the episode a skill page
 * was promoted from (its `episode:<id>` tag and provenance footer). A reference it cannot
 * map (the record is not in the document, or the document was written before it carried that
 * kind's ids) is dropped: in the target that id is another record's, which forget, memory_remember
 * or memory_cleanup would take for this one's. The texts stay the document's own.
 */
export class ImportRefs {
  readonly nodes = new Map<string, string>();
  readonly episodes = new Map<string, string>();
  readonly facts = new Map<string, string>();
  readonly sessions = new Map<string, string>();
  private readonly pageIds = new Map<string, PageRef>();
  private readonly pagePaths = new Map<string, PageRef>();
  private readonly pageTitles = new Map<string, PageRef>();

  /** Note a page of the document (its id and path when it gives them, and its title) and the target's page of that title. */
  page(doc: { id?: string; path?: string; title: string }, target: PageRef): void {
    if (doc.id) this.pageIds.set(doc.id, target);
    if (doc.path) this.pagePaths.set(doc.path, target);
    this.pageTitles.set(doc.title, target);
  }

  /**
   * A fact's metadata or an episode's meta, with the text it came with (value or summary), as the
   * target holds them: each id mapped or dropped, and a long thought's link naming the page the
   * import wrote. A session's `session_id` maps; a `proposal_id` never can (decided proposals are
   * not exported) and goes.
   */
  record(meta: Record<string, unknown>, text: string): { meta: Record<string, unknown>; text: string } {
    const out = { ...meta };
    if ('derived_nodes' in out) {
      const ids = Array.isArray(out.derived_nodes) ? out.derived_nodes.flatMap((id) => mapped(this.nodes, id)) : [];
      if (ids.length > 0) out.derived_nodes = ids;
      else delete out.derived_nodes;
    }
    for (const [key, map] of [['from_episode', this.episodes], ['session_id', this.sessions]] as const) {
      if (!(key in out)) continue;
      const [id] = mapped(map, out[key]);
      if (id === undefined) delete out[key];
      else out[key] = id;
    }
    delete out.proposal_id;
    if (!('wiki_path' in out)) return { meta: out, text };
    const from = out.wiki_path;
    const page = typeof from === 'string' ? this.pageAt(from, text) : undefined;
    if (!page) {
      delete out.wiki_path;
      return { meta: out, text };
    }
    out.wiki_path = page.path;
    return { meta: out, text: relink(text, from as string, page.path) };
  }

  /** Another text that copies a record's (a branch entry's base value): its link re-pointed as record() re-points the record's. */
  text(text: string, meta: Record<string, unknown>): string {
    const from = meta.wiki_path;
    const page = typeof from === 'string' ? this.pageAt(from, text) : undefined;
    return page ? relink(text, from as string, page.path) : text;
  }

  /**
   * A timeline event's metadata as the target holds it: its `refs` (`<store>:<id>`, think's) mapped,
   * those of L1 items (no kind of the document) and of records it does not hold dropped; a ref of
   * another form is left as it is. evolve's `entry_id` maps or goes (its `key` stays).
   */
  timeline(meta: Record<string, unknown>): Record<string, unknown> {
    const out = { ...meta };
    if (Array.isArray(out.refs)) out.refs = out.refs.flatMap((r) => (typeof r === 'string' ? this.ref(r) : [r]));
    if ('entry_id' in out) {
      const [id] = mapped(this.facts, out.entry_id);
      if (id === undefined) delete out.entry_id;
      else out.entry_id = id;
    }
    return out;
  }

  /** Whether a page names an episode it was promoted from (a skill page's `episode:<id>` tag): it is written after the episodes. */
  static namesEpisode(tags: readonly string[]): boolean {
    return tags.some((t) => t.startsWith(SKILL_SOURCE_PREFIX));
  }

  /**
   * A skill page promoted from an episode, as the target holds it: its `episode:<id>` tag (which
   * finds the page of an episode) names the target's episode, or goes when the document does not
   * hold that episode; its provenance footer names the same episode.
   */
  skillPage(tags: readonly string[], content: string): { tags: string[]; content: string } {
    let text = content;
    const out = tags.flatMap((t) => {
      if (!t.startsWith(SKILL_SOURCE_PREFIX)) return [t];
      const from = t.slice(SKILL_SOURCE_PREFIX.length);
      const to = this.episodes.get(from);
      if (to === undefined) return [];
      text = text.replace(`from episode ${from} (`, `from episode ${to} (`);
      return [`${SKILL_SOURCE_PREFIX}${to}`];
    });
    return { tags: out, content: text };
  }

  /** A reflection's most-recalled rows naming the target's records; a row whose record the document does not hold goes. */
  mostRecalled(rows: Reflection['most_recalled']): Reflection['most_recalled'] {
    return rows.flatMap((m) => mapped(m.source === 'l4' ? this.facts : this.episodes, m.id).map((id) => ({ ...m, id })));
  }

  private ref(r: string): string[] {
    const at = r.indexOf(':');
    const store = at < 0 ? '' : r.slice(0, at);
    const id = r.slice(at + 1);
    switch (store) {
      case 'l3':
        return mapped(this.episodes, id).map((x) => `l3:${x}`);
      case 'l4':
        return mapped(this.facts, id).map((x) => `l4:${x}`);
      case 'graph':
        return mapped(this.nodes, id).map((x) => `graph:${x}`);
      case 'wiki': {
        const page = this.pageIds.get(id);
        return page ? [`wiki:${page.id}`] : [];
      }
      case 'l1':
        return [];
      default:
        return [r];
    }
  }

  /** The target page of the document's page at `path`: by the path the document gives, else by the title the link text shows. */
  private pageAt(path: string, text: string): PageRef | undefined {
    const byPath = this.pagePaths.get(path);
    if (byPath) return byPath;
    const end = text.lastIndexOf(` (${path})]`);
    const start = end < 0 ? -1 : text.lastIndexOf(LINK_OPEN, end);
    return start < 0 ? undefined : this.pageTitles.get(text.slice(start + LINK_OPEN.length, end));
  }
}

/** The id a map gives a document id, as a list of none or one. */
function mapped(map: ReadonlyMap<string, string>, id: unknown): string[] {
  const to = typeof id === 'string' ? map.get(id) : undefined;
  return to === undefined ? [] : [to];
}

/** A long thought's link text naming the page's new path: the last `(<old path>)]` of the text. */
function relink(text: string, from: string, to: string): string {
  const tail = ` (${from})]`;
  const at = text.lastIndexOf(tail);
  return at < 0 ? text : `${text.slice(0, at)} (${to})]${text.slice(at + tail.length)}`;
}
