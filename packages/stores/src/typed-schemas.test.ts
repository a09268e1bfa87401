import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeEnv, recordingLogger, U, U2, type Env, type RecordingLogger } from './test-helpers.js';
import { StoreError } from './errors.js';

let env: Env;
let logger: RecordingLogger;
beforeEach(() => {
  logger = recordingLogger();
  env = makeEnv({}, logger);
});
afterEach(() => env.close());

function schema(name: string, text: string): void {
  fs.mkdirSync(path.join(env.dir, 'schemas'), { recursive: true });
  fs.writeFileSync(path.join(env.dir, 'schemas', name), text);
}

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return (e as StoreError).field;
  }
  throw new Error('did not throw');
}

describe('TypedSchemas', () => {
  it('saves a built-in typed fact as <type>:<name> with metadata.typed and the fields as lines', () => {
    const r = env.stores.typedSchemas.save(U, { type: 'decision', fields: { name: 'db', decision: 'Use SQLite', alternatives: ['Postgres', 'files'] } });
    expect(r.fact).toMatchObject({ key: 'decision:db', source: 'user_explicit', value: 'name: db\ndecision: Use SQLite\nalternatives: Postgres; files' });
    expect(r.fact.metadata).toMatchObject({ typed: 'decision', fields: { name: 'db', decision: 'Use SQLite', alternatives: ['Postgres', 'files'] } });
    expect(env.stores.facts.get(U2, 'decision:db')).toBeNull();
  });

  it('strips secrets from every string field and list item before storing, counting them per kind', () => {
    const r = env.stores.typedSchemas.save(U, {
      type: 'decision',
      fields: { name: 'db', decision: 'connect with password=s3cretpw', alternatives: ['api_key: abcd1234efgh', 'none'] },
    });
    expect(r.fact.value).toBe('name: db\ndecision: connect with password=[REDACTED:password]\nalternatives: api_key: [REDACTED:api_key]; none');
    expect(r.fact.metadata).toMatchObject({ fields: { decision: 'connect with password=[REDACTED:password]' }, redacted: { password: 1, api_key: 1 } });
    expect(r).toMatchObject({ redacted_total: 2, redacted_fields: ['decision', 'alternatives'] });
    expect(JSON.stringify(env.stores.facts.get(U, 'decision:db'))).not.toMatch(/s3cretpw|abcd1234efgh/);
  });

  it('names type, fields.<field> for unknown types, missing, unknown and mistyped fields', () => {
    const ts = env.stores.typedSchemas;
    expect(fieldOf(() => ts.save(U, { type: 'recipe', fields: { name: 'x' } }))).toBe('type');
    expect(fieldOf(() => ts.save(U, { type: 'decision', fields: { name: 'x' } }))).toBe('fields.decision');
    expect(fieldOf(() => ts.save(U, { type: 'decision', fields: { name: 'x', decision: 3 } }))).toBe('fields.decision');
    expect(fieldOf(() => ts.save(U, { type: 'decision', fields: { name: 'x', decision: 'y', colour: 'red' } }))).toBe('fields.colour');
    expect(fieldOf(() => ts.save(U, { type: 'relationship', fields: { person: 'Ann', relation: 'sister' } }))).toBe('fields.name');
    expect(env.stores.facts.list(U)).toEqual([]);
  });

  it('merges custom schemas over the built-ins; a custom file named like a built-in replaces it', () => {
    schema('recipe.yaml', 'description: A dish\nfields:\n  name: {type: string, required: true}\n  serves: {type: number, required: true}\n  vegan: boolean\n');
    schema('decision.yml', 'fields:\n  name: {type: string, required: true}\n  choice: {type: string, required: true}\n');
    const { schemas, warnings } = env.stores.typedSchemas.load();
    expect(warnings).toEqual([]);
    expect(Object.keys(schemas).sort()).toEqual(['decision', 'error_pattern', 'recipe', 'relationship']);
    expect(schemas.decision!.source).toBe('custom');
    const r = env.stores.typedSchemas.save(U, { type: 'recipe', fields: { name: 'dal', serves: 4, vegan: true } });
    expect(r.fact).toMatchObject({ key: 'recipe:dal', value: 'name: dal\nserves: 4\nvegan: true', metadata: { typed: 'recipe' } });
    expect(fieldOf(() => env.stores.typedSchemas.save(U, { type: 'recipe', fields: { name: 'dal', serves: 'four' } }))).toBe('fields.serves');
    expect(fieldOf(() => env.stores.typedSchemas.save(U, { type: 'decision', fields: { name: 'a', decision: 'b' } }))).toBe('fields.decision');
  });

  it('skips malformed schema files with a warning, never failing', () => {
    schema('broken.yaml', 'fields: [');
    schema('noname.yaml', 'fields:\n  title: string\n');
    schema('badtype.yaml', 'fields:\n  name: {type: string, required: true}\n  n: {type: integer}\n');
    schema('Bad-Name.yaml', 'fields:\n  name: {type: string, required: true}\n');
    schema('notes.txt', 'ignored');
    fs.mkdirSync(path.join(env.dir, 'schemas', 'dir.yaml'));
    fs.mkdirSync(path.join(env.dir, 'schemas', 'sub'));
    fs.writeFileSync(path.join(env.dir, 'schemas', 'sub', 'deep.yaml'), 'fields:\n  name: {type: string, required: true}\n');
    const { schemas, warnings } = env.stores.typedSchemas.load();
    expect(Object.keys(schemas).sort()).toEqual(['decision', 'error_pattern', 'relationship']);
    expect(warnings.map((w) => w.file).sort()).toEqual(['schemas/Bad-Name.yaml', 'schemas/badtype.yaml', 'schemas/broken.yaml', 'schemas/dir.yaml', 'schemas/noname.yaml']);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(5);
  });
});
