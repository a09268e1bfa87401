import { layerSchema, userIdSchema, z } from '@memory-service/kernel';
import type { Scope } from '@memory-service/stores';

/** The `layer` input of every admin tool. */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself); the layers never see each other');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

/** The scope of a tool's result: the layer and user_id it acted on. */
export const scopeOutput = {
  layer: z.enum(['user', 'agent']),
  user_id: z.string(),
};
