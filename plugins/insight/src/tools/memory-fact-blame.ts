import { defineTool, z } from '@memory-service/kernel';
import { FACT_KEY_MAX, FACT_PREFIX, notFound, validationError, type Stores } from '@memory-service/stores';
import { checkId, layerInput, READ_ONLY, scopeOf, userIdInput } from '../common.js';
import { factOut, factSchema } from '../fact-common.js';

/** The most rows of each trail one call returns (oldest first). */
const TRAIL_MAX = 200;

export function memoryFactBlameTool(stores: Stores) {
  return defineTool({
    name: 'memory_fact_blame',
    title: 'Blame a core fact',
    description:
      'Show where a core-memory (L4) fact of the layer and user_id came from and how it changed. Look it up by entry_id (fact_<n>, as ' +
      'think, evolve and memory_query report it) or by key, exactly one of them. Returns the entry (entry_id, key, value, importance, ' +
      'source, metadata, created, updated), its importance history from importance_audit (old, new, reason, ts; oldest first) and its ' +
      `audit_log events (action, ts, detail; oldest first), at most ${TRAIL_MAX} of each. A malformed or unknown entry_id, or an unknown ` +
      'key, is an error naming that field. A read: it records no access.',
    input: () => z.object({
      entry_id: z.string().min(1).max(100).optional().describe('Fact entry id, e.g. fact_12'),
      key: z.string().min(1).max(FACT_KEY_MAX).optional().describe('Fact key, exactly as stored'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      entry: factSchema,
      importance_history: z.array(z.object({ old: z.number(), new: z.number(), reason: z.string(), ts: z.string() })),
      audit_events: z.array(z.object({ action: z.string(), target_type: z.string(), ts: z.string(), detail: z.record(z.string(), z.unknown()) })),
    }),
    annotations: READ_ONLY,
    handler: (args) => {
      const scope = scopeOf(args);
      if ((args.entry_id === undefined) === (args.key === undefined)) {
        const field = args.entry_id === undefined ? 'entry_id' : 'key';
        throw validationError(field, 'give exactly one of entry_id (fact_<n>) or key', 'entry_id or key');
      }
      const where = `core fact of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`;
      let fact;
      if (args.entry_id !== undefined) {
        const id = args.entry_id.trim();
        checkId(id, FACT_PREFIX, 'entry_id');
        // Entry ids are global: the fact must also be of the caller's scope.
        const f = stores.facts.getByEntryId(id);
        fact = f && f.layer === scope.layer && f.user_id === scope.user_id ? f : null;
        if (!fact) throw notFound(where, id, 'entry_id');
      } else {
        fact = stores.facts.get(scope, args.key as string);
        if (!fact) throw notFound(where, JSON.stringify(args.key), 'key');
      }
      const importance_history = stores.audit.history(fact.entry_id, TRAIL_MAX).map((h) => ({ old: h.old, new: h.new, reason: h.reason, ts: h.ts }));
      const audit_events = stores.audit
        .forTargetInScope(scope, fact.entry_id, TRAIL_MAX)
        .map((e) => ({ action: e.action, target_type: e.target_type, ts: e.ts, detail: e.detail }));
      return { entry: factOut(fact), importance_history, audit_events };
    },
  });
}
