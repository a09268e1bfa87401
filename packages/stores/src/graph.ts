import { checkNoHiddenFormat, toNfc } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, validationError } from './errors.js';
import { foldText } from './retrieval/query.js';
import { facetSql } from './tags.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, checkWordPattern, clamp, makeId, rowsMatching, wordFilterArgs, wordFilterSql, normalizeTags, parseId, parseJson, checkMatchPattern } from './util.js';

export const SOCIAL_NODE_TYPES = ['person', 'organization'] as const;
export const GRAPH_RELATIONS = ['relates_to', 'knows', 'works_with', 'family_of', 'friend_of', 'met', 'mentions'] as const;
export const CAUSAL_RELATIONS = ['led_to', 'caused', 'blocked'] as const;
export const ALL_RELATIONS = [...GRAPH_RELATIONS, ...CAUSAL_RELATIONS] as const;
export type GraphRelation = (typeof ALL_RELATIONS)[number];

export interface GraphNode {
  node_id: string;
  layer: Layer;
  user_id: string;
  content: string;
  node_type: string;
  tags: string[];
  confidence: number;
  created: string;
  access_count: number;
}

export interface GraphNodeInput {
  content: string;
  node_type: string;
  tags?: string[];
  confidence?: number;
  /** Return an existing node with the same normalised content and type instead of adding one. */
  dedupe?: boolean;
}

export interface GraphEdge {
  edge_id: string;
  relation: GraphRelation;
  strength: number;
  created: string;
  from: { node_id: string; content: string; node_type: string };
  to: { node_id: string; content: string; node_type: string };
}

export interface GraphEdgeInput {
  from: string;
  to: string;
  relation: string;
  strength?: number;
}

interface NodeRow {
  id: number;
  layer: Layer;
  user_id: string;
  content: string;
  node_type: string;
  tags: string;
  confidence: number;
  created: string;
  access_count: number;
}
/** A row of its table as SELECT * reads it. */
export type GraphNodeRow = NodeRow;

interface EdgeRow {
  id: number;
  relation: GraphRelation;
  strength: number;
  created: string;
  from_id: number;
  from_content: string;
  from_type: string;
  to_id: number;
  to_content: string;
  to_type: string;
}

export const NODE_PREFIX = 'node';

/** The nodes memory_graph_nodes and memory_graph_query list: faceted tags and/or a node type. */
export interface NodeFilter {
  tag?: string | readonly string[];
  node_type?: string;
}

/**
 * The graph node ids a record's metadata names as made from its text (`derived_nodes`: think,
 * memory_remember, memory_hook's saves), strings only.
 */
export function derivedNodeIds(meta: unknown): string[] {
  const ids = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>).derived_nodes : undefined;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * A node type as stored and compared: trimmed, lower case, in Unicode NFC, as names are (fact keys,
 * titles, tags): "Café" sent decomposed and precomposed is one type, for adds, de-duplication,
 * filters and imports alike. Stores migration 27 rewrote the types stored before in NFC.
 */
export function nodeTypeOf(raw: string): string {
  return toNfc(raw.trim().toLowerCase());
}

/**
 * Normalised node content for deduplication: folded as dream and fuzzy forget fold a word
 * (retrieval foldText: compatibility forms, accents and invisible format characters dropped, case
 * folded, "ß" as "ss", Turkish "İ" as "i"), punctuation-trimmed, single spaces. "Straße AG" and
 * "STRASSE AG", "İstanbul Ltd" and "istanbul ltd" are one organization. Stored as norm_content
 * (migration 26 computed it again for the nodes stored before).
 */
export function normalizeContent(s: string): string {
  return foldText(s)
    .replace(/\s+/g, ' ')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
}

/** A record as its store answers it, from its table row (SELECT *). */
export function toNode(r: GraphNodeRow): GraphNode {
  return {
    node_id: makeId(NODE_PREFIX, r.id),
    layer: r.layer,
    user_id: r.user_id,
    content: r.content,
    node_type: r.node_type,
    tags: parseJson<string[]>(r.tags, []),
    confidence: r.confidence,
    created: r.created,
    access_count: r.access_count,
  };
}

function toEdge(r: EdgeRow): GraphEdge {
  return {
    edge_id: makeId('edge', r.id),
    relation: r.relation,
    strength: r.strength,
    created: r.created,
    from: { node_id: makeId(NODE_PREFIX, r.from_id), content: r.from_content, node_type: r.from_type },
    to: { node_id: makeId(NODE_PREFIX, r.to_id), content: r.to_content, node_type: r.to_type },
  };
}

const EDGE_SELECT = `SELECT e.id, e.relation, e.strength, e.created,
  f.id AS from_id, f.content AS from_content, f.node_type AS from_type,
  t.id AS to_id, t.content AS to_content, t.node_type AS to_type
  FROM graph_edges e JOIN graph_nodes f ON f.id = e.from_id JOIN graph_nodes t ON t.id = e.to_id`;

/**
 * The knowledge graph of a scope. Social nodes (person, organization) are deduplicated by
 * normalised content; edges are unique per (from, to, relation) and re-adding one updates its strength.
 */
export class GraphStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  /** Add a node created at `created` (ISO; default now: memory_data import gives each its exported time); a deduplicated node found is answered as it is. */
  addNode(scope: Scope, input: GraphNodeInput, created?: string): GraphNode & { existed: boolean } {
    checkScope(scope);
    const content = checkText(input.content, 'content', this.ctx.config.maxTextChars).trim();
    const nodeType = nodeTypeOf(checkText(input.node_type, 'node_type', 100));
    const tags = normalizeTags(input.tags, 'tags', { oneLine: true });
    const norm = normalizeContent(content);
    const dedupe = input.dedupe === true || (SOCIAL_NODE_TYPES as readonly string[]).includes(nodeType);
    // A person's or an organization's content is a name: it may not hold what shows nothing or
    // reorders what is shown, as a fact key or a wiki title may not ("Bob" and "Bob<U+202E>" looked
    // like one person). Other de-duplicated nodes (memory_remember's "key: value", causal texts)
    // hold free text, which may.
    if ((SOCIAL_NODE_TYPES as readonly string[]).includes(nodeType)) checkNoHiddenFormat('content', content);
    return this.ctx.tx(() => {
      if (dedupe) {
        const r = this.ctx
          .stmt('SELECT * FROM graph_nodes WHERE layer = ? AND user_id = ? AND node_type = ? AND norm_content = ? LIMIT 1')
          .get(scope.layer, scope.user_id, nodeType, norm) as NodeRow | undefined;
        if (r) return { ...toNode(r), existed: true };
      }
      return { ...this.insert(scope, null, content, nodeType, tags, input.confidence ?? 0.5, created ?? this.ctx.iso()), existed: false };
    });
  }

  /** Re-insert an archived node, keeping its id when free (Shadow Bin restore). */
  restore(scope: Scope, node: GraphNode): GraphNode {
    checkScope(scope);
    return this.ctx.tx(() => {
      const n = parseId(NODE_PREFIX, node.node_id);
      const free = n !== null && !this.ctx.stmt('SELECT 1 FROM graph_nodes WHERE id = ?').get(n);
      return this.insert(scope, free ? n : null, node.content, nodeTypeOf(node.node_type), normalizeTags(node.tags, 'tags', { held: 'any' }), node.confidence, node.created, 'restore');
    });
  }

  getNode(scope: Scope, nodeId: string): GraphNode | null {
    checkScope(scope);
    const n = parseId(NODE_PREFIX, nodeId);
    if (n === null) return null;
    const r = this.ctx
      .stmt('SELECT * FROM graph_nodes WHERE id = ? AND layer = ? AND user_id = ?')
      .get(n, scope.layer, scope.user_id) as NodeRow | undefined;
    return r ? toNode(r) : null;
  }

  /** Add (or update the strength of) an edge between two nodes of the scope. */
  addEdge(scope: Scope, input: GraphEdgeInput): GraphEdge {
    checkScope(scope);
    if (!(ALL_RELATIONS as readonly string[]).includes(input.relation)) {
      throw validationError('relation', `relation must be one of ${ALL_RELATIONS.join(', ')}`, ALL_RELATIONS);
    }
    const strength = clamp(input.strength ?? 1, 0, 1);
    return this.ctx.tx(() => {
      const from = this.getNode(scope, input.from);
      if (!from) throw notFound('graph node', input.from);
      const to = this.getNode(scope, input.to);
      if (!to) throw notFound('graph node', input.to);
      const fromN = parseId(NODE_PREFIX, from.node_id) as number;
      const toN = parseId(NODE_PREFIX, to.node_id) as number;
      this.ctx
        .stmt(
          `INSERT INTO graph_edges (layer, user_id, from_id, to_id, relation, strength, created) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (from_id, to_id, relation) DO UPDATE SET strength = excluded.strength`,
        )
        .run(scope.layer, scope.user_id, fromN, toN, input.relation, strength, this.ctx.iso());
      const r = this.ctx
        .stmt(`${EDGE_SELECT} WHERE e.from_id = ? AND e.to_id = ? AND e.relation = ?`)
        .get(fromN, toN, input.relation) as EdgeRow;
      const edge = toEdge(r);
      this.audit.log(scope, 'link', 'graph_node', from.node_id, { to: to.node_id, relation: input.relation, strength });
      return edge;
    });
  }

  /** Nodes of the scope, highest confidence first (ties: newest first), `limit` from `offset`. */
  nodes(scope: Scope, opts: { node_type?: string; limit?: number; offset?: number } = {}): GraphNode[] {
    return this.query(scope, { node_type: opts.node_type, limit: opts.limit, offset: opts.offset });
  }

  /** Edges of the scope, or of one node in a direction (default out); both endpoint contents included. */
  edges(scope: Scope, opts: { node_id?: string; direction?: 'out' | 'in' | 'both'; limit?: number } = {}): GraphEdge[] {
    checkScope(scope);
    const limit = Math.max(0, Math.floor(opts.limit ?? 100));
    if (opts.node_id === undefined) {
      const rows = this.ctx
        .stmt(`${EDGE_SELECT} WHERE e.layer = ? AND e.user_id = ? ORDER BY e.id DESC LIMIT ?`)
        .all(scope.layer, scope.user_id, limit) as EdgeRow[];
      return rows.map(toEdge);
    }
    const node = this.getNode(scope, opts.node_id);
    if (!node) return [];
    const n = parseId(NODE_PREFIX, node.node_id) as number;
    const dir = opts.direction ?? 'out';
    const rows: EdgeRow[] = [];
    if (dir === 'out' || dir === 'both') {
      rows.push(...(this.ctx.stmt(`${EDGE_SELECT} WHERE e.from_id = ? ORDER BY e.id LIMIT ?`).all(n, limit) as EdgeRow[]));
    }
    if (dir === 'in' || dir === 'both') {
      rows.push(...(this.ctx.stmt(`${EDGE_SELECT} WHERE e.to_id = ? ORDER BY e.id LIMIT ?`).all(n, limit) as EdgeRow[]));
    }
    const seen = new Set<number>();
    return rows.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true))).slice(0, limit).map(toEdge);
  }

  /**
   * Nodes by tags and/or node type, highest confidence first (ties: newest first), `limit` from
   * `offset`. Tags are faceted (tags.ts): same dimension any of, different dimensions all of.
   */
  query(scope: Scope, opts: NodeFilter & { limit?: number; offset?: number } = {}): GraphNode[] {
    const limit = Math.max(0, Math.floor(opts.limit ?? 50));
    const offset = Math.max(0, Math.floor(opts.offset ?? 0));
    const { where, params } = this.filterSql(scope, opts);
    const rows = this.ctx
      .stmt(`SELECT n.* FROM graph_nodes n WHERE ${where} ORDER BY n.confidence DESC, n.id DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as NodeRow[];
    return rows.map(toNode);
  }

  /** How many nodes query() pages through for the same filter (every page's `total`). */
  countQuery(scope: Scope, opts: NodeFilter = {}): number {
    const { where, params } = this.filterSql(scope, opts);
    return this.ctx.stmt(`SELECT COUNT(*) FROM graph_nodes n WHERE ${where}`).pluck(true).get(...params) as number;
  }

  /** The WHERE clause (over `graph_nodes n`) of a node filter: the scope, the node type, the faceted tags. */
  private filterSql(scope: Scope, opts: NodeFilter): { where: string; params: (string | number)[] } {
    checkScope(scope);
    const where = ['n.layer = ?', 'n.user_id = ?'];
    const params: (string | number)[] = [scope.layer, scope.user_id];
    if (opts.node_type !== undefined) {
      where.push('n.node_type = ?');
      params.push(nodeTypeOf(opts.node_type));
    }
    const tags = opts.tag === undefined ? [] : typeof opts.tag === 'string' ? [opts.tag] : opts.tag;
    const f = facetSql(tags, 'n.id', 'graph_node_tags', 'node_id', scope.layer, scope.user_id);
    if (f.sql) {
      where.push(f.sql);
      params.push(...f.params);
    }
    return { where: where.join(' AND '), params };
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM graph_nodes WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** Delete one node and its edges; returns the node. */
  deleteNode(scope: Scope, nodeId: string): GraphNode | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const node = this.getNode(scope, nodeId);
      if (!node) return null;
      this.ctx.stmt('DELETE FROM graph_nodes WHERE id = ?').run(parseId(NODE_PREFIX, node.node_id));
      this.audit.log(scope, 'delete', 'graph_node', node.node_id);
      return node;
    });
  }

  findMatching(scope: Scope, pattern: string, limit = 10_000): GraphNode[] {
    checkScope(scope);
    checkMatchPattern(pattern, this.ctx.config.maxTextChars);
    const rows = this.ctx
      .stmt(`SELECT * FROM graph_nodes WHERE layer = ? AND user_id = ? AND ${wordFilterSql('content')} ORDER BY id`)
      .iterate(scope.layer, scope.user_id, ...wordFilterArgs(pattern)) as IterableIterator<NodeRow>;
    return rowsMatching(rows, pattern, (r) => [r.content], limit).map(toNode);
  }

  /** Delete the nodes whose content holds the pattern (which needs a letter or digit) as whole words, and their edges; returns them. */
  deleteMatching(scope: Scope, pattern: string): GraphNode[] {
    checkWordPattern(pattern);
    return this.ctx.tx(() =>
      this.audit.deleteLogged(scope, 'graph_nodes', 'graph_node', this.findMatching(scope, pattern), (n) => ({
        rowid: parseId(NODE_PREFIX, n.node_id),
        id: n.node_id,
        detail: { pattern },
      })),
    );
  }

  /** Delete nodes and edges created at or after the ISO time; returns the number of nodes deleted. */
  deleteSince(scope: Scope, sinceIso: string): number {
    return this.purgeSince(scope, sinceIso).nodes;
  }

  /**
   * deleteSince, answering both counts: the nodes created at or after the ISO time, and the edges
   * that went with them (those created in the window, and older ones joining a deleted node).
   */
  purgeSince(scope: Scope, sinceIso: string): { nodes: number; edges: number } {
    const w = this.ctx.window(sinceIso);
    sinceIso = w.since;
    checkScope(scope);
    return this.ctx.tx(() => {
      const edgesBefore = this.ctx.stmt('SELECT COUNT(*) FROM graph_edges WHERE layer = ? AND user_id = ?').pluck(true);
      const before = edgesBefore.get(scope.layer, scope.user_id) as number;
      this.ctx.stmt('DELETE FROM graph_edges WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?').run(scope.layer, scope.user_id, w.since, w.until);
      const n = this.ctx
        .stmt('DELETE FROM graph_nodes WHERE layer = ? AND user_id = ? AND created >= ? AND created <= ?')
        .run(scope.layer, scope.user_id, w.since, w.until).changes;
      // The foreign keys take the edges of a deleted node with it: counted by what is left.
      const edges = before - (edgesBefore.get(scope.layer, scope.user_id) as number);
      if (n > 0 || edges > 0) this.audit.log(scope, 'delete_since', 'graph_node', `since:${sinceIso}`, { count: n, edges });
      return { nodes: n, edges };
    });
  }

  touch(ids: readonly string[]): void {
    this.ctx.bumpAccess('graph_nodes', NODE_PREFIX, ids);
  }

  private insert(
    scope: Scope,
    id: number | null,
    content: string,
    nodeType: string,
    tags: string[],
    confidence: number,
    created: string,
    action = 'create',
  ): GraphNode {
    const info = this.ctx
      .stmt(
        `INSERT INTO graph_nodes (id, layer, user_id, content, norm_content, node_type, tags, confidence, created)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, scope.layer, scope.user_id, content, normalizeContent(content), nodeType, JSON.stringify(tags), clamp(confidence, 0, 1), created);
    const n = Number(info.lastInsertRowid);
    const st = this.ctx.stmt('INSERT OR IGNORE INTO graph_node_tags (node_id, layer, user_id, tag) VALUES (?, ?, ?, ?)');
    for (const t of tags) st.run(n, scope.layer, scope.user_id, t);
    const nodeId = makeId(NODE_PREFIX, n);
    this.audit.log(scope, action, 'graph_node', nodeId, { node_type: nodeType });
    return this.getNode(scope, nodeId) as GraphNode;
  }
}
