import { defineTool, TEXT_LIMIT_DEFAULT, TEXT_LIMIT_KEY, z, type Hooks } from '@memory-service/kernel';
import { REMEMBER_DEDUP_TTL_MS, REMEMBER_DEFAULT_IMPORTANCE, REMEMBER_KEY_MAX, SECRET_KINDS, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const TTL_MINUTES = REMEMBER_DEDUP_TTL_MS / 60_000;

export function memoryRememberTool(stores: Stores, hooks: Readonly<Hooks>) {
  return defineTool({
    name: 'memory_remember',
    title: 'Remember a fact',
    description:
      'Store an explicit core-memory (L4) fact under a key you choose, in the layer and user_id, plus a graph node (type fact) for it. ' +
      `Secrets in the value (API keys, tokens, passwords, private keys, bearer headers, AWS keys, JWTs, ...) are replaced by [REDACTED:<kind>] ` +
      `markers before anything is stored; the answer reports how many of each kind were stripped (never the secrets). The same key and value ` +
      `again within ${TTL_MINUTES} minutes writes nothing and answers deduplicated: true. The importance (0.05 to 1.0, default ${REMEMBER_DEFAULT_IMPORTANCE}; outside is refused) ` +
      'goes through the importance gate (write-gate rules of rules.yaml add their boost) and is stored within 0.05 to 1.0. A key that holds ' +
      'another value is updated (updated: true; the entry_id stays). Returns entry_id, key, value as stored, importance, requested_importance, ' +
      'deduplicated, updated, redacted counts, node_id and the write-gate tags. A blank key or value is an error naming that field.',
    input: () => z.object({
      key: z.string().min(1).max(REMEMBER_KEY_MAX).describe('The fact key (unique in the layer and user_id), e.g. "favourite_editor"'),
      // The bound follows think.max_text_chars, which the config may move: the description states it, the store enforces it.
      value: z.string().min(1).describe(`The fact, at most ${TEXT_LIMIT_KEY} characters (default ${TEXT_LIMIT_DEFAULT}); secrets in it are redacted before it is stored`),
      importance: z.number().min(0.05).max(1).optional().describe(`0.05 to 1.0, a fact's importance (default ${REMEMBER_DEFAULT_IMPORTANCE}); the importance gate may raise it`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      entry_id: z.string(),
      key: z.string(),
      value: z.string().describe('The value as stored (secrets redacted)'),
      importance: z.number().describe('The stored importance, after the gate, within 0.05..1.0'),
      requested_importance: z.number(),
      source: z.string(),
      deduplicated: z.boolean().describe(`True when the same key and value were remembered within ${TTL_MINUTES} minutes: nothing was written`),
      updated: z.boolean().describe('True when the key held another value, now replaced'),
      redacted: z.record(z.string(), z.number()).describe(`Secrets stripped from the value, per kind (${SECRET_KINDS.join(', ')})`),
      redacted_total: z.number(),
      node_id: z.string().nullable(),
      gate_tags: z.array(z.string()).describe('Tags of the matching write-gate rules (on the graph node)'),
      dedup_ttl_minutes: z.number(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const scope = scopeOf(args);
      const r = stores.rememberer.remember(scope, { key: args.key, value: args.value, ...(args.importance !== undefined ? { importance: args.importance } : {}) }, (importance, fact) =>
        hooks.importance_gate.call(importance, fact),
      );
      return {
        entry_id: r.fact.entry_id,
        key: r.fact.key,
        value: r.fact.value,
        importance: r.fact.importance,
        requested_importance: r.requested_importance,
        source: r.fact.source,
        deduplicated: r.deduplicated,
        updated: r.updated,
        redacted: r.redacted,
        redacted_total: r.redacted_total,
        node_id: r.node_id,
        gate_tags: r.gate_tags,
        dedup_ttl_minutes: TTL_MINUTES,
      };
    },
  });
}
