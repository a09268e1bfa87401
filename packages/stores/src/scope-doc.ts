import { validationError } from './errors.js';
import { checkScopeDocExtras, SCOPE_DOC_EXTRA_KINDS, type ScopeDocExtras } from './scope-doc-extra.js';
import { records, unique, type Fields, type Obj } from './scope-doc-fields.js';
import { FACT_KEY_MAX, FACT_SOURCES, IMPORTANCE_MAX, IMPORTANCE_MIN, type FactSource } from './facts.js';
import { ALL_RELATIONS, type GraphRelation } from './graph.js';
import { WIKI_TITLE_MAX } from './wiki.js';
import { WIKI_LINK_RELATIONS, WIKI_TYPES, type WikiLinkRelation, type WikiType } from './wiki-types.js';

/** The `format` of a scope export (memory_data). */
export const SCOPE_DOC_FORMAT = 'memory-service-scope-export';
/** The version of the document this service writes; import reads these versions. */
export const SCOPE_DOC_VERSION = 1;
export const SCOPE_DOC_VERSIONS = [1] as const;
export { SCOPE_DOC_MAX_RECORDS } from './scope-doc-fields.js';

export interface DocFact {
  /** The fact's id in the exported scope, which other records name (informational: an import gives each fact a new id). */
  entry_id?: string;
  key: string;
  value: string;
  importance: number;
  source: FactSource;
  metadata: Record<string, unknown>;
  created: string;
  updated: string;
}
export interface DocEpisode {
  /** The id in the exported scope (informational: an import gives each episode a new id). */
  id?: string;
  summary: string;
  emotional_weight: number;
  importance: number;
  tags: string[];
  meta: Record<string, unknown>;
  context: string;
  created: string;
}
export interface DocWikiPage {
  /** The page's id and the path of its file in the exported scope, which other records name (informational). */
  id?: string;
  path?: string;
  title: string;
  wiki_type: WikiType;
  tags: string[];
  content: string;
  created: string;
  updated: string;
}
export interface DocWikiLink {
  from_title: string;
  to_title: string;
  relation: WikiLinkRelation;
  created: string;
}
export interface DocGraphNode {
  /** The node's id in the document, which its edges name. */
  node_id: string;
  content: string;
  node_type: string;
  tags: string[];
  confidence: number;
  created: string;
}
export interface DocGraphEdge {
  from: string;
  to: string;
  relation: GraphRelation;
  strength: number;
  created: string;
}
export interface DocTimelineEvent {
  type: string;
  summary: string;
  metadata: Record<string, unknown>;
  created: string;
}
export interface DocSession {
  /** The session's id in the exported scope, which a session summary names (informational). */
  id?: string;
  status: 'open' | 'closed';
  started: string;
  ended: string | null;
  summary: string | null;
  topics: string[];
  state_deltas: unknown;
  quality: number | null;
  quality_detail: Record<string, unknown> | null;
}
export interface DocScratchpadEntry {
  key: string;
  content: string;
  created: string;
  updated: string;
}

/** One (layer, user_id) scope as memory_data exports it and imports it. */
export interface ScopeDocument extends ScopeDocExtras {
  format: typeof SCOPE_DOC_FORMAT;
  version: number;
  exported_at: string;
  layer: string;
  user_id: string;
  facts: DocFact[];
  episodes: DocEpisode[];
  wiki_pages: DocWikiPage[];
  wiki_links: DocWikiLink[];
  graph_nodes: DocGraphNode[];
  graph_edges: DocGraphEdge[];
  timeline: DocTimelineEvent[];
  sessions: DocSession[];
  scratchpad: DocScratchpadEntry[];
}

/** The longest source id, and source page path, a document may give (they are only looked up). */
const SOURCE_ID_MAX = 100;
const SOURCE_PATH_MAX = 2000;

/** A record's id in the exported scope (`entry_id`, `id`, `path`): optional, undefined when absent. */
function sourceId(f: Fields, name: string, max = SOURCE_ID_MAX): string | undefined {
  const v = f.text(name, max, { optional: '' });
  return v === '' ? undefined : v;
}

export const SCOPE_DOC_KINDS = ['facts', 'episodes', 'wiki_pages', 'wiki_links', 'graph_nodes', 'graph_edges', 'timeline', 'sessions', 'scratchpad', ...SCOPE_DOC_EXTRA_KINDS] as const;
export type ScopeDocKind = (typeof SCOPE_DOC_KINDS)[number];

/**
 * Check a scope document whole before anything is written: its format and version, and every
 * record's fields, each error naming the path of the bad field under `root` (`data.facts[3].key`).
 * Returns the document with defaults filled in and times as ISO strings. `maxText` is the longest
 * text a store takes (config maxTextChars).
 */
export function checkScopeDocument(input: unknown, root: string, maxText: number): ScopeDocument {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw validationError(root, `${root} must be an object (a memory_data export)`, 'object');
  const doc = input as Obj;
  if (doc.format !== SCOPE_DOC_FORMAT) throw validationError(`${root}.format`, `${root}.format must be ${JSON.stringify(SCOPE_DOC_FORMAT)}`, [SCOPE_DOC_FORMAT]);
  if (!(SCOPE_DOC_VERSIONS as readonly unknown[]).includes(doc.version)) {
    throw validationError(`${root}.version`, `${root}.version must be one of ${SCOPE_DOC_VERSIONS.join(', ')} (got ${JSON.stringify(doc.version)})`, SCOPE_DOC_VERSIONS);
  }
  for (const key of Object.keys(doc)) {
    if (!['format', 'version', 'exported_at', 'layer', 'user_id', ...SCOPE_DOC_KINDS].includes(key)) {
      throw validationError(`${root}.${key}`, `${root}.${key} is not a field of the export`, ['format', 'version', 'exported_at', 'layer', 'user_id', ...SCOPE_DOC_KINDS]);
    }
  }
  const facts = records(doc, 'facts', root).map((f) => ({
    entry_id: sourceId(f, 'entry_id'),
    key: f.text('key', FACT_KEY_MAX),
    value: f.text('value', maxText),
    importance: f.number('importance', IMPORTANCE_MIN, IMPORTANCE_MAX, 0.5),
    source: f.oneOf('source', FACT_SOURCES, 'manual'),
    metadata: f.object('metadata'),
    created: f.time('created', ''),
    updated: f.time('updated', ''),
  }));
  unique(records(doc, 'facts', root), 'key', (i) => facts[i]!.key);
  const episodes = records(doc, 'episodes', root).map((f) => ({
    id: sourceId(f, 'id'),
    summary: f.text('summary', maxText),
    emotional_weight: f.number('emotional_weight', 0, 1, 0),
    importance: f.number('importance', 0, 1, 0.5),
    tags: f.tags('tags'),
    meta: f.object('meta'),
    context: f.text('context', 1000, { empty: true, optional: '' }),
    created: f.time('created', ''),
  }));
  const wiki_pages = records(doc, 'wiki_pages', root).map((f) => ({
    id: sourceId(f, 'id'),
    path: sourceId(f, 'path', SOURCE_PATH_MAX),
    title: f.text('title', WIKI_TITLE_MAX).trim(),
    wiki_type: f.oneOf('wiki_type', WIKI_TYPES) as WikiType,
    tags: f.tags('tags'),
    content: f.text('content', maxText, { empty: true }),
    created: f.time('created', ''),
    updated: f.time('updated', ''),
  }));
  unique(records(doc, 'wiki_pages', root), 'title', (i) => wiki_pages[i]!.title);
  const wiki_links = records(doc, 'wiki_links', root).map((f) => ({
    from_title: f.text('from_title', WIKI_TITLE_MAX).trim(),
    to_title: f.text('to_title', WIKI_TITLE_MAX).trim(),
    relation: f.oneOf('relation', WIKI_LINK_RELATIONS),
    created: f.time('created', ''),
  }));
  const graph_nodes = records(doc, 'graph_nodes', root).map((f) => ({
    node_id: f.text('node_id', 100),
    content: f.text('content', maxText),
    node_type: f.text('node_type', 100),
    tags: f.tags('tags'),
    confidence: f.number('confidence', 0, 1, 0.5),
    created: f.time('created', ''),
  }));
  unique(records(doc, 'graph_nodes', root), 'node_id', (i) => graph_nodes[i]!.node_id);
  const nodeIds = new Set(graph_nodes.map((n) => n.node_id));
  const graph_edges = records(doc, 'graph_edges', root).map((f) => {
    const e = {
      from: f.text('from', 100),
      to: f.text('to', 100),
      relation: f.oneOf('relation', ALL_RELATIONS),
      strength: f.number('strength', 0, 1, 1),
      created: f.time('created', ''),
    };
    for (const end of ['from', 'to'] as const) {
      if (!nodeIds.has(e[end])) throw validationError(`${f.at}.${end}`, `${f.at}.${end} names no node_id of ${root}.graph_nodes: ${JSON.stringify(e[end])}`, 'a node_id of graph_nodes');
    }
    return e;
  });
  const timeline = records(doc, 'timeline', root).map((f) => ({
    type: f.text('type', 100),
    summary: f.text('summary', maxText, { empty: true }),
    metadata: f.object('metadata'),
    created: f.time('created', ''),
  }));
  const sessionFields = records(doc, 'sessions', root);
  const sessions = sessionFields.map((f) => {
    const status = f.oneOf('status', ['open', 'closed'] as const);
    const quality = f.raw('quality');
    return {
      id: sourceId(f, 'id'),
      status,
      started: f.time('started'),
      ended: f.nullableTime('ended'),
      summary: f.nullableText('summary', maxText),
      topics: f.tags('topics'),
      state_deltas: f.data('state_deltas') ?? {},
      quality: quality === null || quality === undefined ? null : Math.round(f.number('quality', 0, 80)),
      quality_detail: f.raw('quality_detail') == null ? null : f.object('quality_detail'),
    };
  });
  const open = sessions.map((s, i) => (s.status === 'open' ? i : -1)).filter((i) => i >= 0);
  if (open.length > 1) throw validationError(`${sessionFields[open[1]!]!.at}.status`, `${root}.sessions holds more than one open session`, 'at most one open session');
  const scratchFields = records(doc, 'scratchpad', root);
  const scratchpad = scratchFields.map((f) => ({
    key: f.text('key', 200),
    content: f.text('content', maxText, { empty: true }),
    created: f.time('created', ''),
    updated: f.time('updated', ''),
  }));
  unique(scratchFields, 'key', (i) => scratchpad[i]!.key);
  return {
    format: SCOPE_DOC_FORMAT,
    version: doc.version as number,
    exported_at: typeof doc.exported_at === 'string' ? doc.exported_at : '',
    layer: typeof doc.layer === 'string' ? doc.layer : '',
    user_id: typeof doc.user_id === 'string' ? doc.user_id : '',
    facts,
    episodes,
    wiki_pages,
    wiki_links,
    graph_nodes,
    graph_edges,
    timeline,
    sessions,
    scratchpad,
    ...checkScopeDocExtras(doc, root, maxText),
  };
}
