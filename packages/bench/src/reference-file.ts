/** The reference server started on a memory file written directly, for the tools that need it preloaded fast. */
import fs from 'node:fs';
import path from 'node:path';
import { referenceEntity } from './bench-servers.js';
import { McpConnection } from './mcp-connection.js';
import { referenceServerScript } from './paths.js';

/**
 * The reference server started on N entities of the given texts: its memory file is written in its
 * own line format (what its saveGraph writes), which spares N sequential create_entities calls;
 * read_graph then confirms it loaded all N.
 */
export async function referenceWith(dir: string, texts: readonly string[]): Promise<McpConnection> {
  const file = path.join(dir, 'reference-memory.jsonl');
  const lines = texts.map((text, i) => JSON.stringify({ type: 'entity', ...referenceEntity(i, text) }));
  fs.writeFileSync(file, lines.join('\n'));
  const ref = await McpConnection.open({ label: 'reference', script: referenceServerScript(), env: { MEMORY_FILE_PATH: file } });
  const graph = JSON.parse(String((await ref.call('read_graph', {})).content.find((c) => c.type === 'text')?.text ?? '{}')) as { entities?: unknown[] };
  if (graph.entities?.length !== texts.length) {
    await ref.close();
    throw new Error(`the reference loaded ${graph.entities?.length ?? 0} entities from its file, not ${texts.length}`);
  }
  return ref;
}
