import { defineTool, z } from '@memory-service/kernel';
import { layerInput, userIdInput } from '../common.js';
import { compress, COMPRESS_MODES, LOG_HEAD, LOG_TAIL, MAX_LINES_DEFAULT, MAX_LINES_MAX, MAX_LINES_MIN } from '../services/compress.js';

/** Largest text memory_compress takes: a long build or test log, not a whole dump. */
export const COMPRESS_MAX_CHARS = 2_000_000;

export function memoryCompressTool() {
  return defineTool({
    name: 'memory_compress',
    title: 'Compress a log or Python source',
    description:
      'Shrink text deterministically (no model, nothing stored). mode log: collapses runs of repeated lines (digits masked) into ' +
      `one "[repeated N times]" line, keeps the first ${LOG_HEAD} and last ${LOG_TAIL} lines and every error, exception, traceback, ` +
      'fatal, failure, warning or timeout line (each distinct one once), at most max_lines kept, the gaps shown as ' +
      '"[... N lines omitted ...]". mode code: keeps the decorators, class headers and def signatures of Python and drops ' +
      'bodies (`...`); input that is not Python falls back to log mode without an error. mode auto: code when the text is ' +
      'Python, else log. Returns the mode applied, requested_mode, fell_back, original_lines, kept_lines and text.',
    input: () => z.object({
      text: z.string().min(1).max(COMPRESS_MAX_CHARS).describe('The log or source text'),
      mode: z.enum(COMPRESS_MODES).default('auto').describe('log, code or auto (code when Python is recognised, else log)'),
      max_lines: z
        .number()
        .int()
        .min(MAX_LINES_MIN)
        .max(MAX_LINES_MAX)
        .default(MAX_LINES_DEFAULT)
        .describe(`Log mode: most input lines kept (omission markers not counted); default ${MAX_LINES_DEFAULT}`),
      layer: layerInput,
      user_id: userIdInput,
    }),
    output: () => z.object({
      mode: z.enum(['log', 'code']),
      requested_mode: z.enum(COMPRESS_MODES),
      fell_back: z.boolean(),
      original_lines: z.number(),
      kept_lines: z.number(),
      text: z.string(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (args) => compress(args.text, args.mode, args.max_lines),
  });
}
