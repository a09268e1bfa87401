import { checkActionTier, defineTool, z } from '@memory-service/kernel';
import {
  MEMORY_QUERY_MAX_LIMIT,
  MEMORY_QUERY_TARGETS,
  STANDING_MAX,
  STANDING_NAME_ACCEPTED,
  STANDING_SPEC_JSON_MAX,
  STANDING_SPEC_KEYS,
  standingSpecJson,
  validationError,
  type StandingQuery,
  type Stores,
} from '@memory-service/stores';
import { episodeOut, episodeSchema, layerInput, offsetInput, scopeOf, userIdInput } from '../common.js';
import { factOut, factSchema } from '../fact-common.js';

export const STANDING_ACTIONS = ['save', 'list', 'run', 'delete'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const STANDING_FIELDS = { save: ['name', 'spec_json'], list: [], run: ['name', 'limit', 'offset'], delete: ['name'] } as const satisfies Record<(typeof STANDING_ACTIONS)[number], readonly string[]>;
type StandingAction = (typeof STANDING_ACTIONS)[number];
/** The tier each action belongs to: list and run read (insight), save and delete write (write). */
export const STANDING_ACTION_TIER: Readonly<Record<StandingAction, 'insight' | 'write'>> = { save: 'write', list: 'insight', run: 'insight', delete: 'write' };

export const querySchema = z.object({
  name: z.string(),
  spec_json: z
    .record(z.string(), z.unknown())
    .describe('The spec\'s record field: the whitelisted filters plus description, as save takes it back as spec_json'),
  description: z.string(),
  filters: z.record(z.string(), z.unknown()).describe('The saved filters: target and memory_query filters (spec_json without description)'),
  created: z.string(),
  updated: z.string(),
});

/** A standing query record as save and delete answer it: the spec's name and spec_json, plus description, filters and times. */
export function queryOut(q: StandingQuery): z.infer<typeof querySchema> {
  return { name: q.name, spec_json: standingSpecJson(q), description: q.description, filters: { ...q.filters }, created: q.created, updated: q.updated };
}

function need<T>(value: T | undefined, field: string, action: string, accepted: string): T {
  if (value === undefined) throw validationError(field, `action ${action} needs ${field}`, accepted);
  return value;
}

export function memoryStandingTool(stores: Stores) {
  return defineTool({
    name: 'memory_standing',
    title: 'Standing queries',
    tiers: ['insight', 'write'],
    description:
      'Keep named memory_query filters of the layer and user_id and run them again later. action save (write tier): name and spec_json, a JSON ' +
      `object (or its text) whose keys are among ${STANDING_SPEC_KEYS.join(', ')}: target core (L4 facts, default) or episodes (L3), the ` +
      'memory_query filters, a limit and a description; saving a name again replaces it; save and delete answer the query record (name, ' +
      'spec_json: the filters plus description, as save takes them back; also description, filters, created, updated). action list (insight tier): the names and ' +
      'descriptions only. action run (insight tier): name, optional limit and offset; runs the saved filters and returns the facts or ' +
      `episodes matching, newest created first, with total and the query's spec_json; the limit (the run's, else the saved one, else 50) is clamped to 1..${MEMORY_QUERY_MAX_LIMIT} ` +
      `(limit_clamped says so). action delete (write tier): name. A name is ${STANDING_NAME_ACCEPTED}, case-insensitive; at most ${STANDING_MAX} per ` +
      'layer and user_id (a query an older version saved under a name with _ or - is renamed at start to the name without them). Errors: a hostile name (a path, too long, other characters, _ or -) or an unknown spec_json key is a ValueError raised ' +
      'before any file or database access; a bad filter value names spec_json.<filter>; an unknown name names name; an action of a tier ' +
      'this surface does not expose is a TierError naming action.',
    input: () => z.object({
      action: z.enum(STANDING_ACTIONS).describe('save, list, run or delete'),
      name: z.string().max(10_000).optional().describe(`Standing query name: ${STANDING_NAME_ACCEPTED}`),
      spec_json: z
        .union([z.string().max(STANDING_SPEC_JSON_MAX), z.record(z.string(), z.unknown())])
        .optional()
        .describe(`save: the filters, a JSON object or its text; keys among ${STANDING_SPEC_KEYS.join(', ')}`),
      limit: z.number().int().optional().describe(`run: records returned, clamped to 1..${MEMORY_QUERY_MAX_LIMIT}; default the saved limit, else 50`),
      offset: offsetInput.describe('run: records to skip (next_offset of the previous run)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(STANDING_ACTIONS),
      queries: z.array(z.object({ name: z.string(), description: z.string() })).optional().describe('list: names and descriptions only'),
      query: querySchema.optional().describe('save and delete: the query saved or deleted (name, spec_json, description, filters, created, updated)'),
      replaced: z.boolean().optional().describe('save: true when a query of that name was replaced'),
      name: z.string().optional(),
      spec_json: z.record(z.string(), z.unknown()).optional().describe('run: the query run, its filters plus description'),
      target: z.enum(MEMORY_QUERY_TARGETS).optional(),
      limit: z.number().optional().describe('run: the limit applied'),
      limit_clamped: z.boolean().optional().describe('run: true when the limit asked for was clamped'),
      facts: z.array(factSchema).optional(),
      episodes: z.array(episodeSchema).optional(),
      count: z.number().optional(),
      total: z.number().optional().describe('run: every record matching, beyond this page too'),
      next_offset: z.number().nullable().optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: STANDING_FIELDS,
    handler: (args, call) => {
      const { action } = args;
      checkActionTier('memory_standing', action, STANDING_ACTION_TIER, call);
      const scope = scopeOf(args);
      const accepted = STANDING_NAME_ACCEPTED;
      switch (action) {
        case 'save': {
          const r = stores.standing.save(scope, need(args.name, 'name', action, accepted), need(args.spec_json, 'spec_json', action, 'a JSON object of filters'));
          return { action, query: queryOut(r.query), replaced: r.replaced };
        }
        case 'list':
          return { action, queries: stores.standing.list(scope).map((q) => ({ name: q.name, description: q.description })) };
        case 'run': {
          const r = stores.standing.run(scope, need(args.name, 'name', action, accepted), { limit: args.limit, offset: args.offset });
          const n = r.facts.length + r.episodes.length;
          return {
            action,
            name: r.name,
            spec_json: r.spec_json,
            target: r.target,
            limit: r.limit,
            limit_clamped: r.limit_clamped,
            facts: r.facts.map(factOut),
            episodes: r.episodes.map(episodeOut),
            count: n,
            total: r.total,
            next_offset: n > 0 && args.offset + n < r.total ? args.offset + n : null,
          };
        }
        case 'delete':
          return { action, query: queryOut(stores.standing.delete(scope, need(args.name, 'name', action, accepted))) };
      }
    },
  });
}
