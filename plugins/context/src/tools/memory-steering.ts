import { defineTool, z } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';
import { steer, STEERING_MAX_HINTS, STEERING_ROUTES } from '../services/steering.js';

const routeSchema = z.object({ route: z.string(), tool: z.string(), hint: z.string(), keywords: z.array(z.string()) });

export function memorySteeringTool() {
  return defineTool({
    name: 'memory_steering',
    title: 'Which memory tool fits this request',
    description:
      `Advisory routing: match a request's keywords against a fixed table of ${STEERING_ROUTES.length} routes ` +
      `(${STEERING_ROUTES.map((r) => `${r.route} -> ${r.tool}`).join(', ')}) and answer at most ${STEERING_MAX_HINTS} hints, ` +
      'best first (score = keywords found, a phrase counting 2; ties in table order). An empty query answers the whole table ' +
      'in `routes` instead. Deterministic, no model, reads no memory; the decision stays with the caller.',
    input: () => z.object({
      query: z.string().max(4000).default('').describe('The request or intent in plain words; empty for the full route table'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      query: z.string(),
      hints: z.array(z.object({ route: z.string(), tool: z.string(), hint: z.string(), score: z.number(), matched_keywords: z.array(z.string()) })),
      routes: z.array(routeSchema).optional().describe('The full table, answered for an empty query only'),
      advisory: z.literal(true),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const query = args.query.trim();
      if (query === '') {
        return { query, hints: [], routes: STEERING_ROUTES.map((r) => ({ ...r, keywords: [...r.keywords] })), advisory: true as const };
      }
      return { query, hints: steer(query), advisory: true as const };
    },
  });
}
