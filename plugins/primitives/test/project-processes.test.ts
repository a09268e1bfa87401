import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Storage } from '@memory-service/kernel';
import type { Stores } from '@memory-service/stores';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { start, toolError, type TestServer } from './helpers.js';

/**
 * project with another process writing the same project: update scans the code map before its
 * transaction, so what another process commits in that time must be read again, not written over.
 */
let s: TestServer;
let codeDir: string;
beforeAll(() => {
  codeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'primitives-project-proc-'));
  fs.writeFileSync(path.join(codeDir, 'main.ts'), 'export function main() {}\n');
});
afterAll(() => {
  fs.rmSync(codeDir, { recursive: true, force: true });
});
beforeEach(async () => {
  s = await start();
});
afterEach(async () => {
  await s.close();
});

const project = (args: Record<string, unknown>) => s.call('project', args);

/**
 * Run `sql` on a connection of another process's own (a second Storage on the data dir) right
 * before the next call's transaction begins: the moment a write committed by another process
 * during the call's code-map scan, or while the call waited for the write lock, is first seen.
 */
function otherProcessWritesBeforeTransaction(sql: string, ...params: unknown[]): void {
  const stores = s.kernel.container.resolve<Stores>('stores');
  // project's actions write through transactionWhenFree (they wait for another process's lock without blocking).
  const own = stores.transactionWhenFree;
  stores.transactionWhenFree = function <T>(fn: () => T, wait?: Parameters<Stores['transactionWhenFree']>[1]): Promise<T> {
    stores.transactionWhenFree = own;
    const other = new Storage(s.dataDir);
    try {
      other.db.prepare(sql).run(...params);
    } finally {
      other.close();
    }
    return own.call(stores, fn, wait) as Promise<T>;
  } as Stores['transactionWhenFree'];
}

const specFile = (rel: string) => fs.readFileSync(path.join(s.dataDir, rel), 'utf8');

describe('project update while another process writes', () => {
  // Regression guard, fixed: update read the project before its code-map scan and wrote the description from that
  // read, so details another process's update added during the scan were lost.
  it("keeps the details another process's update added during the scan", async () => {
    await project({ action: 'init', name: 'Shared', details: 'Base.' });
    otherProcessWritesBeforeTransaction("UPDATE projects SET description = description || '\n\nFrom the other process.' WHERE name = 'Shared'");
    const r = await project({ action: 'update', name: 'Shared', details: 'From this process.', path: codeDir });
    expect(r.identity.description).toBe('Base.\n\nFrom the other process.\n\nFrom this process.');
    expect(r.code_map.symbols).toBe(1);
    const recall = await project({ action: 'recall', name: 'Shared' });
    expect(recall.identity.description).toBe('Base.\n\nFrom the other process.\n\nFrom this process.');
    expect(specFile(recall.wiki_ref.path)).toContain('From the other process.');
  });

  // Regression guard, fixed: update checked for an archived project before its scan only, so a project another
  // process archived meanwhile was updated and its spec page written back to the wiki saying "Status: archived".
  it('is refused, writing nothing, when another process archived the project during the scan', async () => {
    const init = await project({ action: 'init', name: 'Shared', details: 'Base.' });
    otherProcessWritesBeforeTransaction("UPDATE projects SET status = 'archived' WHERE name = 'Shared'");
    const err = await toolError(project({ action: 'update', name: 'Shared', details: 'Late.', path: codeDir }));
    expect(err.type).toBe('ConflictError');
    expect(err.field).toBe('name');
    const recall = await project({ action: 'recall', name: 'Shared' });
    expect(recall.identity).toMatchObject({ status: 'archived', description: 'Base.', path: null });
    expect(recall.code_symbol_count).toBe(0);
    expect(specFile(init.wiki_ref.path)).not.toContain('Late.');
  });

  it('does not store the scan of a stored path another process changed during it', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'primitives-project-proc-other-'));
    try {
      await project({ action: 'init', name: 'Shared', path: codeDir });
      otherProcessWritesBeforeTransaction('UPDATE projects SET path = ? WHERE name = ?', other, 'Shared');
      const r = await project({ action: 'update', name: 'Shared', details: 'More.' });
      expect(r.identity).toMatchObject({ path: other, description: 'More.' });
      expect(r.code_map).toBeNull();
      expect((await project({ action: 'recall', name: 'Shared' })).code_symbol_count).toBe(0);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('project init while another process writes', () => {
  // Regression guard, fixed: init read the project before waiting for the write lock, so a project another process
  // archived meanwhile was taken as open and its spec page written back saying "Status: archived".
  it('reopens a project another process archived before init got the write lock', async () => {
    await project({ action: 'init', name: 'Shared', details: 'Base.' });
    otherProcessWritesBeforeTransaction("UPDATE projects SET status = 'archived' WHERE name = 'Shared'");
    const r = await project({ action: 'init', name: 'Shared' });
    expect(r.status).toBe('reopened');
    expect(r.identity.status).toBe('active');
    expect(specFile(r.wiki_ref.path)).toContain('Status: active');
  });
});
