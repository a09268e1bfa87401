import { z } from '@memory-service/kernel';
import type { Fact } from '@memory-service/stores';

export const factSchema = z.object({
  entry_id: z.string().describe('Fact entry id (fact_<n>), stable across updates of the key'),
  key: z.string(),
  value: z.string(),
  importance: z.number(),
  source: z.string().describe('Provenance: user_explicit, staging_promotion, episode_promotion, legacy or manual'),
  metadata: z.record(z.string(), z.unknown()).describe('metadata.typed names the schema type of a typed fact'),
  created: z.string(),
  updated: z.string(),
});

/** The shown fields of a fact (its layer and user_id are the caller's own; access counts are not shown). */
export function factOut(f: Fact): z.infer<typeof factSchema> {
  return { entry_id: f.entry_id, key: f.key, value: f.value, importance: f.importance, source: f.source, metadata: f.metadata, created: f.created, updated: f.updated };
}
