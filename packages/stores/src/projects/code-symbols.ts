import fs from 'node:fs';
import path from 'node:path';

export interface CodeSymbol {
  /** Relative to the scanned root, forward slashes. */
  file: string;
  symbol: string;
  /** function, class, const, interface, type, enum, def, struct, fn, trait, ... */
  kind: string;
  /** 1-based. */
  line: number;
}

export interface ScanOptions {
  maxFiles?: number;
  maxBytes?: number;
  /** Directories read at most: a tree of folders with no source in them (say, a home directory) stays a bounded walk. */
  maxDirs?: number;
}

export interface ScanResult {
  symbols: CodeSymbol[];
  files: number;
  bytes: number;
  /** True when a file or byte bound stopped the scan early. */
  truncated: boolean;
}

export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'target',
  '.venv',
  'venv',
  '__pycache__',
  '.next',
  'coverage',
]);

/** A line pattern, the symbol kind ('$1' takes it from the first group) and the name's group. */
type Rule = [RegExp, string, number];

const JS_RULES: Rule[] = [
  [/^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/, 'function', 1],
  [/^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/, 'class', 1],
  [/^(?:export\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/, 'interface', 1],
  [/^(?:export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/, 'type', 1],
  [/^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/, 'enum', 1],
  [/^(?:export\s+)?(?:declare\s+)?(const|let|var)\s+([A-Za-z_$][\w$]*)/, 'const', 2],
];
const PY_RULES: Rule[] = [
  [/^(?:async\s+)?def\s+([A-Za-z_]\w*)/, 'def', 1],
  [/^class\s+([A-Za-z_]\w*)/, 'class', 1],
];
const GO_RULES: Rule[] = [
  [/^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, 'func', 1],
  [/^type\s+([A-Za-z_]\w*)\s+struct\b/, 'struct', 1],
  [/^type\s+([A-Za-z_]\w*)\s+interface\b/, 'interface', 1],
  [/^type\s+([A-Za-z_]\w*)\s/, 'type', 1],
];
const RS_RULES: Rule[] = [
  [/^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/, 'fn', 1],
  [/^(?:pub(?:\([^)]*\))?\s+)?struct\s+([A-Za-z_]\w*)/, 'struct', 1],
  [/^(?:pub(?:\([^)]*\))?\s+)?enum\s+([A-Za-z_]\w*)/, 'enum', 1],
  [/^(?:pub(?:\([^)]*\))?\s+)?trait\s+([A-Za-z_]\w*)/, 'trait', 1],
];
const JVM_RULES: Rule[] = [
  [/^(?:public\s+|internal\s+|private\s+)?(?:abstract\s+|final\s+|data\s+|sealed\s+|open\s+)*(class|interface|enum|object|record)\s+([A-Za-z_]\w*)/, '$1', 2],
  [/^(?:public\s+|private\s+|internal\s+)?fun\s+([A-Za-z_]\w*)/, 'fun', 1],
];
const RB_RULES: Rule[] = [
  [/^def\s+(?:self\.)?([A-Za-z_]\w*[?!]?)/, 'def', 1],
  [/^(class|module)\s+([A-Z]\w*)/, '$1', 2],
];

const RULES_BY_EXT: Record<string, Rule[]> = {
  '.ts': JS_RULES,
  '.tsx': JS_RULES,
  '.mts': JS_RULES,
  '.cts': JS_RULES,
  '.js': JS_RULES,
  '.jsx': JS_RULES,
  '.mjs': JS_RULES,
  '.cjs': JS_RULES,
  '.py': PY_RULES,
  '.go': GO_RULES,
  '.rs': RS_RULES,
  '.java': JVM_RULES,
  '.kt': JVM_RULES,
  '.cs': JVM_RULES,
  '.rb': RB_RULES,
};

/** Top-level symbols of one source text; `ext` selects the language rules (with the dot). */
export function extractSymbols(file: string, ext: string, text: string): CodeSymbol[] {
  const rules = RULES_BY_EXT[ext];
  if (!rules) return [];
  const out: CodeSymbol[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length === 0 || line[0] === ' ' || line[0] === '\t') continue;
    for (const [re, kind, group] of rules) {
      const m = re.exec(line);
      if (m) {
        out.push({ file, symbol: m[group], kind: kind === '$1' ? m[1] : kind, line: i + 1 });
        break;
      }
    }
  }
  return out;
}

/**
 * Scan a directory for the top-level symbols of its source files (TypeScript/JavaScript, Python,
 * Go, Rust, Java/Kotlin/C#, Ruby), in sorted path order, skipping node_modules, .git, dist and
 * other build output and never following symlinks. Bounded by a file count, a byte total and a
 * count of directories read: a file that would cross the byte bound is skipped, and the result is
 * marked truncated when any bound was met.
 */
export function scanCodeSymbols(root: string, opts: ScanOptions = {}): ScanResult {
  const maxFiles = opts.maxFiles ?? 500;
  const maxBytes = opts.maxBytes ?? 2_000_000;
  const maxDirs = opts.maxDirs ?? 2_000;
  const result: ScanResult = { symbols: [], files: 0, bytes: 0, truncated: false };
  let dirs = 0;
  const base = path.resolve(root);
  if (!fs.existsSync(base) || !fs.statSync(base).isDirectory()) return result;
  const stack: string[] = [base];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    if (dirs >= maxDirs) {
      result.truncated = true;
      return result;
    }
    dirs++;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) subdirs.push(abs);
        continue;
      }
      if (!e.isFile()) continue;
      const ext = path.extname(e.name).toLowerCase();
      if (!RULES_BY_EXT[ext] || e.name.endsWith('.d.ts') || e.name.endsWith('.min.js')) continue;
      if (result.files >= maxFiles) {
        result.truncated = true;
        return result;
      }
      let size: number;
      try {
        size = fs.statSync(abs).size;
      } catch {
        continue;
      }
      if (result.bytes + size > maxBytes) {
        result.truncated = true;
        continue;
      }
      let text: string;
      try {
        text = fs.readFileSync(abs, 'utf8');
      } catch {
        continue;
      }
      result.files += 1;
      result.bytes += size;
      const rel = path.relative(base, abs).split(path.sep).join('/');
      result.symbols.push(...extractSymbols(rel, ext, text));
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
  return result;
}
