import { cutChars, overChars, z } from '@memory-service/kernel';
import type { Hit } from '@memory-service/stores';

/** The longest text of a hit shown, in characters. */
export const HIT_TEXT_MAX = 500;

export const hitSchema = z.object({
  source: z.string().describe('l3 (episode), l4 (core fact), wiki (page) or graph (node)'),
  id: z.string().describe('ep_<n>, fact_<n>, wiki_<n> or node_<n>'),
  score: z.number().describe('The fused score, 0 to 1: bm25 + importance + recency + access of explain'),
  title: z.string().optional().describe('A fact key, a page title or a node type'),
  text: z.string().describe(`The text, cut to ${HIT_TEXT_MAX} characters`),
  created: z.string(),
  explain: z
    .object({
      bm25: z.number(),
      importance: z.number(),
      recency: z.number(),
      access: z.number(),
      fused: z.number(),
      signals: z.object({ bm25_raw: z.number(), bm25: z.number(), importance: z.number(), recency: z.number(), access: z.number() }),
    })
    .describe('The score explained: the weighted parts summing to fused, and the unweighted signals (each 0 to 1 but bm25_raw)'),
});

export function hitOut(h: Hit): z.infer<typeof hitSchema> {
  return {
    source: h.source,
    id: h.id,
    score: h.score,
    ...(h.title ? { title: h.title } : {}),
    // Cut in characters, never through a surrogate pair: a lone half is not valid UTF-8 for a client.
    text: overChars(h.text, HIT_TEXT_MAX) ? `${cutChars(h.text, HIT_TEXT_MAX - 3)}...` : h.text,
    created: h.created,
    explain: h.explain,
  };
}
