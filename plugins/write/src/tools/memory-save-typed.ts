import { defineTool, z } from '@memory-service/kernel';
import { BUILTIN_TYPED_SCHEMAS, SECRET_KINDS, TYPED_FIELD_TYPES, type Stores } from '@memory-service/stores';
import { layerInput, scopeOf, userIdInput } from '../common.js';

const builtins = Object.values(BUILTIN_TYPED_SCHEMAS)
  .map((s) => `${s.type} {${Object.entries(s.fields).map(([n, f]) => `${n}${f.required ? '' : '?'}${f.type === 'string_list' ? ': list' : ''}`).join(', ')}}`)
  .join('; ');

export function memorySaveTypedTool(stores: Stores) {
  return defineTool({
    name: 'memory_save_typed',
    title: 'Save a typed fact',
    description:
      'Validate structured fields against a schema and store them as the core-memory (L4) fact <type>:<name> of the layer and user_id ' +
      `(metadata.typed = type, metadata.fields = the fields; value = one "field: value" line per field). Built-in types: ${builtins}. ` +
      `Custom schemas are read from <data_dir>/schemas/<type>.yaml ({ description?, fields: { <field>: { type: ${TYPED_FIELD_TYPES.join('|')}, ` +
      'required? } } }, with a required string name) and merged over the built-ins (a file named like a built-in replaces it); a malformed file ' +
      'is skipped and reported in warnings. Saving the same type and name again updates the fact. An unknown type is an error naming type and ' +
      'listing the accepted ones; a missing, unknown or mistyped field is an error naming fields.<field>. Secrets in the string fields ' +
      '(API keys, tokens, passwords, private keys; each seen after its "field: " label, so a field named password or api_key counts) ' +
      'are replaced by [REDACTED:<kind>] markers before anything is stored, as memory_remember strips them. Returns entry_id, key, ' +
      'type, value, fields (as stored), importance, created_new, schema_source, warnings, and redacted (counts per kind), ' +
      'redacted_total and redacted_fields.',
    input: () => z.object({
      type: z.string().min(1).max(64).describe('Schema name: decision, error_pattern, relationship or a custom schema'),
      fields: z.record(z.string(), z.unknown()).describe('The field values, e.g. { "name": "db", "decision": "Use SQLite" }'),
      importance: z.number().min(0.05).max(1).optional().describe('0.05 to 1.0, a fact\'s importance (default 0.5)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      entry_id: z.string(),
      key: z.string(),
      type: z.string(),
      value: z.string(),
      fields: z.record(z.string(), z.unknown()),
      importance: z.number(),
      created_new: z.boolean(),
      schema_source: z.enum(['builtin', 'custom']),
      warnings: z.array(z.object({ file: z.string(), message: z.string() })).describe('Schema files skipped as malformed'),
      redacted: z.record(z.string(), z.number()).describe(`Secrets stripped from the fields, per kind (${SECRET_KINDS.join(', ')})`),
      redacted_total: z.number(),
      redacted_fields: z.array(z.string()).describe('The fields that held secrets, now stored with markers'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: (args) => {
      const r = stores.typedSchemas.save(scopeOf(args), {
        type: args.type.trim(),
        fields: args.fields,
        ...(args.importance !== undefined ? { importance: args.importance } : {}),
      });
      return {
        entry_id: r.fact.entry_id,
        key: r.fact.key,
        type: r.schema.type,
        value: r.fact.value,
        fields: r.fact.metadata.fields as Record<string, unknown>,
        importance: r.fact.importance,
        created_new: r.fact.created_new,
        schema_source: r.schema.source,
        warnings: r.warnings,
        redacted: r.redacted,
        redacted_total: r.redacted_total,
        redacted_fields: r.redacted_fields,
      };
    },
  });
}
