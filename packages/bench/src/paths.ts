/** Locations in the repository, resolved from this package (the same depth from src and dist). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The monorepo root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Our server's launcher script. */
export const SERVER_BIN = fileURLToPath(new URL('../../server/bin/memory-service.js', import.meta.url));

/** The compiled server the launcher imports; it exists once the server package is built. */
export const SERVER_CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));

/** The benchmark's zero-work MCP server, compiled (tests run after the build). */
export const FLOOR_SERVER = fileURLToPath(new URL('../dist/floor-server.js', import.meta.url));
/** The built wake-costs script, which is also the child it measures in (wake-costs.ts). */
export const WAKE_COSTS = fileURLToPath(new URL('../dist/wake-costs.js', import.meta.url));

/** The LoCoMo development files, kept beside the repository. */
export const LOCOMO_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'eval', 'locomo');

export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
export const DOCS_DIR = path.join(REPO_ROOT, 'docs');

/** The entry script of the reference memory server (@modelcontextprotocol/server-memory). */
export function referenceServerScript(): string {
  return createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
}

/** A fresh, empty temporary directory. */
export function freshTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/** Remove a directory made by freshTempDir. */
export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
