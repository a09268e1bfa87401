import fs from 'node:fs';
import path from 'node:path';
import { defineTool, invalid, z } from '@memory-service/kernel';

/** The answers the replay tool can give again, each recorded as `<name>.json` in its directory. */
export const REPLAYED = ['think', 'dream'] as const;
export type Replayed = (typeof REPLAYED)[number];

/**
 * bench_replay: answer again with a recorded answer of a real tool, touching no store. Timed next
 * to the real tool, it splits a call's cost into what every tool call of that answer size costs
 * (transport, SDK, kernel, serialisation) and the tool's own work. Loaded by the benchmark only.
 */
export function benchReplayTool(dir: string) {
  const kept = new Map<Replayed, Record<string, unknown>>();
  const recorded = (name: Replayed): Record<string, unknown> => {
    let answer = kept.get(name);
    if (!answer) {
      const file = path.join(dir, `${name}.json`);
      if (!fs.existsSync(file)) throw invalid('answer', `no recorded ${name} answer yet (${file})`, REPLAYED);
      answer = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      kept.set(name, answer);
    }
    return answer;
  };
  return defineTool({
    name: 'bench_replay',
    title: 'Replay a recorded answer (benchmark)',
    description:
      'Benchmark only: answers with a recorded answer of think or dream, doing no store work, so the cost of a tool call ' +
      'of that answer size can be timed apart from the tool itself.',
    input: z.object({ answer: z.enum(REPLAYED).describe('Which recorded answer to give') }),
    output: z.looseObject({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => structuredClone(recorded(args.answer)),
  });
}
