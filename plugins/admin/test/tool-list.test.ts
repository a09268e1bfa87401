import { beforeAll, describe, expect, it } from 'vitest';
import { surfaceProblems, tierToolFacts, type TierToolFacts } from '@memory-service/testing';
import { admin, PRIMITIVES, start } from './helpers.js';

/** Every tool the admin plugin registers, in registration order. */
const OWN = ['memory_cleanup', 'memory_data', 'memory_lucidity_purge', 'memory_sync_replica', 'memory_api_key', 'memory_backup', 'memory_saga'];
/** The tier's tools that change nothing. */
const READ_ONLY: string[] = [];

// The build writes dist/tool-schemas.json (scripts/tool-schemas.mjs); the test task runs after it.
const built = new URL('../dist/tool-schemas.json', import.meta.url);

let facts: TierToolFacts;
beforeAll(async () => {
  facts = await tierToolFacts(start, { tier: 'admin', plugin: admin.name, schemasFile: built });
});

describe('exposure', () => {
  it('MEMORY_EXPOSE=admin lists the tier\'s tools next to the primitives', () => {
    expect(facts.exposed).toEqual([...PRIMITIVES, ...OWN].sort());
  });

  it('the default surface hides them', () => {
    expect(facts.defaults).toEqual([...PRIMITIVES].sort());
  });

  it('gives every tool a title, a description, both schemas with layer and user_id, and all four hints; only the reads are read-only', () => {
    expect(facts.own).toHaveLength(OWN.length);
    expect(surfaceProblems(facts.own)).toEqual([]);
    const readOnly = facts.own.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly.sort()).toEqual([...READ_ONLY].sort());
  });
});

describe("the admin plugin's tool schemas file", () => {
  it('holds exactly the conversion of the tools in src', () => {
    expect(facts.registered).toEqual(OWN);
    expect(facts.schemasFile).toEqual(facts.converted);
    expect(facts.schemasRead).toBe(OWN.length);
  });

  it('is the file the built plugin names', async () => {
    const dist = (await import(new URL('../dist/bundle.js', import.meta.url).href)) as { default: { toolSchemas?: URL } };
    expect(dist.default.toolSchemas?.href).toBe(built.href);
  });
});
