import { layerSchema, userIdSchema, z } from '@memory-service/kernel';
import { LIMITS } from './bookmark-store.js';

/** The scope inputs every bookmark tool takes. */
export const scopeInput = {
  layer: layerSchema
    .default('user')
    .describe('Whose bookmarks: "user" for the human\'s, "agent" for the agent\'s own. Default "user".'),
  user_id: userIdSchema.describe('The user namespace the bookmarks belong to. Default "default".'),
};

export const limitInput = z
  .number({ error: 'must be a whole number between 1 and 200' })
  .int({ error: 'must be a whole number between 1 and 200' })
  .min(1, { error: 'must be at least 1' })
  .max(LIMITS.list, { error: `must be at most ${LIMITS.list}` })
  .default(LIMITS.defaultList);

/** One bookmark as every tool returns it. */
export const bookmarkOutput = z.object({
  id: z.string().describe('Stable id, bm_<n>'),
  layer: z.enum(['user', 'agent']),
  user_id: z.string(),
  url: z.string().describe('The URL in canonical form'),
  title: z.string(),
  note: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string().describe('ISO 8601 time the bookmark was first saved'),
  updated_at: z.string().describe('ISO 8601 time the bookmark was last changed'),
});
