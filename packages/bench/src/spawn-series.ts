/** Start-up time: several fresh spawns of our server, each to an answered tools/list. */
import { McpConnection } from './mcp-connection.js';
import { freshTempDir, removeDir, SERVER_BIN } from './paths.js';
import { note } from './progress.js';
import { summarize, type LatencySummary } from './stats.js';

export interface SpawnSeries {
  runs: number;
  samples_ms: number[];
  ms: LatencySummary;
}

/** Spawn our server `runs` times on fresh data dirs; each sample is spawn to the tools/list answer. */
export async function spawnSeries(runs: number): Promise<SpawnSeries> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = freshTempDir('memory-service-spawn');
    try {
      const conn = await McpConnection.open({ label: 'ours', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: dir } });
      samples.push(conn.spawnToToolsMs);
      await conn.close();
    } finally {
      removeDir(dir);
    }
  }
  note(`spawn to tools/list over ${runs} fresh starts: ${samples.map((s) => s.toFixed(0)).join(', ')} ms`);
  return { runs, samples_ms: samples, ms: summarize(samples) };
}
