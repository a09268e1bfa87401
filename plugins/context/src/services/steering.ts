import { foldText } from '@memory-service/stores';

/** One route of the steering table: an intent, the tool that serves it, and the keywords that signal it. */
export interface SteeringRoute {
  route: string;
  tool: string;
  hint: string;
  /** Lower-case words or phrases; a phrase matches its words in sequence, a word matches whole words. */
  keywords: readonly string[];
}

export interface SteeringHint {
  route: string;
  tool: string;
  hint: string;
  score: number;
  matched_keywords: string[];
}

/** Most hints answered for one query. */
export const STEERING_MAX_HINTS = 3;

/**
 * The eight routes, in the order ties are broken. Every tool named is served by this server: the
 * primitives, the wiki tier's wiki_* tools and the context tier's own tools.
 */
export const STEERING_ROUTES: readonly SteeringRoute[] = Object.freeze([
  {
    route: 'store',
    tool: 'think',
    hint: 'Store it with think: it routes the text by length, importance and emotional weight to L4, L3 or the wiki.',
    keywords: ['remember', 'save', 'store', 'note', 'write down', 'keep in mind', 'record', 'memorize', 'jot'],
  },
  {
    route: 'recall',
    tool: 'dream',
    hint: 'Recall with dream: hybrid search over episodes, facts, wiki pages and graph nodes, cut to a token budget.',
    keywords: ['recall', 'search', 'find', 'look up', 'what did', 'what do you know', 'retrieve', 'lookup', 'know about', 'did i'],
  },
  {
    route: 'delete',
    tool: 'forget',
    hint: 'Delete with forget: scope exact for one fact key, fuzzy for a pattern, recent for the last minutes; archived in the Shadow Bin first.',
    keywords: ['forget', 'delete', 'remove', 'erase', 'purge', 'wipe', 'drop'],
  },
  {
    route: 'personality',
    tool: 'evolve',
    hint: 'Change how the agent behaves with evolve: the instruction is stored in agent core memory with importance 1.0.',
    keywords: ['personality', 'persona', 'behave', 'behaviour', 'behavior', 'tone', 'style', 'be more', 'be less', 'from now on'],
  },
  {
    route: 'project',
    tool: 'project',
    hint: 'Track a project with project: init, update, mapping of artifacts, decision with rationale, recall, audit, archive.',
    keywords: ['project', 'decision', 'architecture', 'artifact', 'codebase', 'repository', 'repo', 'spec', 'audit'],
  },
  {
    route: 'wiki',
    tool: 'wiki_add',
    hint: 'Keep a document with wiki_add (typed Markdown page by title); find pages with wiki_search, read them with wiki_read (wiki tier).',
    keywords: ['wiki', 'page', 'document', 'journal', 'diary', 'retrospective', 'learning journal', 'decision log', 'article'],
  },
  {
    route: 'context',
    tool: 'memory_context_inject',
    hint: 'Start or resume with memory_context_inject (facts, recent turns, wiki, episodes within a token budget); memory_get_smart_context splits a budget over five sources.',
    keywords: ['context', 'resume', 'catch up', 'where were we', 'session start', 'start of session', 'brief me', 'continue', 'pick up', 'last time', 'wake up'],
  },
  {
    route: 'compress',
    tool: 'memory_compress',
    hint: 'Shrink a long log or Python file with memory_compress: log mode keeps errors, warnings, the first and last lines; code mode keeps signatures.',
    keywords: ['compress', 'shorten', 'too long', 'log', 'logs', 'traceback', 'stack trace', 'output', 'truncate', 'condense', 'signatures'],
  },
]);

function words(text: string): string[] {
  return foldText(text).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whether `phrase` (its words) occurs in `tokens` as consecutive whole words. */
function holdsPhrase(tokens: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  for (let i = 0; i + phrase.length <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < phrase.length && ok; j++) ok = tokens[i + j] === phrase[j];
    if (ok) return true;
  }
  return false;
}

/**
 * Keyword intent matching over the fixed table. A route's score is the number of its keywords
 * found in the query (whole words, phrases as consecutive words, case and accents folded), a
 * phrase of several words counting 2. Routes scoring 0 are left out; the rest are ranked by score,
 * ties in table order, and at most STEERING_MAX_HINTS are answered.
 */
export function steer(query: string): SteeringHint[] {
  const tokens = words(query);
  const scored: SteeringHint[] = [];
  for (const r of STEERING_ROUTES) {
    const matched = r.keywords.filter((k) => holdsPhrase(tokens, words(k)));
    if (matched.length === 0) continue;
    const score = matched.reduce((sum, k) => sum + (words(k).length > 1 ? 2 : 1), 0);
    scored.push({ route: r.route, tool: r.tool, hint: r.hint, score, matched_keywords: matched });
  }
  // Array.prototype.sort is stable: equal scores keep table order.
  return scored.sort((a, b) => b.score - a.score).slice(0, STEERING_MAX_HINTS);
}
