import { layerSchema, userIdSchema, z } from '@memory-service/kernel';
import type { Scope } from '@memory-service/stores';

/** The `layer` input of every context tool. */
export const layerInput = layerSchema.default('user').describe('Memory layer: user (facts about the user) or agent (the agent itself); the layers never see each other');
export const userIdInput = userIdSchema.describe('Namespace within the layer; default "default"');

export function scopeOf(args: { layer: 'user' | 'agent'; user_id: string }): Scope {
  return { layer: args.layer, user_id: args.user_id };
}

/** Token budgets of the context tools: default 2000 (the stores' retrieval.token_budget default), 100 to 32,000. */
export const BUDGET_MIN = 100;
export const BUDGET_MAX = 32_000;
export const budgetInput = (fallback: number) =>
  z
    .number()
    .int()
    .min(BUDGET_MIN)
    .max(BUDGET_MAX)
    .default(fallback)
    .describe(`Token budget (estimated as characters / 4), ${BUDGET_MIN} to ${BUDGET_MAX}; default ${fallback}`);
