import { defineTool, invalid, isBlank, z } from '@memory-service/kernel';
import { FACT_KEY_MAX, notFound, SCRATCHPAD_PROMOTE_TARGETS, type ScratchpadEntry, type Stores } from '@memory-service/stores';
import { checkTags, episodeOut, episodeSchema, layerInput, scopeOf, tagsInput, userIdInput } from '../common.js';

const ACTIONS = ['write', 'read', 'clear', 'promote'] as const;

const entrySchema = z.object({ key: z.string(), content: z.string(), created: z.string(), updated: z.string() });
const factSchema = z.object({ entry_id: z.string(), key: z.string(), value: z.string(), importance: z.number(), source: z.string(), created_new: z.boolean() });

const entryOut = (e: ScratchpadEntry) => ({ key: e.key, content: e.content, created: e.created, updated: e.updated });

/** The fields each action takes beyond action, layer and user_id; the kernel refuses any other given, naming it. */
const FIELDS = {
  write: ['key', 'content'],
  read: ['key'],
  clear: ['key'],
  promote: ['key', 'target', 'fact_key', 'importance', 'tags'],
} as const satisfies Record<(typeof ACTIONS)[number], readonly string[]>;

export function memoryScratchpadTool(stores: Stores) {
  return defineTool({
    name: 'memory_scratchpad',
    title: 'Scratchpad (working notes)',
    description:
      'The L2.5 scratchpad: keyed working notes of the layer and user_id, between a session and long-term memory. action write (key, ' +
      'content) adds a note or replaces the note with that key; the pad holds at most 20 notes, and writing a new key when 20 are there ' +
      'evicts the least recently written one (returned as evicted). action read returns every note (least recently written first) or, ' +
      'with key, that one. action clear removes every note or, with key, that one (removed: how many; a key not there removes 0). ' +
      'action promote (key, target episode or fact) moves the note into an L3 episode (tagged scratchpad plus tags; importance default ' +
      '0.5) or an L4 fact (key fact_key, default the note key; secrets in it are replaced by [REDACTED:<kind>] markers as ' +
      'memory_remember does, counted in redacted and redacted_total) and drops it from the pad, all at once. Errors name the field: key ' +
      'missing for write or promote, or not on the pad for read one or promote; content missing for write; target missing for promote; ' +
      'fact_key already holding another value; a field the action does not take.',
    input: () => z.object({
      action: z.enum(ACTIONS).describe('write, read, clear or promote'),
      key: z.string().min(1).max(200).optional().describe('Note key, one line (write, promote; optional for read and clear: one note instead of all)'),
      content: z.string().max(100_000).optional().describe('write: the note text'),
      target: z.enum(SCRATCHPAD_PROMOTE_TARGETS).optional().describe('promote: episode (L3) or fact (L4)'),
      fact_key: z.string().min(1).max(FACT_KEY_MAX).optional().describe('promote to fact: the fact key (default the note key)'),
      importance: z.number().min(0).max(1).optional().describe('promote: importance of the episode (0..1) or fact (0.05..1.0, a fact\'s importance: below is refused naming importance) (default 0.5)'),
      tags: tagsInput.describe('promote to episode: extra episode tags (plain or dimension:value)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      action: z.enum(ACTIONS),
      entry: entrySchema.optional().describe('write: the note written; read with key: the note; promote: the note moved'),
      entries: z.array(entrySchema).optional().describe('read without key: every note, least recently written first'),
      evicted: entrySchema.nullable().optional().describe('write: the note evicted to make room, or null'),
      removed: z.number().optional().describe('clear: notes removed'),
      target: z.enum(SCRATCHPAD_PROMOTE_TARGETS).optional(),
      episode: episodeSchema.optional().describe('promote to episode: the episode written'),
      fact: factSchema.optional().describe('promote to fact: the fact (created_new false when it already held this text)'),
      redacted: z.record(z.string(), z.number()).optional().describe('promote to fact: secrets stripped from the value, per kind'),
      redacted_total: z.number().optional().describe('promote to fact: secrets stripped in all'),
      count: z.number().describe('Notes on the pad after the call'),
      capacity: z.number().describe('Most notes the pad holds (20 by default)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    handler: (args) => {
      const scope = scopeOf(args);
      const key = args.key?.trim();
      if (key !== undefined && isBlank(key)) throw invalid('key', 'must not be empty or only white space', 'a key of 1 to 200 characters');
      const tail = () => ({ count: stores.scratchpad.count(scope), capacity: stores.config.scratchpadMax });
      switch (args.action) {
        case 'write': {
          if (key === undefined) throw invalid('key', 'is required for action write', 'a key of 1 to 200 characters');
          if (args.content === undefined || isBlank(args.content)) throw invalid('content', 'is required for action write and must hold text', 'the note text');
          const e = stores.scratchpad.write(scope, key, args.content);
          return { action: args.action, entry: entryOut(e), evicted: e.evicted_entries[0] ? entryOut(e.evicted_entries[0]) : null, ...tail() };
        }
        case 'read': {
          if (key === undefined) return { action: args.action, entries: stores.scratchpad.read(scope).map(entryOut), ...tail() };
          const e = stores.scratchpad.get(scope, key);
          if (!e) throw notFound(`scratchpad note of layer ${args.layer}, user_id ${JSON.stringify(args.user_id)}`, key, 'key');
          return { action: args.action, entry: entryOut(e), ...tail() };
        }
        case 'clear':
          return { action: args.action, removed: stores.scratchpad.clear(scope, key), ...tail() };
        case 'promote': {
          if (key === undefined) throw invalid('key', 'is required for action promote', 'the key of a note on the pad');
          if (args.target === undefined) throw invalid('target', 'is required for action promote', SCRATCHPAD_PROMOTE_TARGETS);
          if (args.target === 'episode' && args.fact_key !== undefined) throw invalid('fact_key', 'applies only to target fact', ['target fact']);
          if (args.target === 'fact' && args.tags !== undefined) throw invalid('tags', 'apply only to target episode (a fact has no tags)', ['target episode']);
          const p = stores.scratchpad.promote(scope, key, args.target, { importance: args.importance, tags: checkTags(args.tags), fact_key: args.fact_key });
          if (p.target === 'episode') return { action: args.action, target: p.target, entry: entryOut(p.entry), episode: episodeOut(p.episode), ...tail() };
          const f = p.fact;
          return {
            action: args.action,
            target: p.target,
            entry: entryOut(p.entry),
            fact: { entry_id: f.entry_id, key: f.key, value: f.value, importance: f.importance, source: f.source, created_new: f.created_new },
            redacted: p.redacted,
            redacted_total: p.redacted_total,
            ...tail(),
          };
        }
      }
    },
  });
}
