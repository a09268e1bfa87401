import { checkActionTier, defineTool, z } from '@memory-service/kernel';
import {
  FACT_KEY_MAX,
  FACT_PREFIX,
  FACT_VERSION_PREFIX,
  notFound,
  parseId,
  validationError,
  WIKI_TITLE_MAX,
  WIKI_VERSION_PREFIX,
  type Fact,
  type FactSource,
  type FactVersion,
  type Scope,
  type Stores,
  type WikiPage,
  type WikiVersion,
} from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

/** The most versions one call lists. */
export const HISTORY_LIMIT_MAX = 200;

const factVersionSchema = z.object({
  version_id: z.string().describe('fv_<n>: pass it to restore'),
  op: z.enum(['create', 'update', 'delete', 'snapshot']),
  ts: z.string(),
  reason: z.string().describe('What wrote it: upsert, importance:<reason>, restore:<version_id>, branch_merge:<name>, delete, ...'),
  entry_id: z.string(),
  key: z.string(),
  value: z.string().nullable().describe('The value it held; null for a delete'),
  importance: z.number().nullable(),
  source: z.string(),
});
const wikiVersionSchema = z.object({
  version_id: z.string().describe('wv_<n>: pass it to restore'),
  op: z.enum(['create', 'update', 'delete', 'snapshot']),
  ts: z.string(),
  reason: z.string(),
  page_id: z.string(),
  title: z.string(),
  content: z.string().nullable().describe('The Markdown it held; null for a delete'),
  wiki_type: z.string(),
  tags: z.array(z.string()),
});
const currentFactSchema = z.object({ entry_id: z.string(), key: z.string(), value: z.string(), importance: z.number(), source: z.string(), updated: z.string() });
const currentPageSchema = z.object({ page_id: z.string(), title: z.string(), wiki_type: z.string(), tags: z.array(z.string()), content: z.string(), updated: z.string() });

type Target = { kind: 'fact'; by: { key: string } | { entry_id: string } } | { kind: 'wiki_page'; title: string };

function factVersionOut(v: FactVersion): z.infer<typeof factVersionSchema> {
  const gone = v.op === 'delete';
  return { version_id: v.version_id, op: v.op, ts: v.ts, reason: v.reason, entry_id: v.entry_id, key: v.key, value: gone ? null : v.value, importance: gone ? null : v.importance, source: v.source };
}

function wikiVersionOut(v: WikiVersion): z.infer<typeof wikiVersionSchema> {
  return { version_id: v.version_id, op: v.op, ts: v.ts, reason: v.reason, page_id: v.page_id, title: v.title, content: v.op === 'delete' ? null : v.content, wiki_type: v.wiki_type, tags: v.tags };
}

function currentFact(f: Fact | null) {
  return f && { entry_id: f.entry_id, key: f.key, value: f.value, importance: f.importance, source: f.source, updated: f.updated };
}

function currentPage(p: WikiPage | null) {
  return p && { page_id: p.id, title: p.title, wiki_type: p.wiki_type, tags: p.tags, content: p.content, updated: p.updated };
}

/** The history page of one fact or page, with what it holds now; unknown (no version and no record) is an error naming the lookup field. */
function historyOf(stores: Stores, scope: Scope, t: Target, limit: number, offset: number) {
  const where = `of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`;
  if (t.kind === 'wiki_page') {
    const h = stores.versions.wikiHistory(scope, t.title, limit, offset);
    const page = stores.wiki.getByTitle(scope, t.title);
    if (h.total === 0 && !page) throw notFound(`wiki page ${where}`, JSON.stringify(t.title), 'title');
    return { target: 'wiki_page' as const, title: t.title, current: currentPage(page), versions: h.versions.map(wikiVersionOut), total: h.total };
  }
  const h = stores.versions.factHistory(scope, t.by, limit, offset);
  let fact: Fact | null;
  if ('key' in t.by) fact = stores.facts.get(scope, t.by.key);
  else {
    // Entry ids are global: the fact must also be of the caller's scope.
    const f = stores.facts.getByEntryId(t.by.entry_id);
    fact = f && f.layer === scope.layer && f.user_id === scope.user_id ? f : null;
  }
  const field = 'key' in t.by ? 'key' : 'entry_id';
  if (h.total === 0 && !fact) throw notFound(`core fact ${where}`, 'key' in t.by ? JSON.stringify(t.by.key) : t.by.entry_id, field);
  const key = 'key' in t.by ? t.by.key : (fact?.key ?? h.versions[0]?.key ?? '');
  return { target: 'fact' as const, key, current: currentFact(fact), versions: h.versions.map(factVersionOut), total: h.total };
}

/** The tier of each action: list reads (insight), restore writes (write). */
const ACTION_TIERS = { list: 'insight', restore: 'write' } as const;
/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { list: ['key', 'entry_id', 'title', 'limit', 'offset'], restore: ['version_id', 'limit'] } as const;

export function memoryHistoryTool(stores: Stores) {
  return defineTool({
    name: 'memory_history',
    title: 'History of a fact or wiki page',
    tiers: ['insight', 'write'],
    description:
      'The change history of one core-memory (L4) fact or one wiki page of the layer and user_id: every value it held, with time, ' +
      'source and what wrote it. action list (insight tier; default): look the fact up by key (across every entry_id the key has had) or ' +
      'entry_id (fact_<n>), or the page by title, exactly one of them; returns what it holds now (current, null once deleted) and its ' +
      `versions newest first (version_id, op create/update/delete/snapshot, ts, reason, and the value or content; at most ${HISTORY_LIMIT_MAX} ` +
      'per call, paged with limit/offset). A deletion removes the values the record held from its history and keeps one delete version ' +
      '(the Shadow Bin is the archive of deleted content). action restore (write tier): version_id (fv_<n> of a fact, wv_<n> of a page) ' +
      'writes what that version held back as the current value, recorded as a new version (changed false when it holds it already). ' +
      'Errors name the field: a missing, doubled or unknown lookup (key, entry_id, title), a malformed or unknown version_id, a delete ' +
      'version to restore (it holds no value), or restore on a surface without the write tier (action).',
    input: () => z.object({
      action: z.enum(['list', 'restore']).default('list').describe('list the history (default), or restore a version'),
      key: z.string().min(1).max(FACT_KEY_MAX).optional().describe('list: the fact key, exactly as stored'),
      entry_id: z.string().min(1).max(100).optional().describe('list: the fact entry id, e.g. fact_12'),
      title: z.string().min(1).max(WIKI_TITLE_MAX).optional().describe('list: the wiki page title'),
      version_id: z.string().min(1).max(100).optional().describe('restore: the version to write back (fv_<n> or wv_<n>)'),
      limit: z.number().int().min(1).max(HISTORY_LIMIT_MAX).default(50).describe(`Most versions returned (default 50, at most ${HISTORY_LIMIT_MAX})`),
      offset: z.number().int().min(0).max(1_000_000).default(0).describe('Versions to skip (next_offset of the previous call)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(['list', 'restore']),
      target: z.enum(['fact', 'wiki_page']),
      key: z.string().optional().describe('The fact key (fact target)'),
      title: z.string().optional().describe('The page title (wiki_page target)'),
      current: z.union([currentFactSchema, currentPageSchema]).nullable().describe('What the fact or page holds now; null once deleted'),
      versions: z.array(z.union([factVersionSchema, wikiVersionSchema])),
      total: z.number().describe('Versions in the whole history'),
      count: z.number(),
      offset: z.number(),
      next_offset: z.number().nullable(),
      restored: z
        .object({ version_id: z.string(), changed: z.boolean().describe('False when the record held that value already (nothing written)') })
        .optional()
        .describe('restore: the version written back'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args, call) => {
      const scope = scopeOf(args);
      if (args.action === 'restore') {
        checkActionTier('memory_history', args.action, ACTION_TIERS, call);
        return restore(stores, scope, args.version_id, args.limit);
      }
      const given = (['key', 'entry_id', 'title'] as const).filter((f) => args[f] !== undefined);
      if (given.length !== 1) {
        throw validationError(given[1] ?? 'key', 'give exactly one of key or entry_id (a fact) or title (a wiki page)', ['key', 'entry_id', 'title']);
      }
      let target: Target;
      if (args.title !== undefined) target = { kind: 'wiki_page', title: args.title.trim() };
      else if (args.key !== undefined) target = { kind: 'fact', by: { key: args.key } };
      else {
        const id = (args.entry_id as string).trim();
        if (parseId(FACT_PREFIX, id) === null) throw validationError('entry_id', `entry_id must be a fact id of the form ${FACT_PREFIX}_<number>; got ${JSON.stringify(id.slice(0, 100))}`, `${FACT_PREFIX}_<number>`);
        target = { kind: 'fact', by: { entry_id: id } };
      }
      const h = historyOf(stores, scope, target, args.limit, args.offset);
      return { action: 'list' as const, ...h, ...paging(h.versions.length, h.total, args.offset) };
    },
  });
}

function paging(count: number, total: number, offset: number) {
  return { count, offset, next_offset: offset + count < total ? offset + count : null };
}

function restore(stores: Stores, scope: Scope, versionId: string | undefined, limit: number) {
  if (versionId === undefined) throw validationError('version_id', 'version_id is required for action restore (fv_<n> of a fact or wv_<n> of a page, from action list)', 'fv_<n> or wv_<n>');
  const id = versionId.trim();
  const where = `version of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`;
  const reason = `restore:${id}`;
  if (parseId(FACT_VERSION_PREFIX, id) !== null) {
    const v = stores.versions.factVersion(scope, id);
    if (!v) throw notFound(where, id, 'version_id');
    if (v.op === 'delete') throw validationError('version_id', `${id} records a deletion and holds no value; restore an earlier version, or the archived copy from the Shadow Bin`, 'a version whose op is not delete');
    const before = stores.facts.get(scope, v.key);
    const changed = !before || before.value !== v.value || before.importance !== v.importance;
    if (changed) stores.facts.upsert(scope, { key: v.key, value: v.value, importance: v.importance, source: v.source as FactSource, metadata: v.metadata }, reason);
    const h = historyOf(stores, scope, { kind: 'fact', by: { key: v.key } }, limit, 0);
    return { action: 'restore' as const, ...h, ...paging(h.versions.length, h.total, 0), restored: { version_id: id, changed } };
  }
  if (parseId(WIKI_VERSION_PREFIX, id) !== null) {
    const v = stores.versions.wikiVersion(scope, id);
    if (!v) throw notFound(where, id, 'version_id');
    if (v.op === 'delete') throw validationError('version_id', `${id} records a deletion and holds no content; restore an earlier version, or the archived copy from the Shadow Bin`, 'a version whose op is not delete');
    const before = stores.wiki.getByTitle(scope, v.title);
    const changed = !before || before.content !== v.content || before.wiki_type !== v.wiki_type || JSON.stringify(before.tags) !== JSON.stringify(v.tags);
    if (changed) stores.wiki.save(scope, { title: v.title, content: v.content, wiki_type: v.wiki_type, tags: v.tags }, reason);
    const h = historyOf(stores, scope, { kind: 'wiki_page', title: v.title }, limit, 0);
    return { action: 'restore' as const, ...h, ...paging(h.versions.length, h.total, 0), restored: { version_id: id, changed } };
  }
  throw validationError('version_id', `version_id must be ${FACT_VERSION_PREFIX}_<number> (a fact version) or ${WIKI_VERSION_PREFIX}_<number> (a page version); got ${JSON.stringify(id.slice(0, 100))}`, ['fv_<number>', 'wv_<number>']);
}
