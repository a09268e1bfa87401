import type { StoreContext } from './context.js';
import { checkFactImportance, checkNewFactKey, clampImportance, type Fact, type FactStore } from './facts.js';
import { derivedNodeIds, type GraphNode, type GraphStore } from './graph.js';
import { recentWindow } from './iso-time.js';
import { scrubSecrets, type SecretKind } from './secrets.js';
import type { Scope } from './types.js';
import { checkScope, checkText } from './util.js';
import type { WriteGate } from './write-gate.js';
import { cutChars } from '@memory-service/kernel';

/**
 * How long memory_remember treats the same key and value as already remembered: a repeat within
 * it (a retried call, an agent saying it twice in a session) writes nothing.
 */
export const REMEMBER_DEDUP_TTL_MS = 30 * 60 * 1000;
/** Importance of a remembered fact when the caller gives none: an explicit "remember this" is meant to be kept. */
export const REMEMBER_DEFAULT_IMPORTANCE = 0.7;
export const REMEMBER_KEY_MAX = 200;

/** What the importance gate is asked: the importance asked for and the fact; it answers the importance to store. */
export type ImportanceGate = (importance: number, fact: Scope & { key: string; value: string }) => number;

export interface RememberResult {
  fact: Fact;
  deduplicated: boolean;
  /** True when the key held another value, now replaced. */
  updated: boolean;
  requested_importance: number;
  /** Secrets replaced in the value, per kind (counts only). */
  redacted: Partial<Record<SecretKind, number>>;
  redacted_total: number;
  node_id: string | null;
  /**
   * The nodes this call deleted: those memory_remember made for the key's earlier value (type
   * `fact`, tag `remember`, content `<key>: ...`), which would go on claiming it.
   */
  removed_nodes: string[];
  /** Tags the write-gate rules gave (on the graph node). */
  gate_tags: string[];
}

/** Whether memory_remember made this node for the key (rather than think, memory_hook or the user). */
function madeByRemember(node: GraphNode, key: string): boolean {
  return node.node_type === 'fact' && node.tags.includes('remember') && node.content.startsWith(`${key}: `);
}

/**
 * memory_remember: an explicit L4 fact (source user_explicit) plus a graph node. The value is
 * scrubbed of secrets first; the same key and value again within REMEMBER_DEDUP_TTL_MS before now
 * (a fact last written after now is not within it) writes nothing; the importance goes through the gate (the kernel's importance_gate hook) and is
 * clamped to 0.05..1.0. A new value replaces the node memory_remember made for the old one.
 */
export class Rememberer {
  constructor(
    private readonly ctx: StoreContext,
    private readonly facts: FactStore,
    private readonly graph: GraphStore,
    private readonly writeGate: WriteGate,
  ) {}

  remember(scope: Scope, input: { key: string; value: string; importance?: number }, gate: ImportanceGate = (i) => i): RememberResult {
    checkScope(scope);
    const given = checkText(input.key, 'key', REMEMBER_KEY_MAX).trim();
    const raw = checkText(input.value, 'value', this.ctx.config.maxTextChars).trim();
    // Asked for: 0.05..1.0 or refused; the gate's answer below is clamped to it.
    const requested = input.importance === undefined ? REMEMBER_DEFAULT_IMPORTANCE : checkFactImportance(input.importance);
    const scrub = scrubSecrets(raw);
    const value = scrub.text;
    return this.ctx.tx(() => {
      // The key as the fact store holds it (NFC, or an earlier form): the node names the fact by it too.
      const key = this.facts.storedKey(scope, given);
      const before = this.facts.get(scope, key);
      // Refused before the gate runs (its taps write: watch rules), as upsert would refuse it.
      if (!before) checkNewFactKey('key', key);
      // The TTL ends at now: a fact last written after now (the clock stepped back, or an imported
      // future date) is not "remembered within the last 30 minutes", so the repeat writes it again.
      const ttl = recentWindow(this.ctx.clock.now(), REMEMBER_DEDUP_TTL_MS);
      const base = { requested_importance: requested, redacted: scrub.redacted, redacted_total: scrub.total };
      if (before && before.value === value && before.metadata.origin === 'memory_remember' && before.updated >= ttl.since && before.updated <= ttl.until) {
        const nodes = derivedNodeIds(before.metadata);
        return { ...base, fact: before, deduplicated: true, updated: false, node_id: nodes[0] ?? null, removed_nodes: [], gate_tags: [] };
      }
      const gated = gate(requested, { ...scope, key, value });
      const importance = clampImportance(typeof gated === 'number' && Number.isFinite(gated) ? gated : requested);
      const gateTags = this.writeGate.evaluate(value).tags;
      const node = this.graph.addNode(scope, {
        content: cutChars(`${key}: ${value}`, 500),
        node_type: 'fact',
        tags: ['remember', ...gateTags],
        confidence: importance,
        dedupe: true,
      });
      // The nodes the fact named before: the one memory_remember made for the earlier value goes
      // with that value (it would still claim it, and dream would find it); another's (the relation
      // node of the thought that wrote the fact, memory_hook's node) stays named, so forget exact
      // still removes every node made from any value of the fact.
      const kept: string[] = [];
      const removed: string[] = [];
      for (const id of before ? derivedNodeIds(before.metadata) : []) {
        if (id === node.node_id || kept.includes(id) || removed.includes(id)) continue;
        const old = this.graph.getNode(scope, id);
        if (!old) continue;
        if (madeByRemember(old, key)) {
          this.graph.deleteNode(scope, id);
          removed.push(id);
        } else {
          kept.push(id);
        }
      }
      const fact = this.facts.upsert(scope, {
        key,
        value,
        importance,
        source: 'user_explicit',
        metadata: {
          origin: 'memory_remember',
          derived_nodes: [node.node_id, ...kept],
          ...(scrub.total > 0 ? { redacted: scrub.redacted } : {}),
          ...(gateTags.length > 0 ? { gate_tags: gateTags } : {}),
        },
      });
      return { ...base, fact, deduplicated: false, updated: before !== null && before.value !== value, node_id: node.node_id, removed_nodes: removed, gate_tags: gateTags };
    });
  }
}
