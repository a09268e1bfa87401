/**
 * The benchmark's own plugin (tier `bench`), loaded by `npm run idle-floor` through MEMORY_PLUGINS
 * and never by the server otherwise: one tool, bench_replay, reading recorded answers from the
 * directory in BENCH_REPLAY_DIR.
 */
import { definePlugin } from '@memory-service/kernel';
import { benchReplayTool } from './tools/bench_replay.js';

export const REPLAY_DIR_ENV = 'BENCH_REPLAY_DIR';

export default definePlugin({
  name: '@memory-service/bench-floor',
  version: '0.1.0',
  tier: 'bench',
  kernel: '^1.0.0',
  description: 'Benchmark only: replays recorded tool answers to time the cost of a tool call itself.',
  setup(ctx) {
    const dir = process.env[REPLAY_DIR_ENV];
    if (!dir) throw new Error(`${REPLAY_DIR_ENV} must name the directory of the recorded answers`);
    ctx.tools.register(benchReplayTool(dir));
  },
});
