import fs from 'node:fs';
import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { checkFactImportance, checkNewFactKey, type Fact, type FactStore } from './facts.js';
import { safeJoin } from './paths.js';
import { addScrubCounts, scrubLabelled, type SecretKind } from './secrets.js';
import type { Scope } from './types.js';
import { checkScope } from './util.js';
import { yaml } from './yaml.js';

/** The folder of custom schemas, directly in the data dir; only files directly in it are read. */
export const TYPED_SCHEMA_DIR = 'schemas';
export const TYPED_FIELD_TYPES = ['string', 'number', 'boolean', 'string_list'] as const;
export type TypedFieldType = (typeof TYPED_FIELD_TYPES)[number];
/** A schema (type) name, and a field name: lower-case letters, digits and underscores, starting with a letter. */
export const TYPED_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const TYPED_MAX_FIELDS = 50;
export const TYPED_MAX_SCHEMA_FILES = 200;
export const TYPED_MAX_SCHEMA_BYTES = 64 * 1024;
/** The longest string field value, and the most items of a string_list. */
export const TYPED_STRING_MAX = 4000;
export const TYPED_LIST_MAX = 50;

export interface TypedField {
  type: TypedFieldType;
  required: boolean;
  description?: string;
}

export interface TypedSchema {
  type: string;
  description: string;
  fields: Record<string, TypedField>;
  source: 'builtin' | 'custom';
  /** The file of a custom schema, relative to the data dir. */
  file?: string;
}

export interface TypedSchemaWarning {
  file: string;
  message: string;
}

const f = (type: TypedFieldType, required: boolean, description: string): TypedField => ({ type, required, description });

/** The built-in schemas; a custom file of the same name replaces one. Every schema has a required string `name`. */
export const BUILTIN_TYPED_SCHEMAS: Readonly<Record<string, TypedSchema>> = Object.freeze({
  decision: {
    type: 'decision',
    description: 'A decision taken: what was chosen, why, what else was weighed and how it turned out',
    source: 'builtin',
    fields: {
      name: f('string', true, 'Short name of the decision (the key is decision:<name>)'),
      decision: f('string', true, 'What was decided'),
      rationale: f('string', false, 'Why'),
      alternatives: f('string_list', false, 'Options weighed and not taken'),
      outcome: f('string', false, 'How it turned out'),
    },
  },
  error_pattern: {
    type: 'error_pattern',
    description: 'A recurring error: how it shows, what causes it and how to fix it',
    source: 'builtin',
    fields: {
      name: f('string', true, 'Short name of the error (the key is error_pattern:<name>)'),
      symptom: f('string', true, 'What is seen'),
      cause: f('string', false, 'What causes it'),
      fix: f('string', false, 'How to fix or avoid it'),
    },
  },
  relationship: {
    type: 'relationship',
    description: 'A person and how they relate to the user or agent',
    source: 'builtin',
    fields: {
      name: f('string', true, 'Short name of the record (the key is relationship:<name>)'),
      person: f('string', true, 'Who'),
      relation: f('string', true, 'How they relate (colleague, sister, manager, ...)'),
      notes: f('string', false, 'Anything else worth keeping'),
    },
  },
});

/** Check the parsed content of a custom schema file; returns the schema or the reason it is refused. */
export function checkSchemaDoc(type: string, doc: unknown, file: string): TypedSchema | string {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return 'the file must hold a mapping with fields (and optionally description)';
  const d = doc as Record<string, unknown>;
  for (const k of Object.keys(d)) if (!['description', 'fields'].includes(k)) return `unknown top-level field ${JSON.stringify(k)}; accepted: description, fields`;
  if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > 500)) return 'description must be a string of at most 500 characters';
  const fields = d.fields;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return 'fields must be a mapping of field name to { type, required?, description? }';
  const names = Object.keys(fields);
  if (names.length === 0 || names.length > TYPED_MAX_FIELDS) return `fields must hold 1 to ${TYPED_MAX_FIELDS} fields`;
  const out: Record<string, TypedField> = {};
  for (const n of names) {
    if (!TYPED_NAME_PATTERN.test(n)) return `field name ${JSON.stringify(n.slice(0, 80))} must match ${TYPED_NAME_PATTERN.source}`;
    let spec = (fields as Record<string, unknown>)[n];
    if (typeof spec === 'string') spec = { type: spec };
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return `field ${n} must be a type name or a mapping { type, required?, description? }`;
    const s = spec as Record<string, unknown>;
    for (const k of Object.keys(s)) if (!['type', 'required', 'description'].includes(k)) return `field ${n}: unknown key ${JSON.stringify(k)}; accepted: type, required, description`;
    if (!(TYPED_FIELD_TYPES as readonly string[]).includes(s.type as string)) return `field ${n}: type must be one of ${TYPED_FIELD_TYPES.join(', ')}`;
    if (s.required !== undefined && typeof s.required !== 'boolean') return `field ${n}: required must be true or false`;
    if (s.description !== undefined && (typeof s.description !== 'string' || s.description.length > 500)) return `field ${n}: description must be a string of at most 500 characters`;
    out[n] = { type: s.type as TypedFieldType, required: s.required === true, ...(typeof s.description === 'string' ? { description: s.description } : {}) };
  }
  if (!out.name || out.name.type !== 'string' || !out.name.required) return 'fields must include name: { type: string, required: true } (the fact key is <type>:<name>)';
  return { type, description: typeof d.description === 'string' ? d.description : `Custom schema ${type}`, fields: out, source: 'custom', file };
}

function describeType(v: unknown): string {
  return Array.isArray(v) ? 'list' : v === null ? 'null' : typeof v;
}

/** One field value checked against its declared type; returns the value to store or throws naming the field. */
function checkValue(field: string, spec: TypedField, v: unknown): unknown {
  const at = `fields.${field}`;
  switch (spec.type) {
    case 'string':
      if (typeof v !== 'string') throw validationError(at, `${field} must be a string; got ${describeType(v)}`, 'string');
      if (v.trim().length === 0) throw validationError(at, `${field} must not be blank`, 'non-blank string');
      if (v.length > TYPED_STRING_MAX) throw validationError(at, `${field} is longer than ${TYPED_STRING_MAX} characters`, { max: TYPED_STRING_MAX });
      return v.trim();
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw validationError(at, `${field} must be a number; got ${describeType(v)}`, 'number');
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') throw validationError(at, `${field} must be true or false; got ${describeType(v)}`, 'boolean');
      return v;
    case 'string_list': {
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw validationError(at, `${field} must be a list of strings; got ${describeType(v)}`, 'list of strings');
      if (list.length > TYPED_LIST_MAX) throw validationError(at, `${field} holds more than ${TYPED_LIST_MAX} items`, { max: TYPED_LIST_MAX });
      if (list.some((x: string) => x.length > TYPED_STRING_MAX)) throw validationError(at, `an item of ${field} is longer than ${TYPED_STRING_MAX} characters`, { max: TYPED_STRING_MAX });
      return (list as string[]).map((x) => x.trim()).filter(Boolean);
    }
  }
}

/** The stored text of typed fields: one `field: value` line per given field, in schema order. */
export function typedFieldsText(schema: TypedSchema, fields: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const name of Object.keys(schema.fields)) {
    const v = fields[name];
    if (v === undefined) continue;
    lines.push(`${name}: ${Array.isArray(v) ? v.join('; ') : String(v)}`);
  }
  return lines.join('\n');
}

/** What TypedSchemas.save stored, and the secrets it stripped (counts per kind, never the secrets). */
export interface TypedSave {
  fact: Fact & { created_new: boolean };
  schema: TypedSchema;
  warnings: TypedSchemaWarning[];
  /** Secrets replaced by `[REDACTED:<kind>]` markers in the string fields, per kind. */
  redacted: Partial<Record<SecretKind, number>>;
  redacted_total: number;
  /** The fields that held them, in schema order. */
  redacted_fields: string[];
}

/**
 * Typed facts (memory_save_typed): the built-in schemas merged with the custom ones of
 * `<data_dir>/schemas/*.yaml|yml` (a custom file named like a built-in replaces it). A malformed
 * schema file is skipped with a warning (on the logger, and in `warnings`), never an error.
 */
export class TypedSchemas {
  constructor(
    private readonly ctx: StoreContext,
    private readonly facts: FactStore,
  ) {}

  get dir(): string {
    return safeJoin(this.ctx.dataDir, TYPED_SCHEMA_DIR);
  }

  /** The schemas in force (read from disk on each call: the folder is small) and the files skipped. */
  load(): { schemas: Record<string, TypedSchema>; warnings: TypedSchemaWarning[] } {
    const schemas: Record<string, TypedSchema> = { ...BUILTIN_TYPED_SCHEMAS };
    const warnings: TypedSchemaWarning[] = [];
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.dir, { withFileTypes: true });
    } catch {
      return { schemas, warnings };
    }
    const files = entries.filter((e) => /\.ya?ml$/i.test(e.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const seen = new Map<string, string>();
    let read = 0;
    for (const e of files) {
      const rel = `${TYPED_SCHEMA_DIR}/${e.name}`;
      const warn = (message: string) => {
        warnings.push({ file: rel, message });
        this.ctx.logger.warn(`schema file ${rel} skipped: ${message}`);
      };
      if (!e.isFile()) {
        warn('not a regular file');
        continue;
      }
      const type = e.name.replace(/\.ya?ml$/i, '');
      if (!TYPED_NAME_PATTERN.test(type)) {
        warn(`the file name must be <type>.yaml with type matching ${TYPED_NAME_PATTERN.source}`);
        continue;
      }
      if (seen.has(type)) {
        warn(`schema ${type} is already defined by ${seen.get(type)}`);
        continue;
      }
      if (++read > TYPED_MAX_SCHEMA_FILES) {
        warn(`more than ${TYPED_MAX_SCHEMA_FILES} schema files; the rest are not read`);
        continue;
      }
      let doc: unknown;
      try {
        const full = safeJoin(this.dir, e.name);
        if (fs.statSync(full).size > TYPED_MAX_SCHEMA_BYTES) {
          warn(`larger than ${TYPED_MAX_SCHEMA_BYTES} bytes`);
          continue;
        }
        doc = yaml().parse(fs.readFileSync(full, 'utf8'));
      } catch (err) {
        warn(`not valid YAML: ${(err as Error).message.split('\n')[0]}`);
        continue;
      }
      const checked = checkSchemaDoc(type, doc, rel);
      if (typeof checked === 'string') {
        warn(checked);
        continue;
      }
      seen.set(type, rel);
      schemas[type] = checked;
    }
    return { schemas, warnings };
  }

  /**
   * Validate `fields` against the schema of `type` and store them as the L4 fact `<type>:<name>`
   * (source user_explicit, metadata.typed = type, metadata.fields = the checked fields; value =
   * one `field: value` line per field). Saving the same type and name again updates that fact.
   * Secrets in every string field (list items included, the name too) are replaced by
   * `[REDACTED:<kind>]` markers before anything is stored, each seen after its `field: ` label as
   * in the value (secrets.scrubLabelled); the counts are answered, never the secrets.
   */
  save(
    scope: Scope,
    input: { type: string; fields: Record<string, unknown>; importance?: number },
  ): TypedSave {
    checkScope(scope);
    if (input.importance !== undefined) checkFactImportance(input.importance);
    const { schemas, warnings } = this.load();
    const accepted = Object.keys(schemas).sort();
    const schema = Object.prototype.hasOwnProperty.call(schemas, input.type) ? schemas[input.type] : undefined;
    if (!schema) throw validationError('type', `unknown type ${JSON.stringify(String(input.type).slice(0, 80))}; accepted: ${accepted.join(', ')}`, accepted);
    const fields = input.fields;
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw validationError('fields', 'fields must be an object of field values', Object.keys(schema.fields));
    for (const k of Object.keys(fields)) {
      if (!Object.prototype.hasOwnProperty.call(schema.fields, k)) {
        throw validationError(`fields.${k}`, `${input.type} has no field ${JSON.stringify(k.slice(0, 80))}; its fields: ${Object.keys(schema.fields).join(', ')}`, Object.keys(schema.fields));
      }
    }
    const clean: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(schema.fields)) {
      const v = fields[name];
      if (v === undefined || v === null) {
        if (spec.required) throw validationError(`fields.${name}`, `${name} is required by ${input.type} (${spec.type})`, spec.type);
        continue;
      }
      clean[name] = checkValue(name, spec, v);
    }
    if ((clean.name as string).length > 200) throw validationError('fields.name', 'name is longer than 200 characters', { max: 200 });
    // Secrets are stripped from every string stored, as memory_remember strips them from its value.
    const scrub = { redacted: {} as Partial<Record<SecretKind, number>>, total: 0, fields: [] as string[] };
    for (const [field, v] of Object.entries(clean)) {
      const before = scrub.total;
      const strip = (text: string) => {
        const r = scrubLabelled(field, text);
        addScrubCounts(scrub, r);
        return r.text;
      };
      if (typeof v === 'string') clean[field] = strip(v);
      else if (Array.isArray(v)) clean[field] = (v as string[]).map(strip);
      if (scrub.total > before) scrub.fields.push(field);
    }
    const name = clean.name as string;
    // The name is the fact's key: refused as memory_save_typed names it (the fact store's refusal would say key).
    if (!this.facts.get(scope, `${input.type}:${name}`)) checkNewFactKey('fields.name', name);
    const fact = this.facts.upsert(scope, {
      key: `${input.type}:${name}`,
      value: typedFieldsText(schema, clean),
      ...(input.importance !== undefined ? { importance: input.importance } : {}),
      source: 'user_explicit',
      metadata: { typed: input.type, fields: clean, origin: 'memory_save_typed', ...(scrub.total > 0 ? { redacted: scrub.redacted } : {}) },
    });
    return { fact, schema, warnings, redacted: scrub.redacted, redacted_total: scrub.total, redacted_fields: scrub.fields };
  }
}
