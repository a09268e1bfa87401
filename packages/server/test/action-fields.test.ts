import { defOf } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { firstPartyService } from './helpers.js';

const services = firstPartyService();
afterEach(() => services.close());

/** Fields every action takes: never listed per action. */
const COMMON = ['action', 'layer', 'user_id'];

/** The values of a tool's `action` enum (through default and optional), or null when it has none. */
function actionsOf(shape: Record<string, unknown>): string[] | null {
  let def = defOf(shape.action);
  while (def && (def.type === 'default' || def.type === 'optional')) def = defOf(def.innerType);
  return def?.type === 'enum' ? Object.values(def.entries as Record<string, string>) : null;
}

describe('the fields each action takes, on every first-party tool', () => {
  it('every tool with an action and fields of its own declares them: each action once, each field of its schema, none it lacks', async () => {
    const service = await services.start();
    const declared: string[] = [];
    for (const tool of service.kernel.tools()) {
      const shape = tool.input.shape as Record<string, unknown>;
      const actions = actionsOf(shape);
      const own = Object.keys(shape).filter((k) => !COMMON.includes(k));
      if (!actions || own.length === 0) {
        expect(tool.actionFields, tool.name).toBeUndefined();
        continue;
      }
      declared.push(tool.name);
      const fields = tool.actionFields;
      expect(fields, tool.name).toBeDefined();
      expect(Object.keys(fields!).sort(), tool.name).toEqual([...actions].sort());
      const listed = new Set(Object.values(fields!).flat());
      expect([...listed].sort(), `${tool.name}: listed fields are its own`).toEqual(own.filter((k) => listed.has(k)).sort());
      expect(own.filter((k) => !listed.has(k)), `${tool.name}: fields no action takes`).toEqual([]);
    }
    expect(declared).toEqual(expect.arrayContaining(['project', 'memory_scratchpad', 'memory_quality', 'memory_saga', 'memory_proposals', 'memory_procedure', 'memory_data', 'wiki_link']));
  });
});
