/**
 * memory_compress: deterministic shrinking of a log or a Python source, no model.
 *
 * Log mode: runs of consecutive lines that are the same once digit runs are masked (timestamps,
 * counters, ids) collapse to their first line plus "[repeated N times]"; of the remaining entries it
 * keeps the first LOG_HEAD and last LOG_TAIL, and every signal line (error, exception, traceback,
 * fatal, fail, panic, warning, critical, assert, denied, refused, timeout, killed, a Python
 * traceback frame), a signal entry seen before (same masked text) only once. When more than
 * max_lines entries are kept, priority is head, then tail, then signals earliest first. Dropped
 * stretches show as one "[... N lines omitted ...]" line, which is not counted as kept.
 *
 * Code mode: Python is recognised when some line is a `def`, `async def` or `class` header whose
 * header (up to the closing bracket, possibly over several lines) ends with `:`. It keeps
 * decorators, class headers and function signatures; each function body becomes `...`; a class
 * keeps its methods' signatures, and a class with none gets `...`; kept_lines counts the input lines
 * kept, not the `...` placeholders. Other input falls back to log mode.
 */

export const COMPRESS_MODES = ['log', 'code', 'auto'] as const;
export type CompressMode = (typeof COMPRESS_MODES)[number];

export const LOG_HEAD = 5;
export const LOG_TAIL = 5;
export const MAX_LINES_DEFAULT = 50;
export const MAX_LINES_MIN = 1;
export const MAX_LINES_MAX = 5000;

export interface CompressResult {
  mode: 'log' | 'code';
  requested_mode: CompressMode;
  /** True when code (or auto) was asked for and the input was not recognised as Python. */
  fell_back: boolean;
  original_lines: number;
  kept_lines: number;
  text: string;
}

const SIGNAL =
  /\b(?:error|errors|err|exception|traceback|fatal|fail|failed|failure|failing|panic|warn|warning|warnings|critical|assert|assertion|denied|refused|timeout|timed out|killed|segfault|abort|aborted)\b|^\s+File ".*", line \d+/i;

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const mask = (line: string): string => line.trim().replace(/\d+/g, '0');

interface Entry {
  /** Index of the first line of the run in the input. */
  at: number;
  line: string;
  count: number;
  key: string;
}

export function compressLog(text: string, maxLines = MAX_LINES_DEFAULT): { original_lines: number; kept_lines: number; text: string } {
  const lines = splitLines(text);
  const entries: Entry[] = [];
  lines.forEach((line, at) => {
    const key = mask(line);
    const last = entries[entries.length - 1];
    if (last && last.key === key) last.count++;
    else entries.push({ at, line, count: 1, key });
  });
  const n = entries.length;
  const head = [...Array(Math.min(LOG_HEAD, n)).keys()];
  const tail = [...Array(Math.min(LOG_TAIL, n)).keys()].map((i) => n - 1 - i).reverse();
  const seenSignals = new Set<string>();
  const signals: number[] = [];
  entries.forEach((e, i) => {
    if (!SIGNAL.test(e.line) || seenSignals.has(e.key)) return;
    seenSignals.add(e.key);
    signals.push(i);
  });
  const kept = new Set<number>();
  for (const i of [...head, ...tail, ...signals]) {
    if (kept.size >= maxLines) break;
    kept.add(i);
  }
  const order = [...kept].sort((a, b) => a - b);
  const out: string[] = [];
  let next = 0; // index of the next input line not yet accounted for
  for (const i of order) {
    const e = entries[i];
    if (e.at > next) out.push(`[... ${e.at - next} lines omitted ...]`);
    out.push(e.count > 1 ? `${e.line}  [repeated ${e.count} times]` : e.line);
    next = e.at + e.count;
  }
  if (next < lines.length) out.push(`[... ${lines.length - next} lines omitted ...]`);
  return { original_lines: lines.length, kept_lines: order.length, text: out.join('\n') };
}

const HEADER_START = /^(\s*)(?:async\s+def|def|class)\s+[A-Za-z_]\w*\s*[(:[]/;
const DECORATOR = /^(\s*)@[A-Za-z_]/;

const indentOf = (line: string): number => (line.match(/^\s*/)?.[0] ?? '').replace(/\t/g, '    ').length;

/** Strip a trailing comment and white space (a `#` inside a string literal is rare in headers). */
const codePart = (line: string): string => line.replace(/\s+#.*$/, '').trimEnd();

/**
 * The header starting at `start`: its lines up to the one where the brackets close and the code
 * ends with `:`, or null when it does not end that way within 50 lines (then it is not Python).
 */
function headerAt(lines: readonly string[], start: number): { end: number; oneLineBody: string | null } | null {
  let depth = 0;
  for (let i = start; i < lines.length && i < start + 50; i++) {
    const code = codePart(lines[i]);
    for (const ch of code) {
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth--;
    }
    if (depth > 0) continue;
    if (code.endsWith(':')) return { end: i, oneLineBody: null };
    // `def f(x): return x` on one line: the header ends at the first `:` after the brackets close.
    const m = /^(.*\)(?:\s*->\s*[^:]+)?\s*:|^\s*class\s+\w+\s*:)\s*(\S.*)$/.exec(code);
    if (m && i === start) return { end: i, oneLineBody: m[1] };
    return null;
  }
  return null;
}

/** Whether the text is Python by the rule above. */
export function isPython(text: string): boolean {
  const lines = splitLines(text);
  return lines.some((l, i) => HEADER_START.test(l) && headerAt(lines, i) !== null);
}

export function compressPython(text: string): { original_lines: number; kept_lines: number; text: string } | null {
  const lines = splitLines(text);
  if (!lines.some((l, i) => HEADER_START.test(l) && headerAt(lines, i) !== null)) return null;
  const out: string[] = [];
  // Open blocks: a def's body is skipped whole; a class's body is scanned for its methods.
  const stack: { indent: number; kind: 'def' | 'class'; hasChild: boolean }[] = [];
  let decorators: string[] = [];
  let kept = 0; // input lines kept (the `...` placeholders are not counted)
  const closeTo = (indent: number) => {
    while (stack.length > 0 && indent <= stack[stack.length - 1].indent) {
      const b = stack.pop()!;
      if (b.kind === 'class' && !b.hasChild) out.push(`${' '.repeat(b.indent + 4)}...`);
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    const indent = indentOf(line);
    closeTo(indent);
    if (stack.some((b) => b.kind === 'def')) continue; // inside a function body
    if (DECORATOR.test(line)) {
      decorators.push(line);
      continue;
    }
    const header = HEADER_START.test(line) ? headerAt(lines, i) : null;
    if (!header) {
      decorators = [];
      continue;
    }
    const kind = /^\s*class\b/.test(line) ? 'class' : 'def';
    if (stack.length > 0) stack[stack.length - 1].hasChild = true;
    out.push(...decorators);
    kept += decorators.length;
    decorators = [];
    if (header.oneLineBody !== null) {
      out.push(`${header.oneLineBody} ...`);
      kept++;
      i = header.end;
      continue;
    }
    out.push(...lines.slice(i, header.end + 1));
    kept += header.end + 1 - i;
    if (kind === 'def') out.push(`${' '.repeat(indent + 4)}...`);
    stack.push({ indent, kind, hasChild: false });
    i = header.end;
  }
  closeTo(-1);
  return { original_lines: lines.length, kept_lines: kept, text: out.join('\n') };
}

export function compress(text: string, mode: CompressMode, maxLines = MAX_LINES_DEFAULT): CompressResult {
  if (mode !== 'log') {
    const code = compressPython(text);
    if (code) return { mode: 'code', requested_mode: mode, fell_back: false, ...code };
  }
  return { mode: 'log', requested_mode: mode, fell_back: mode !== 'log', ...compressLog(text, maxLines) };
}
