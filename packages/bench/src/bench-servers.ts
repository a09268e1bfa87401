/** The two servers under benchmark, each doing the equivalent write and search over MCP. */
import path from 'node:path';
import { FLOOR_TOOL } from './floor-server.js';
import { McpConnection } from './mcp-connection.js';
import { FLOOR_SERVER, SERVER_BIN, referenceServerScript } from './paths.js';

/** ours and the reference are compared; floor is the zero-work server that bounds any comparison. */
export type ServerKind = 'ours' | 'reference' | 'floor';

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

/** The reference's entity for the index-th item: one observation, a unique name. */
export function referenceEntity(index: number, text: string): { name: string; entityType: string; observations: string[] } {
  return { name: `item-${index}`, entityType: 'note', observations: [text] };
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
    const { ms } = await this.connection.timedCall('create_entities', { entities: [referenceEntity(index, text)] });
    return ms;
  }

  async search(query: string): Promise<number> {
    const { ms } = await this.connection.timedCall('search_nodes', { query });
    return ms;
  }
}

/** The zero-work server: both operations are its one tool, answered at once with nothing stored. */
class FloorServer implements BenchServer {
  readonly kind = 'floor' as const;
  readonly ops = { write: FLOOR_TOOL, search: FLOOR_TOOL };
  readonly preloadConcurrency = 1;
  constructor(readonly connection: McpConnection) {}

  write(): Promise<number> {
    return this.noop();
  }

  search(): Promise<number> {
    return this.noop();
  }

  private async noop(): Promise<number> {
    return (await this.connection.timedCall(FLOOR_TOOL, {})).ms;
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
  if (kind === 'floor') return new FloorServer(await McpConnection.open({ label: 'floor', script: FLOOR_SERVER, env: {} }));
  const conn = await McpConnection.open({
    label: 'reference',
    script: referenceServerScript(),
    env: { MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl') },
  });
  return new ReferenceServer(conn);
}
