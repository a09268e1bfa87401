import { defineTool, z } from '@memory-service/kernel';
import { API_KEY_ID_MAX, API_KEY_NAME_MAX, validationError, type Stores } from '@memory-service/stores';
import { layerInput, userIdInput } from '../common.js';

const API_KEY_ACTIONS = ['list', 'create', 'revoke'] as const;

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const API_KEY_FIELDS = { list: [], create: ['name'], revoke: ['key_id'] } as const satisfies Record<(typeof API_KEY_ACTIONS)[number], readonly string[]>;

const keySchema = z.object({
  id: z.string().describe('key_<n>'),
  name: z.string(),
  created: z.string(),
  last_used: z.string().nullable().describe('Last HTTP request made with the key (stamped at most once a minute); null when never used'),
  revoked: z.string().nullable().describe('When it was revoked; null while active'),
});

export function memoryApiKeyTool(stores: Stores) {
  return defineTool({
    name: 'memory_api_key',
    title: 'Manage HTTP API keys',
    description:
      'API keys of the HTTP transport, service-wide (keys are not per layer or user_id; layer and user_id are accepted and do not ' +
      'narrow them). Once any key has been created, every HTTP request except GET /health and /alive must carry ' +
      '"Authorization: Bearer <API_KEY>" (401 without one, 403 for an unknown or revoked key); revoking every key keeps that rule. ' +
      'action list: every key (id, name, created, last_used, revoked), never a secret. action create (name, 1 to 100 characters): ' +
      'returns the new key in `key`, shown this once only (only a salted hash is stored), with its id. action revoke (key_id, e.g. ' +
      'key_1): the key stops working at once; revoking it again changes nothing (already_revoked true). A missing name or key_id is ' +
      'an error naming it; an unknown key_id is a NotFoundError.',
    input: () => z.object({
      action: z.enum(API_KEY_ACTIONS).describe('list, create or revoke'),
      name: z.string().max(API_KEY_NAME_MAX).optional().describe('create: a label for the key (who or what uses it)'),
      key_id: z.string().max(API_KEY_ID_MAX).optional().describe('revoke: the key id from list or create (key_<n>)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(API_KEY_ACTIONS),
      keys: z.array(keySchema).optional().describe('list: every key, oldest first'),
      created: keySchema.extend({ key: z.string().describe('The key itself: keep it now, it is never shown again') }).optional(),
      revoked: keySchema.extend({ already_revoked: z.boolean() }).optional(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: API_KEY_FIELDS,
    handler: (args) => {
      if (args.action === 'list') return { action: 'list' as const, keys: stores.apiKeys.list() };
      if (args.action === 'create') {
        if (args.name === undefined) throw validationError('name', `name is required for action create: a label of 1 to ${API_KEY_NAME_MAX} characters`);
        return { action: 'create' as const, created: stores.apiKeys.create(args.name) };
      }
      if (args.key_id === undefined) throw validationError('key_id', 'key_id is required for action revoke: a key id from list (key_<n>)', 'key_<number>');
      return { action: 'revoke' as const, revoked: stores.apiKeys.revoke(args.key_id) };
    },
  });
}
