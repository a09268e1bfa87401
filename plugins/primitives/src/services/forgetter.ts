import { invalid, isBlank, type Clock } from '@memory-service/kernel';
import type { Episode, Fact, GraphNode, Scope, Stores } from '@memory-service/stores';

export type ForgetScope = 'exact' | 'fuzzy' | 'recent';

export interface ForgetInput extends Scope {
  key: string;
  scope: ForgetScope;
  minutes: number;
  shadow_bin: boolean;
}

export interface ForgetResult {
  scope: ForgetScope;
  deleted_l4: number;
  deleted_l3: number;
  deleted_graph: number;
  archived: number;
  purged_shadow: number;
  /** Episodes whose neighbouring context held the forgotten text and was cleared. */
  scrubbed_context: number;
}

/**
 * Records that carry a forgotten fact's value: exact forget cleans these from L3 and the graph.
 * A value of at least 3 words or 16 characters matches where it is contained; a shorter one only
 * where the whole record says exactly that, so forgetting "yes" never sweeps unrelated memories.
 */
export function carriesValue(recordText: string, value: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  const r = norm(recordText);
  const v = norm(value);
  if (!v) return false;
  const distinctive = v.split(' ').length >= 3 || v.length >= 16;
  return distinctive ? r.includes(v) : r === v;
}

/** The forget primitive: exact (one L4 key and what carries it), fuzzy (a pattern) and recent (a time window). */
export class Forgetter {
  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
  ) {}

  forget(input: ForgetInput): ForgetResult {
    const key = input.key.trim();
    if (isBlank(key) && input.scope !== 'recent') throw invalid('key', 'must not be empty', 'a fact key or a search pattern');
    const scope: Scope = { layer: input.layer, user_id: input.user_id };
    return this.stores.transaction(() => {
      if (input.scope === 'recent') return this.recent(scope, input.minutes);
      if (input.scope === 'fuzzy') return this.fuzzy(scope, key, input.shadow_bin);
      return this.exact(scope, key, input.shadow_bin);
    });
  }

  private archive(scope: Scope, store: 'l4' | 'l3' | 'graph', id: string, content: Fact | Episode | GraphNode, reason: string): void {
    this.stores.shadowBin.archive(scope, { origin_store: store, origin_id: id, content, reason });
  }

  private exact(scope: Scope, key: string, shadow: boolean): ForgetResult {
    const out: ForgetResult = { scope: 'exact', deleted_l4: 0, deleted_l3: 0, deleted_graph: 0, archived: 0, purged_shadow: 0, scrubbed_context: 0 };
    const fact = this.stores.facts.get(scope, key);
    if (!fact) return out;
    // Older archived copies of the fact go; the copy taken now stays restorable when shadow_bin is on.
    out.purged_shadow += this.stores.shadowBin.purgeFor(scope, 'l4', key);
    if (shadow) {
      this.archive(scope, 'l4', key, fact, 'forget exact');
      out.archived++;
    }
    this.stores.facts.delete(scope, key);
    out.deleted_l4 = 1;
    for (const ep of this.stores.episodes.findMatching(scope, fact.value).filter((e) => carriesValue(e.summary, fact.value))) {
      out.purged_shadow += this.stores.shadowBin.purgeFor(scope, 'l3', ep.id);
      if (shadow) {
        this.archive(scope, 'l3', ep.id, ep, `forget exact ${key}`);
        out.archived++;
      }
      this.stores.episodes.delete(scope, ep.id);
      out.deleted_l3++;
    }
    const derived = Array.isArray(fact.metadata.derived_nodes) ? fact.metadata.derived_nodes.filter((id): id is string => typeof id === 'string') : [];
    const nodes = [
      ...derived.map((id) => this.stores.graph.getNode(scope, id)).filter((n): n is GraphNode => n !== null),
      ...this.stores.graph.findMatching(scope, fact.value).filter((n) => carriesValue(n.content, fact.value) && !derived.includes(n.node_id)),
    ];
    for (const node of nodes) {
      out.purged_shadow += this.stores.shadowBin.purgeFor(scope, 'graph', node.node_id);
      if (shadow) {
        this.archive(scope, 'graph', node.node_id, node, `forget exact ${key}`);
        out.archived++;
      }
      this.stores.graph.deleteNode(scope, node.node_id);
      out.deleted_graph++;
    }
    out.scrubbed_context = this.stores.episodes.scrubContext(scope, fact.value);
    return out;
  }

  private fuzzy(scope: Scope, pattern: string, shadow: boolean): ForgetResult {
    const out: ForgetResult = { scope: 'fuzzy', deleted_l4: 0, deleted_l3: 0, deleted_graph: 0, archived: 0, purged_shadow: 0, scrubbed_context: 0 };
    const reason = `forget fuzzy "${pattern}"`;
    for (const f of this.stores.facts.deleteMatching(scope, pattern)) {
      if (shadow) this.archive(scope, 'l4', f.key, f, reason);
      out.deleted_l4++;
    }
    for (const e of this.stores.episodes.deleteMatching(scope, pattern)) {
      if (shadow) this.archive(scope, 'l3', e.id, e, reason);
      out.deleted_l3++;
    }
    for (const n of this.stores.graph.deleteMatching(scope, pattern)) {
      if (shadow) this.archive(scope, 'graph', n.node_id, n, reason);
      out.deleted_graph++;
    }
    if (shadow) out.archived = out.deleted_l4 + out.deleted_l3 + out.deleted_graph;
    out.scrubbed_context = this.stores.episodes.scrubContext(scope, pattern);
    return out;
  }

  /** Mass purge of the last `minutes`; never archives (the spec skips the Shadow Bin here). */
  private recent(scope: Scope, minutes: number): ForgetResult {
    const since = new Date(this.clock.now() - minutes * 60_000).toISOString();
    return {
      scope: 'recent',
      deleted_l4: this.stores.facts.deleteSince(scope, since),
      deleted_l3: this.stores.episodes.deleteSince(scope, since),
      deleted_graph: this.stores.graph.deleteSince(scope, since),
      archived: 0,
      purged_shadow: 0,
      scrubbed_context: 0,
    };
  }
}
