/** Our server as a retriever: think ingests each turn, dream answers each question, over MCP stdio. */
import { McpConnection } from './mcp-connection.js';
import { freshTempDir, removeDir, SERVER_BIN } from './paths.js';
import { rankTurns, TurnMap, type HitRef, type StoredRef } from './recall.js';
import type { Retriever, RetrieverFactory } from './retriever.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The (store, id) pairs of a ThinkResult's actions. */
export function thinkActions(structured: unknown): StoredRef[] {
  if (!isRecord(structured) || !Array.isArray(structured.actions)) {
    throw new Error('think returned no structuredContent.actions');
  }
  const out: StoredRef[] = [];
  for (const a of structured.actions) {
    if (isRecord(a) && typeof a.store === 'string' && (typeof a.id === 'string' || typeof a.id === 'number')) {
      out.push({ store: a.store, id: String(a.id) });
    }
  }
  return out;
}

/** The ranked (source, id) hits of a DreamResult. */
export function dreamHits(structured: unknown): HitRef[] {
  if (!isRecord(structured) || !Array.isArray(structured.hits)) {
    throw new Error('dream returned no structuredContent.hits');
  }
  const out: HitRef[] = [];
  for (const h of structured.hits) {
    if (isRecord(h) && typeof h.source === 'string' && (typeof h.id === 'string' || typeof h.id === 'number')) {
      out.push({ source: h.source, id: String(h.id) });
    }
  }
  return out;
}

export const serverRetriever: RetrieverFactory = async (conversation) => {
  const dir = freshTempDir(`locomo-${conversation.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`);
  let conn: McpConnection;
  try {
    conn = await McpConnection.open({ label: 'memory-service', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: dir } });
  } catch (err) {
    removeDir(dir);
    throw err;
  }
  const map = new TurnMap();
  let turnsWithoutRecord = 0;
  let hitsTotal = 0;
  let hitsUnmapped = 0;
  const retriever: Retriever = {
    async ingest(turn) {
      const result = await conn.call('think', { text: turn.text, layer: 'user' });
      const actions = thinkActions(result.structuredContent);
      const before = map.size;
      map.record(turn.diaId, actions);
      if (map.size === before) turnsWithoutRecord++;
    },
    async rank(question, k) {
      const { ms, result } = await conn.timedCall('dream', { query: question, limit: k, layer: 'user', hits: true });
      const hits = dreamHits(result.structuredContent);
      hitsTotal += hits.length;
      hitsUnmapped += hits.filter((h) => map.turnOf(h) === undefined).length;
      return { turns: rankTurns(hits, map), ms };
    },
    notes() {
      const out: string[] = [];
      if (turnsWithoutRecord > 0) out.push(`${turnsWithoutRecord} turns made no new retrievable record (l3/l4/wiki/graph)`);
      if (map.shared > 0) out.push(`${map.shared} records were reported again by a later turn (kept with the first)`);
      if (hitsUnmapped > 0) out.push(`${hitsUnmapped} of ${hitsTotal} dream hits map to no turn`);
      return out;
    },
    async close() {
      await conn.close().catch(() => undefined);
      removeDir(dir);
    },
  };
  return retriever;
};
