/** The two servers under benchmark, each doing the equivalent write and search over MCP. */
import path from 'node:path';
import { McpConnection } from './mcp-connection.js';
import { SERVER_BIN, referenceServerScript } from './paths.js';

export type ServerKind = 'ours' | 'reference';

/** How one server stores one item and searches, as an agent would call it. */
export interface BenchServer {
  readonly kind: ServerKind;
  /** Tool names used for the write and search operations. */
  readonly ops: { write: string; search: string };
  /** Requests kept in flight while preloading (1 where concurrent writes are unsafe). */
  readonly preloadConcurrency: number;
  readonly connection: McpConnection;
  write(text: string, index: number): Promise<number>;
  search(query: string): Promise<number>;
}

export const SEARCH_LIMIT = 10;

class OurServer implements BenchServer {
  readonly kind = 'ours' as const;
  readonly ops = { write: 'think', search: 'dream' };
  readonly preloadConcurrency = 16;
  constructor(readonly connection: McpConnection) {}

  async write(text: string): Promise<number> {
    const { ms, result } = await this.connection.timedCall('think', { text, layer: 'user' });
    if (!result.structuredContent) throw new Error('ours: think returned no structuredContent');
    return ms;
  }

  async search(query: string): Promise<number> {
    const { ms, result } = await this.connection.timedCall('dream', { query, limit: SEARCH_LIMIT, layer: 'user' });
    if (!result.structuredContent) throw new Error('ours: dream returned no structuredContent');
    return ms;
  }
}

/**
 * The reference server rewrites its whole JSONL file on every write, so concurrent writes would
 * race and lose entities: its preload stays sequential.
 */
class ReferenceServer implements BenchServer {
  readonly kind = 'reference' as const;
  readonly ops = { write: 'create_entities', search: 'search_nodes' };
  readonly preloadConcurrency = 1;
  constructor(readonly connection: McpConnection) {}

  async write(text: string, index: number): Promise<number> {
    const entity = { name: `item-${index}`, entityType: 'note', observations: [text] };
    const { ms } = await this.connection.timedCall('create_entities', { entities: [entity] });
    return ms;
  }

  async search(query: string): Promise<number> {
    const { ms } = await this.connection.timedCall('search_nodes', { query });
    return ms;
  }
}

/** Spawn one server on a fresh data dir and wrap it. */
export async function openServer(kind: ServerKind, dataDir: string): Promise<BenchServer> {
  if (kind === 'ours') {
    const conn = await McpConnection.open({ label: 'ours', script: SERVER_BIN, env: { MCP_MEMORY_DATA_DIR: dataDir } });
    for (const tool of ['think', 'dream']) {
      if (!conn.tools.includes(tool)) {
        await conn.close();
        throw new Error(`ours: tool ${tool} is not listed (tools: ${conn.tools.join(', ')})`);
      }
    }
    return new OurServer(conn);
  }
  const conn = await McpConnection.open({
    label: 'reference',
    script: referenceServerScript(),
    env: { MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl') },
  });
  return new ReferenceServer(conn);
}
