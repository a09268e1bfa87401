import { idSegment, writeFileAtomic, type Logger } from '@memory-service/kernel';
import { WIKI_PERSPECTIVES, type Scope, type Stores } from '@memory-service/stores';
import { contextLines } from './context-summary.js';

/** Pages named per perspective in the snapshot. */
export const SNAPSHOT_PAGES_PER_PERSPECTIVE = 3;

/**
 * Where a scope's snapshot lives, relative to the data dir: `<layer>/CONTEXT.md` (the spec's path)
 * for the default user_id; `<layer>/users/<idSegment(user_id)>/CONTEXT.md` for any other, so users
 * of one layer never read or overwrite each other's snapshot (idSegment is one-to-one).
 */
export function contextMdSegments(scope: Scope): string[] {
  return scope.user_id === 'default' ? [scope.layer, 'CONTEXT.md'] : [scope.layer, 'users', idSegment(scope.user_id), 'CONTEXT.md'];
}

export interface Snapshot {
  markdown: string;
  /** The layer's wiki_summarize perspectives with at least one page of their type. */
  perspectives_count: number;
}

/**
 * The three-section snapshot: Core facts (the top 10 facts), Recent activity (recent turns, then
 * episodes), Perspectives (each wiki_summarize perspective of this layer whose type has pages,
 * with its newest page titles).
 */
export function renderSnapshot(stores: Stores, scope: Scope, generatedAt: string): Snapshot {
  const lines = contextLines(stores, scope);
  const perspectives: string[] = [];
  let count = 0;
  for (const [name, p] of Object.entries(WIKI_PERSPECTIVES)) {
    if (p.layer !== scope.layer) continue;
    const pages = stores.wiki.list(scope, { wiki_type: p.wiki_type, limit: SNAPSHOT_PAGES_PER_PERSPECTIVE });
    if (pages.length === 0) continue;
    count++;
    perspectives.push(`- ${name} (${p.wiki_type}): ${pages.map((x) => x.title).join('; ')}`);
  }
  const section = (title: string, body: string[]) => `## ${title}\n\n${body.length > 0 ? body.join('\n') : '- none'}\n`;
  const markdown = [
    `# CONTEXT (${scope.layer} layer, user ${scope.user_id})\n\nGenerated ${generatedAt} by memory_context_inject.\n`,
    section('Core facts', lines.facts),
    section('Recent activity', [...lines.turns, ...lines.episodes]),
    section('Perspectives', perspectives),
  ].join('\n');
  return { markdown, perspectives_count: count };
}

/**
 * Write the snapshot atomically at `file` (resolved inside the data dir by the caller; `rel` is its
 * path relative to the data dir, as contextMdSegments gives it, joined with '/'). A failure is
 * reported on the logger and answered as its message, naming `rel` (null on success): the snapshot
 * is a convenience copy, never the memory, so it never fails the call.
 */
export function writeSnapshot(file: string, rel: string, markdown: string, logger: Logger): string | null {
  try {
    writeFileAtomic(file, markdown);
    return null;
  } catch (err) {
    const message = `writing ${rel} failed: ${(err as Error).message}`;
    logger.warn(`${message} (non-fatal)`);
    return message;
  }
}
