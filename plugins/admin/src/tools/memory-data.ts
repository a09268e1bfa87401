import { defineTool, storageFailureError, z, type WriteWait } from '@memory-service/kernel';
import {
  EXPORT_INLINE_MAX_BYTES,
  EXPORTS_DIR,
  IMPORT_MODES,
  SCOPE_DOC_FORMAT,
  SCOPE_DOC_KINDS,
  SCOPE_DOC_VERSION,
  ScopeData,
  validationError,
  type ImportMode,
  type ImportResult,
  type Scope,
  type ScopeDocument,
  type Stores,
} from '@memory-service/stores';
import { layerInput, scopeOf, scopeOutput, userIdInput } from '../common.js';

/** The fields each action takes beyond action, layer and user_id (the kernel refuses any other the call gives, naming it). */
const FIELDS = { export: ['to_file'], import: ['data', 'file', 'mode'] } as const;

const kindCounts = z.object(Object.fromEntries(SCOPE_DOC_KINDS.map((k) => [k, z.number()])) as Record<(typeof SCOPE_DOC_KINDS)[number], z.ZodNumber>);

export function memoryDataTool(stores: Stores) {
  return defineTool({
    name: 'memory_data',
    title: 'Export or import a user\'s memory',
    description:
      'Per-user export and import of one layer and user_id. action export returns the scope as one versioned JSON document ' +
      `(format "${SCOPE_DOC_FORMAT}", version ${SCOPE_DOC_VERSION}): facts, episodes, wiki_pages (with content), wiki_links, ` +
      'graph_nodes, graph_edges, timeline, sessions, scratchpad, counterfactuals, procedures (with run counts), stashes (with their entries), ' +
      'branches (with each key\'s base and own value), reflections, disclosure_rules, watch_rules, standing_queries and pending proposals, ' +
      'each record with its times (a document without the later kinds still imports). It comes back inline as `data`, ' +
      `or, with to_file true or when its JSON is over ${EXPORT_INLINE_MAX_BYTES} bytes, as a file in <data_dir>/${EXPORTS_DIR}/ ` +
      'whose name is returned as `file`. action import writes such a document (inline `data`, or `file`, a name in the exports ' +
      'folder) into the layer and user_id given, in one transaction, keeping each record\'s times. mode merge (default) keeps what ' +
      'the target holds: a fact of the same key, a wiki page of the same title, a scratchpad key, a procedure, stash, branch, rule or standing query ' +
      'of the same name, and an episode, node, edge, event, session, counterfactual, reflection or pending proposal identical to one it holds are ' +
      'skipped (importing twice adds nothing). mode replace first clears the target ' +
      '(its L1 ring of recent turns too, counted in cleared_l1; its facts, episodes, graph nodes and wiki pages archived in the Shadow Bin; the whole previous scope also saved as an export ' +
      'file, returned as previous_export). The document is checked whole first: a malformed one is an error naming the path of ' +
      'the bad field (e.g. data.facts[3].key) and nothing is written. A standing query name an older build took (with _ or -) is ' +
      'imported with those removed (a number added when that name is taken), listed in renamed_standing_queries. Ids are new in the target: edges, and the ids records name (a fact\'s ' +
      'derived_nodes, a long thought\'s link to its page, a timeline event\'s refs, a reflection\'s most recalled, a skill page\'s episode), ' +
      'are re-pointed to the records the import wrote; a reference to a record the document does not hold is dropped.',
    input: () => z.object({
      action: z.enum(['export', 'import']),
      to_file: z.boolean().default(false).describe(`export: write the document to <data_dir>/${EXPORTS_DIR}/ instead of returning it inline`),
      data: z.record(z.string(), z.unknown()).optional().describe('import: the document, as export returned it'),
      file: z.string().min(1).max(300).optional().describe(`import: the name of an export file in <data_dir>/${EXPORTS_DIR}/`),
      mode: z.enum(IMPORT_MODES).default('merge').describe('import: merge (keep what the target holds) or replace (clear the target first, archived)'),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      ...scopeOutput,
      action: z.enum(['export', 'import']),
      counts: kindCounts.describe('export: records per kind in the document; import: records per kind in the document read'),
      data: z.record(z.string(), z.unknown()).optional().describe('export: the document, when returned inline'),
      file: z.string().optional().describe(`export: the file in <data_dir>/${EXPORTS_DIR}/ holding the document`),
      bytes: z.number().optional().describe('export: size of the document\'s JSON'),
      mode: z.enum(IMPORT_MODES).optional(),
      imported: kindCounts.optional(),
      skipped: kindCounts.optional(),
      cleared: kindCounts.optional(),
      cleared_l1: z.number().optional().describe('import replace: items of the target\'s L1 ring (recent turns) removed; 0 for merge'),
      archived: z.number().optional().describe('import replace: records of the target archived in the Shadow Bin'),
      renamed_standing_queries: z
        .array(z.object({ from: z.string(), to: z.string() }))
        .optional()
        .describe('import: standing queries the document names with _ or - (an older build\'s names; names are letters and digits only now), imported under these names'),
      previous_export: z.string().nullable().optional().describe('import replace: the export file of what the target held before (null when it held nothing)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    actionFields: FIELDS,
    // The call opens its own transaction (stores.ctx.txWhenFree), after reading and checking the
    // document: in the kernel's, the file's read, its JSON parse and the check of every record held
    // the write lock of every process too (about 1 s of it at 48 MB).
    transaction: false,
    handler: async (args, call) => {
      const scope = scopeOf(args);
      const sd = stores.scopeData;
      if (args.action === 'export') {
        // A record at a time: inline while its JSON is within the limit, else to a file written in
        // pieces; the whole document is never one string (a small heap ran out of memory). One read
        // transaction: a single snapshot, without the write lock (it neither waits for another
        // process's write nor holds one up).
        const out = stores.ctx.read(() => sd.exportTo(scope, args.to_file ? null : EXPORT_INLINE_MAX_BYTES));
        if (out.doc) return { ...scope, action: args.action, counts: out.counts, data: out.doc as unknown as Record<string, unknown>, bytes: out.bytes };
        return { ...scope, action: args.action, counts: out.counts, file: out.file, bytes: out.bytes };
      }
      if ((args.data === undefined) === (args.file === undefined)) {
        throw validationError(args.data === undefined ? 'data' : 'file', 'import takes exactly one of data (the document) or file (an export file name)', 'data or file');
      }
      const root = args.data !== undefined ? 'data' : 'file';
      // Read (without blocking the event loop), parsed and checked whole before the write lock is
      // taken: a malformed document is refused without waiting for, or holding, the lock. The event
      // loop gets a turn after the parse and after the check: each is a stall of its own (a second
      // or more at 48 MB), and run back to back with the transaction they made one stall of the
      // whole call, during which the server answered no other client.
      const input = args.data ?? (await sd.readFileAsync(args.file as string, 'file'));
      await loopTurn();
      const doc = sd.check(input, root);
      await loopTurn();
      try {
        return await importChecked(stores, scope, doc, args.mode, root, call);
      } catch (err) {
        // The import's transaction was rolled back: a busy lock or a full disk says nothing was written.
        throw storageFailureError(stores.ctx.db.name, err, { rolledBack: true }) ?? err;
      }
    },
  });
}

/**
 * Let the event loop run what is waiting (other clients' requests, timers) before going on: two
 * immediates, since one queued from an I/O callback (the file read's) runs before the loop next
 * polls for I/O, and the second runs only after it did.
 */
async function loopTurn(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Write a checked document in one transaction (memory_data import), a replace's previous_export kept
 * only if it commits. While another process holds the write lock it waits for it without blocking
 * the server (txWhenFree), within the call's busy timeout.
 */
function importChecked(stores: Stores, scope: Scope, doc: ScopeDocument, mode: ImportMode, root: string, call: WriteWait) {
  const sd = stores.scopeData;
  return stores.ctx.txWhenFree(() => {
    // What the target held, written to a temp file a record at a time before the import, and named
    // once the import went through, inside the import's transaction: a file that cannot be written
    // fails the call, and the import is rolled back with it.
    const before = mode === 'replace' ? sd.exportPending(scope) : null;
    let res: ImportResult;
    let previous: string | null = null;
    try {
      res = sd.importScope(scope, doc, mode, root);
      if (before && Object.values(before.counts).some((n) => n > 0)) previous = before.commit();
      else before?.abort();
    } catch (err) {
      before?.abort();
      throw err;
    }
    return { ...scope, action: 'import' as const, counts: ScopeData.counts(doc), ...res, ...(mode === 'replace' ? { previous_export: previous } : {}) };
  }, call);
}
