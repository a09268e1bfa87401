import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Storage } from '@memory-service/kernel';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actionsIn, count, snapshot, start, toolError, type TestServer } from './helpers.js';

/** project: init, decision, mapping, update (code map), recall, audit, archive, and its errors. */
let s: TestServer;
let codeDir: string;
beforeAll(() => {
  codeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'primitives-project-'));
  fs.writeFileSync(
    path.join(codeDir, 'server.ts'),
    'export function startServer(port: number) {\n  return port;\n}\nexport class Router {}\nexport interface Route { path: string }\n',
  );
  fs.mkdirSync(path.join(codeDir, 'tools'));
  fs.writeFileSync(path.join(codeDir, 'tools', 'report.py'), 'def build_report(rows):\n    return rows\n\nclass Reporter:\n    pass\n');
  fs.mkdirSync(path.join(codeDir, 'node_modules'));
  fs.writeFileSync(path.join(codeDir, 'node_modules', 'dep.ts'), 'export function ignored() {}\n');
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

describe('init', () => {
  it('creates a project_spec wiki page and an identity row', async () => {
    const r = await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    expect(r.status).toBe('created');
    expect(r.identity).toMatchObject({ name: 'Apollo', status: 'active' });
    const page = s.kernel.storage.db.prepare('SELECT title, wiki_type, path FROM wiki_pages').get() as { title: string; wiki_type: string; path: string };
    expect(page).toMatchObject({ title: 'Project: Apollo', wiki_type: 'project_spec', path: r.wiki_ref.path });
    expect(fs.readFileSync(path.join(s.dataDir, page.path), 'utf8')).toContain('A rocket telemetry dashboard.');
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: 'Apollo' }]);
  });

  // Regression guard, fixed: init of a project that exists answered status "exists" and dropped the details, status and
  // path it was given without a word, so a description written at that call was lost.
  it('init of an existing project changes nothing and warns naming the fields it did not use', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'First description.' });
    const r = await project({ action: 'init', name: 'Apollo', details: 'Second description.', status: 'paused', path: codeDir });
    expect(r.status).toBe('exists');
    expect(r.identity).toMatchObject({ description: 'First description.', status: 'active', path: null });
    expect(r.ignored).toEqual(['details', 'status', 'path']);
    expect(r.warning).toMatch(/details, status, path/);
    expect(r.warning).toMatch(/action update/);
    const plain = await project({ action: 'init', name: 'Apollo' });
    expect(plain.warning).toBeUndefined();
    expect(plain.ignored).toBeUndefined();
  });

  it('a second init reports the project exists', async () => {
    await project({ action: 'init', name: 'Apollo' });
    expect((await project({ action: 'init', name: 'Apollo' })).status).toBe('exists');
    expect(count(s, 'wiki_pages')).toBe(1);
  });
});

describe('decision, mapping and recall', () => {
  it('a decision logs a project_decision event and recall shows it', async () => {
    await project({ action: 'init', name: 'Apollo' });
    await project({ action: 'decision', name: 'Apollo', details: 'Use Postgres. It handles the telemetry volume.', outcome: 'adopted' });
    const ev = s.kernel.storage.db.prepare("SELECT summary FROM timeline_events WHERE type = 'project_decision'").all();
    expect(ev).toEqual([{ summary: 'Apollo: Use Postgres.' }]);
    const r = await project({ action: 'recall', name: 'Apollo' });
    expect(r.decisions).toEqual([expect.objectContaining({ decision: 'Use Postgres.', rationale: 'It handles the telemetry volume.', outcome: 'adopted' })]);
  });

  // Regression guard, fixed: the project_decision event went on the timeline with metadata { project, decision_id,
  // outcome } and no training_value, which every temporal event is to carry (high, medium or low).
  it('the decision\'s timeline event carries a training_value of high, medium or low', async () => {
    await project({ action: 'init', name: 'P', details: 'A small service.' });
    await project({ action: 'decision', name: 'P', details: 'Use Go. Fast.' });
    const stores = s.kernel.container.resolve<{ timeline: { latest(scope: object, n: number): { type: string; summary: string; metadata: Record<string, unknown> }[] } }>('stores');
    const events = stores.timeline.latest({ layer: 'user', user_id: 'default' }, 50).filter((e) => e.type === 'project_decision');
    expect(events.map((e) => e.summary)).toEqual(['P: Use Go.']);
    expect(events[0]!.metadata).toMatchObject({ project: 'P', training_value: expect.stringMatching(/^(high|medium|low)$/) });
    // As stored in the database, not only as the store reads it back.
    const rows = s.kernel.storage.db.prepare("SELECT metadata FROM timeline_events WHERE type = 'project_decision'").all() as { metadata: string }[];
    expect(rows.map((r) => JSON.parse(r.metadata).training_value)).toEqual([expect.stringMatching(/^(high|medium|low)$/)]);
  });

  // Regression guard, fixed: the decision was cut at the first ". " whatever came before it, so "Hire Dr. Smith ..."
  // was recorded (and logged on the timeline) as the decision "Hire Dr." with the rest as its rationale.
  it('the decision is not cut at an abbreviation or an initial', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const cases: [string, string, string][] = [
      ['Hire Dr. Smith for the review. She knows the telemetry code.', 'Hire Dr. Smith for the review.', 'She knows the telemetry code.'],
      ['Pick Postgres vs. MySQL by load, e.g. writes per second. Measured in March.', 'Pick Postgres vs. MySQL by load, e.g. writes per second.', 'Measured in March.'],
      ['Ask Mr. J. Jones about tokens, keys etc. before launch. He owns security.', 'Ask Mr. J. Jones about tokens, keys etc. before launch.', 'He owns security.'],
    ];
    for (const [details, decision, rationale] of cases) {
      const r = await project({ action: 'decision', name: 'Apollo', details });
      expect(r.decisions[0]).toMatchObject({ decision, rationale });
    }
    const ev = s.kernel.storage.db.prepare("SELECT summary FROM timeline_events WHERE type = 'project_decision' ORDER BY id").all();
    expect(ev).toEqual(cases.map(([, decision]) => ({ summary: `Apollo: ${decision}` })));
  });

  // Regression guard, fixed: recall and audit listed the first 200 decisions, oldest first, and said nothing of the
  // rest: from the 201st on, a newly recorded decision never showed, nor counted as audit evidence.
  it('recall and audit show the latest 200 decisions, oldest of them first, and count them all', async () => {
    await project({ action: 'init', name: 'Apollo' });
    for (let i = 1; i <= 204; i++) await project({ action: 'decision', name: 'Apollo', details: `Decision number ${i}.` });
    await project({ action: 'decision', name: 'Apollo', details: 'Add a security review of the token handling.' });
    const r = await project({ action: 'recall', name: 'Apollo' });
    expect(r.decision_count).toBe(205);
    expect(r.decisions).toHaveLength(200);
    expect(r.decisions[0].decision).toBe('Decision number 6.');
    expect(r.decisions.at(-1).decision).toBe('Add a security review of the token handling.');
    const a = await project({ action: 'audit', name: 'Apollo' });
    expect(a.decision_count).toBe(205);
    expect(a.decisions.at(-1).decision).toBe('Add a security review of the token handling.');
    expect(a.dimensions.find((d: { dimension: string }) => d.dimension === 'Security').decisions).toEqual(['Add a security review of the token handling.']);
  });

  it('mapping adds an artifact', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const m = await project({ action: 'mapping', name: 'Apollo', details: 'src/server.ts', role: 'entry point', status: 'done' });
    expect(m.status).toBe('mapped');
    const r = await project({ action: 'recall', name: 'Apollo' });
    expect(r.artifacts).toEqual([expect.objectContaining({ path: 'src/server.ts', role: 'entry point', status: 'done' })]);
  });

  // Regression guard, fixed: mapping a path again set the role (or status) the call left out to "", so registering
  // the status of a file dropped the role stored for it.
  it('mapping a path again keeps the role and status the call leaves out', async () => {
    await project({ action: 'init', name: 'Apollo' });
    await project({ action: 'mapping', name: 'Apollo', details: 'src/server.ts', role: 'entry point', status: 'draft' });
    const m = await project({ action: 'mapping', name: 'Apollo', details: 'src/server.ts', status: 'done' });
    expect(m.artifacts).toEqual([expect.objectContaining({ path: 'src/server.ts', role: 'entry point', status: 'done' })]);
    await project({ action: 'mapping', name: 'Apollo', details: 'src/server.ts', role: 'server' });
    const r = await project({ action: 'recall', name: 'Apollo' });
    expect(r.artifacts).toEqual([expect.objectContaining({ path: 'src/server.ts', role: 'server', status: 'done' })]);
    expect(r.artifact_count).toBe(1);
  });

  // Regression guard, fixed: recall and audit answered every artifact ever mapped, so a project's answer grew without
  // bound (each path up to 1000 characters) with every mapping.
  it('recall and audit show the 200 artifacts mapped last, in path order, and count them all', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const file = (i: number) => `src/file-${String(i).padStart(3, '0')}.ts`;
    for (let i = 1; i <= 204; i++) await project({ action: 'mapping', name: 'Apollo', details: file(i), role: 'module' });
    await project({ action: 'mapping', name: 'Apollo', details: 'src/auth/token.ts', role: 'security' });
    const shown = [...Array.from({ length: 199 }, (_, i) => file(i + 6)), 'src/auth/token.ts'].sort();
    const r = await project({ action: 'recall', name: 'Apollo' });
    expect(r.artifact_count).toBe(205);
    expect(r.artifacts.map((a: { path: string }) => a.path)).toEqual(shown);
    const a = await project({ action: 'audit', name: 'Apollo' });
    expect(a.artifact_count).toBe(205);
    expect(a.artifacts).toHaveLength(200);
    expect(a.dimensions.find((d: { dimension: string }) => d.dimension === 'Security').artifacts).toEqual(['src/auth/token.ts']);
  });

  it('mapping without details is an error naming details', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const err = await toolError(project({ action: 'mapping', name: 'Apollo' }));
    expect(err.field).toBe('details');
  });

  it('an unknown project is a NotFound error naming name', async () => {
    const before = snapshot(s);
    for (const action of ['recall', 'decision', 'mapping', 'audit', 'archive', 'update']) {
      const details = ['recall', 'audit', 'archive'].includes(action) ? {} : { details: 'x' };
      const err = await toolError(project({ action, name: 'Nope', ...details }));
      expect(err.type, action).toBe('NotFoundError');
      expect(err.field, action).toBe('name');
    }
    expect(snapshot(s)).toEqual(before);
  });
});

describe('the write lock', () => {
  it('recall, audit and the code map scan of update do not wait for another process holding the write lock', async () => {
    await project({ action: 'init', name: 'Locked', details: 'A project read while another process writes.' });
    const other = new Storage(s.dataDir);
    other.db.exec('BEGIN IMMEDIATE');
    try {
      // In a transaction of the call, each of these waited for the lock (busy_timeout) and failed.
      expect((await project({ action: 'recall', name: 'Locked' })).identity).toMatchObject({ name: 'Locked' });
      expect((await project({ action: 'audit', name: 'Locked' })).project).toBe('Locked');
    } finally {
      other.db.exec('ROLLBACK');
      other.close();
    }
    // Writes go on once the lock is free, and the scan's symbols are stored.
    const r = await project({ action: 'update', name: 'Locked', path: codeDir });
    expect(r.code_map.symbols).toBeGreaterThan(0);
  });
});

describe('update', () => {
  it('with a path fills the code map, skipping node_modules', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const r = await project({ action: 'update', name: 'Apollo', path: codeDir, details: 'Now with reports.' });
    expect(r.status).toBe('updated');
    expect(r.code_map.files).toBe(2);
    const names = r.code_map.sample.map((x: { symbol: string }) => x.symbol).sort();
    expect(names).toEqual(['Reporter', 'Route', 'Router', 'build_report', 'startServer']);
    const recall = await project({ action: 'recall', name: 'Apollo' });
    expect(recall.code_symbol_count).toBe(5);
    expect(recall.identity.description).toContain('Now with reports.');
  });

  // Regression guard, fixed: update without path rescanned the stored path even when it no longer existed, and the
  // scan of a missing directory is empty, so the code map was wiped with no error or warning.
  it('a stored path that no longer exists keeps the code map, and the answer warns naming the path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'primitives-project-gone-'));
    const moved = `${dir}-moved`;
    try {
      fs.writeFileSync(path.join(dir, 'main.ts'), 'export function main() {}\n');
      await project({ action: 'init', name: 'Gone', path: dir });
      expect((await project({ action: 'update', name: 'Gone', path: dir })).code_map.symbols).toBe(1);
      expect((await project({ action: 'recall', name: 'Gone' })).code_symbol_count).toBe(1);
      fs.renameSync(dir, moved);
      const r = await project({ action: 'update', name: 'Gone', status: 'paused' });
      expect(r.status).toBe('updated');
      expect(r.identity).toMatchObject({ status: 'paused', path: dir });
      expect(r.code_map).toBeNull();
      expect(r.warning).toContain(dir);
      const recall = await project({ action: 'recall', name: 'Gone' });
      expect(recall.code_symbol_count).toBe(1);
      expect(recall.identity.status).toBe('paused');
      // An explicit path that does not exist is still refused.
      expect((await toolError(project({ action: 'update', name: 'Gone', path: dir }))).field).toBe('path');
      // Once the directory is back, update rescans it and says nothing more.
      fs.renameSync(moved, dir);
      const back = await project({ action: 'update', name: 'Gone' });
      expect(back.code_map.symbols).toBe(1);
      expect(back.warning).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(moved, { recursive: true, force: true });
    }
  });

  // Regression guard, fixed: a relative path ("src/app", "./x") was resolved against the server process's working
  // directory, which the caller does not know, so the code map could come from another directory than the one meant.
  it('a relative path is an error naming path that says an absolute path is accepted, and nothing is written', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const cwd = process.cwd();
    try {
      // Even a relative path that names an existing directory from the server's working directory is refused.
      process.chdir(path.dirname(codeDir));
      const before = snapshot(s);
      for (const rel of [path.basename(codeDir), `./${path.basename(codeDir)}`, 'src/app', '.', '..']) {
        for (const action of ['update', 'init']) {
          const err = await toolError(project({ action, name: action === 'init' ? 'Hermes' : 'Apollo', path: rel }));
          expect(err.type, `${action} ${rel}`).toBe('ValidationError');
          expect(err.field, `${action} ${rel}`).toBe('path');
          expect(err.message, `${action} ${rel}`).toMatch(/absolute path/);
        }
      }
      expect(snapshot(s)).toEqual(before);
      expect((await project({ action: 'recall', name: 'Apollo' })).identity.path).toBeNull();
      expect(s.kernel.storage.db.prepare("SELECT name FROM projects WHERE name = 'Hermes'").get()).toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
    expect((await project({ action: 'update', name: 'Apollo', path: codeDir })).identity.path).toBe(codeDir);
  });

  it('a path that is not a directory is an error naming path', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const err = await toolError(project({ action: 'update', name: 'Apollo', path: path.join(codeDir, 'server.ts') }));
    expect(err.field).toBe('path');
  });
});

describe('audit', () => {
  it('returns the three dimensions with verdicts and a conflicts list', async () => {
    await project({ action: 'init', name: 'Apollo' });
    await project({ action: 'decision', name: 'Apollo', details: 'Use token authentication for the API. Security review asked for it.' });
    await project({ action: 'decision', name: 'Apollo', details: 'Encrypt secrets at rest.' });
    await project({ action: 'mapping', name: 'Apollo', details: 'test/server.test.ts', role: 'regression tests' });
    await s.call('think', { text: 'Remember: Apollo deadline must be on May 3', layer: 'user' });
    await s.call('think', { text: 'Remember: Apollo deadline must be on May 9', layer: 'user' });
    const r = await project({ action: 'audit', name: 'Apollo' });
    expect(r.dimensions.map((d: { dimension: string }) => d.dimension)).toEqual(['Architecture', 'Security', 'Testing']);
    const verdict = Object.fromEntries(r.dimensions.map((d: { dimension: string; verdict: string }) => [d.dimension, d.verdict]));
    expect(verdict.Security).toBe('covered');
    expect(['partial', 'covered']).toContain(verdict.Testing);
    for (const v of Object.values(verdict)) expect(['covered', 'partial', 'gap']).toContain(v);
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0].values.map((v: { value: string }) => v.value).sort()).toEqual([
      'Remember: Apollo deadline must be on May 3',
      'Remember: Apollo deadline must be on May 9',
    ]);
    expect(r.status).toBe('incomplete');
  });

  // Regression guard, fixed: audit matched its words as the start of any word, so a city guide's "author" and
  // "cinema" were Security evidence ("auth", "ci") and "city" and "testament" Testing evidence: gaps answered covered.
  it('matches its words whole (with their plural, -ed and -ing forms), not as the start of another word', async () => {
    const verdicts = async (name: string) =>
      Object.fromEntries((await project({ action: 'audit', name })).dimensions.map((d: { dimension: string; verdict: string }) => [d.dimension, d.verdict]));
    await project({ action: 'init', name: 'Guide', details: 'A city guide.' });
    await project({ action: 'decision', name: 'Guide', details: 'Hire the author of the city guide. She knows the circus district.' });
    await project({ action: 'decision', name: 'Guide', details: 'Ship the apiary chapter in the testament edition.' });
    await project({ action: 'mapping', name: 'Guide', details: 'chapters/cinema.md', role: 'authored text' });
    expect(await verdicts('Guide')).toEqual({ Architecture: 'gap', Security: 'gap', Testing: 'gap' });
    await project({ action: 'init', name: 'Ledger' });
    await project({ action: 'decision', name: 'Ledger', details: 'Designed the modules around one schema. Components stay small.' });
    await project({ action: 'decision', name: 'Ledger', details: 'Only authenticated users get tokens. Secrets are encrypted.' });
    await project({ action: 'mapping', name: 'Ledger', details: 'tests/test_login.py', role: 'unit tests' });
    await project({ action: 'mapping', name: 'Ledger', details: 'src/authService.ts' });
    expect(await verdicts('Ledger')).toEqual({ Architecture: 'partial', Security: 'covered', Testing: 'partial' });
  });

  it('an empty project has gaps and no conflicts', async () => {
    await project({ action: 'init', name: 'Hermes' });
    const r = await project({ action: 'audit', name: 'Hermes' });
    expect(r.dimensions.every((d: { verdict: string }) => d.verdict === 'gap')).toBe(true);
    expect(r.conflicts).toEqual([]);
  });
});

describe('archive', () => {
  it('moves the spec page to the Shadow Bin and removes the file', async () => {
    const init = await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    const file = path.join(s.dataDir, init.wiki_ref.path);
    expect(fs.existsSync(file)).toBe(true);
    const r = await project({ action: 'archive', name: 'Apollo' });
    expect(r.status).toBe('archived');
    expect(fs.existsSync(file)).toBe(false);
    expect(count(s, 'wiki_pages')).toBe(0);
    const bin = s.kernel.storage.db.prepare('SELECT origin_store, content FROM shadow_bin').all() as { origin_store: string; content: string }[];
    expect(bin).toHaveLength(1);
    expect(bin[0]!.origin_store).toBe('wiki');
    expect(JSON.parse(bin[0]!.content).content).toContain('A rocket telemetry dashboard.');
    expect((await project({ action: 'recall', name: 'Apollo' })).status).toBe('archived');
  });

  // Regression guard, fixed: update of an archived project wrote its spec page back (and init wrote it back saying
  // "Status: archived"), so an archived project lived on in the wiki while its row still said archived.
  it('update of an archived project is a ConflictError naming it, and writes nothing', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    await project({ action: 'update', name: 'Apollo', path: codeDir });
    await project({ action: 'archive', name: 'Apollo' });
    const row = () => s.kernel.storage.db.prepare('SELECT * FROM projects').all();
    const symbols = () => s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM project_symbols').get();
    const before = [row(), symbols(), snapshot(s)];
    for (const args of [{}, { details: 'More.' }, { status: 'active' }, { path: codeDir }]) {
      const err = await toolError(project({ action: 'update', name: 'Apollo', ...args }));
      expect(err.type, JSON.stringify(args)).toBe('ConflictError');
      expect(err.field).toBe('name');
      expect(err.message).toMatch(/"Apollo" is archived/);
      expect(err.message).toMatch(/action init/);
    }
    expect([row(), symbols(), snapshot(s)]).toEqual(before);
    expect(count(s, 'wiki_pages')).toBe(0);
  });

  // Regression guard, fixed: update with status "archived" marked the project archived in its row but left its spec
  // pages in the wiki saying "Status: archived" (archive moves them to the Shadow Bin), and update could not undo it.
  it('update with status "archived" is a ValidationError naming status and action archive, and writes nothing', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    await project({ action: 'update', name: 'Apollo', path: codeDir });
    await project({ action: 'update', name: 'Apollo', details: 'Bob keeps a copy.', user_id: 'bob' });
    const row = () => s.kernel.storage.db.prepare('SELECT * FROM projects').all();
    const symbols = () => s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM project_symbols').get();
    const pages = () => s.kernel.storage.db.prepare('SELECT user_id, content, path FROM wiki_pages ORDER BY id').all() as { content: string; path: string }[];
    const files = () => pages().map((p) => fs.readFileSync(path.join(s.dataDir, p.path), 'utf8'));
    const before = [row(), symbols(), snapshot(s), pages(), files()];
    for (const args of [{ status: 'archived' }, { status: 'archived', details: 'Done.', path: codeDir }]) {
      const err = await toolError(project({ action: 'update', name: 'Apollo', ...args }));
      expect(err.type, JSON.stringify(args)).toBe('ValidationError');
      expect(err.field).toBe('status');
      expect(err.message).toMatch(/action archive/);
    }
    expect([row(), symbols(), snapshot(s), pages(), files()]).toEqual(before);
    for (const text of files()) expect(text).toContain('Status: active');
    expect((await project({ action: 'recall', name: 'Apollo' })).status).toBe('active');
    expect(count(s, 'wiki_pages')).toBe(2);
    expect(count(s, 'shadow_bin')).toBe(0);
    // archive is the way, and other statuses are still taken by update.
    expect((await project({ action: 'update', name: 'Apollo', status: 'paused' })).identity.status).toBe('paused');
    expect((await project({ action: 'archive', name: 'Apollo' })).removed_pages).toBe(2);
  });

  // Regression guard, fixed: init of a new project with status "archived" created it archived, with spec pages saying
  // "Status: archived" that archive never moved; update then refused it as archived and init "reopened" it.
  it('init of a new project with status "archived" is a ValidationError naming status, and writes nothing', async () => {
    const before = snapshot(s);
    const err = await toolError(project({ action: 'init', name: 'Born archived', status: 'archived', details: 'Never started.' }));
    expect(err.type).toBe('ValidationError');
    expect(err.field).toBe('status');
    expect(err.message).toMatch(/action archive/);
    expect(snapshot(s)).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM projects').get()).toEqual({ n: 0 });
    // Given to a project that exists (and is open), init still changes nothing and says so.
    await project({ action: 'init', name: 'Open', details: 'Started.' });
    const again = await project({ action: 'init', name: 'Open', status: 'archived' });
    expect(again).toMatchObject({ status: 'exists', ignored: ['status'], identity: { status: 'active' } });
  });

  it('init reopens an archived project: status active (or the one given), its spec page written again', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    await project({ action: 'archive', name: 'Apollo' });
    const refused = await toolError(project({ action: 'init', name: 'Apollo', status: 'archived' }));
    expect(refused.field).toBe('status');
    expect(count(s, 'wiki_pages')).toBe(0);
    const r = await project({ action: 'init', name: 'Apollo', details: 'Back in service.' });
    expect(r.status).toBe('reopened');
    expect(r.identity).toMatchObject({ status: 'active', description: 'A rocket telemetry dashboard.\n\nBack in service.' });
    expect(r.warning).toBeUndefined();
    const text = fs.readFileSync(path.join(s.dataDir, r.wiki_ref.path), 'utf8');
    expect(text).toContain('Status: active');
    expect(text).toContain('Back in service.');
    expect((await project({ action: 'update', name: 'Apollo', status: 'paused' })).identity.status).toBe('paused');
    await project({ action: 'archive', name: 'Apollo' });
    const paused = await project({ action: 'init', name: 'Apollo', status: 'paused', path: codeDir });
    expect(paused).toMatchObject({ status: 'reopened', identity: { status: 'paused', path: codeDir } });
    // A project that is not archived is still left as it is by init.
    expect((await project({ action: 'init', name: 'Apollo', status: 'active' })).status).toBe('exists');
  });
});

describe('spec pages of several users', () => {
  // Regression guard, fixed: the project is global but each user who inits or updates it gets a spec page in their own
  // wiki space, and archive removed the caller's page only: another user's page stayed, still saying "Status: active",
  // and dream and recall kept finding it for that user.
  it("archive moves every user's spec page of the project to that user's Shadow Bin and removes the files", async () => {
    const init = await project({ action: 'init', name: 'Shared', details: 'A global project.' });
    const bob = await project({ action: 'update', name: 'Shared', details: 'Bob adds a note.', user_id: 'bob', layer: 'agent' });
    expect(bob.wiki_ref.path).not.toBe(init.wiki_ref.path);
    // A page of that title that the project did not write stays.
    await s.call('think', { text: 'Carol keeps her own notes.', wiki_type: 'project_spec', wiki_title: 'Project: Shared', user_id: 'carol' });
    const files = [init.wiki_ref.path, bob.wiki_ref.path].map((p: string) => path.join(s.dataDir, p));
    for (const f of files) expect(fs.existsSync(f)).toBe(true);
    const r = await project({ action: 'archive', name: 'Shared' });
    expect(r.status).toBe('archived');
    expect(r.removed_pages).toBe(2);
    for (const f of files) expect(fs.existsSync(f)).toBe(false);
    expect(s.kernel.storage.db.prepare('SELECT user_id, content FROM wiki_pages').all()).toEqual([{ user_id: 'carol', content: 'Carol keeps her own notes.' }]);
    const bin = s.kernel.storage.db.prepare('SELECT layer, user_id, origin_store FROM shadow_bin ORDER BY id').all();
    expect(bin).toEqual([
      { layer: 'user', user_id: 'default', origin_store: 'wiki' },
      { layer: 'agent', user_id: 'bob', origin_store: 'wiki' },
    ]);
    expect((await project({ action: 'recall', name: 'Shared', user_id: 'bob', layer: 'agent' })).wiki_ref).toBeNull();
    expect((await s.call('dream', { query: 'Bob adds a note', user_id: 'bob', layer: 'agent', hits: true })).hits).toEqual([]);
  });

  // Regression guard, fixed: update rewrote the caller's spec page only, so another user's page of the same global
  // project kept the old status and description.
  it("update rewrites every user's spec page of the project, leaving pages the project did not write alone", async () => {
    await project({ action: 'init', name: 'Shared', details: 'A global project.' });
    const bob = await project({ action: 'update', name: 'Shared', details: 'Bob adds a note.', user_id: 'bob' });
    await s.call('think', { text: 'Carol keeps her own notes.', wiki_type: 'project_spec', wiki_title: 'Project: Shared', user_id: 'carol' });
    await project({ action: 'update', name: 'Shared', status: 'paused', details: 'Default user pauses it.' });
    const bobPage = fs.readFileSync(path.join(s.dataDir, bob.wiki_ref.path), 'utf8');
    expect(bobPage).toContain('Status: paused');
    expect(bobPage).toContain('Default user pauses it.');
    const rows = s.kernel.storage.db.prepare('SELECT user_id, content FROM wiki_pages ORDER BY user_id').all() as { user_id: string; content: string }[];
    expect(rows.map((r) => r.user_id)).toEqual(['bob', 'carol', 'default']);
    expect(rows[0]!.content).toBe(rows[2]!.content);
    expect(rows[1]!.content).toBe('Carol keeps her own notes.');
    expect((await project({ action: 'recall', name: 'Shared', user_id: 'bob' })).wiki_ref.path).toBe(bob.wiki_ref.path);
  });
});

describe('the spec page and other wiki pages', () => {
  // Regression guard, fixed: init saves the spec page under the project name in the caller's wiki space, so an existing
  // page with that title (a diary note here) is overwritten and retyped: its content is lost.
  it('init does not overwrite an existing page that has the project name as title', async () => {
    await s.call('think', { text: 'Launch notes for the moon mission', wiki_title: 'Apollo', layer: 'user' });
    await project({ action: 'init', name: 'Apollo' });
    const contents = (s.kernel.storage.db.prepare('SELECT content FROM wiki_pages').all() as { content: string }[]).map((r) => r.content);
    expect(contents).toContain('Launch notes for the moon mission');
  });

  it("a thought titled as a project's spec page gets a page of its own, and the project keeps its page", async () => {
    await project({ action: 'init', name: 'Apollo', details: 'Moon landing spec: keep this.' });
    const pages = () => s.kernel.storage.db.prepare('SELECT title, content FROM wiki_pages ORDER BY id').all() as { title: string; content: string }[];
    const [spec] = pages();
    const r = await s.call('think', { text: 'unrelated diary entry', wiki_title: spec!.title, layer: 'user' });
    expect(r.routing.rule).toBe('wiki_forced');
    expect(pages()).toEqual([spec, { title: `${spec!.title}-2`, content: 'unrelated diary entry' }]);
    const recalled = await project({ action: 'recall', name: 'Apollo' });
    expect(recalled.wiki_ref).not.toBeNull();
    await project({ action: 'update', name: 'Apollo' });
  });

  const wikiRows = () =>
    s.kernel.storage.db.prepare('SELECT layer, title, wiki_type, tags, path, content FROM wiki_pages ORDER BY id').all() as {
      layer: string;
      title: string;
      wiki_type: string;
      tags: string;
      path: string;
      content: string;
    }[];

  // Regression guard, fixed: init and update took over any project_spec page titled "Project: <name>", so a thought
  // saved there (think with wiki_type project_spec and that wiki_title) was replaced by the generated spec, row and
  // file, with no Shadow Bin copy.
  it("init refuses, naming name, rather than replace a project_spec page that think wrote under the spec page's title", async () => {
    const thought = await s.call('think', { text: 'My private notes about X that must be kept.', wiki_type: 'project_spec', wiki_title: 'Project: Xproj' });
    const [page] = wikiRows();
    expect(page).toMatchObject({ layer: 'user', title: 'Project: Xproj', wiki_type: 'project_spec', content: 'My private notes about X that must be kept.' });
    expect(actionsIn(thought, 'wiki').map((a) => a.path)).toEqual([page!.path]);
    const before = snapshot(s);
    const err = await toolError(project({ action: 'init', name: 'Xproj', details: 'init desc' }));
    expect(err.type).toBe('ConflictError');
    expect(err.field).toBe('name');
    expect(wikiRows()).toEqual([page]);
    expect(fs.readFileSync(path.join(s.dataDir, page!.path), 'utf8')).toBe('My private notes about X that must be kept.');
    expect(snapshot(s)).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([]);
  });

  it("a thought on the other layer titled as the spec page is left alone: the project makes its own page, and recall, update and archive use it", async () => {
    await s.call('think', { text: 'Agent-side notes about Xproj.', wiki_type: 'project_spec', wiki_title: 'Project: Xproj', layer: 'agent' });
    const [thought] = wikiRows();
    const init = await project({ action: 'init', name: 'Xproj', details: 'init desc' });
    expect(init.status).toBe('created');
    await project({ action: 'update', name: 'Xproj', details: 'more desc', layer: 'agent' });
    const rows = wikiRows();
    expect(rows[0]).toEqual(thought);
    expect(rows[1]).toMatchObject({ layer: 'user', title: 'Project: Xproj', path: init.wiki_ref.path });
    expect(rows[1]!.content).toContain('more desc');
    expect(fs.readFileSync(path.join(s.dataDir, thought!.path), 'utf8')).toBe('Agent-side notes about Xproj.');
    expect((await project({ action: 'recall', name: 'Xproj', layer: 'agent' })).wiki_ref.path).toBe(init.wiki_ref.path);
    const archived = await project({ action: 'archive', name: 'Xproj', layer: 'agent' });
    expect(archived.wiki_ref.path).toBe(init.wiki_ref.path);
    expect(wikiRows()).toEqual([thought]);
  });

  it('update refuses, changing nothing, when only a page the project did not write holds the spec title', async () => {
    await project({ action: 'init', name: 'Xproj', details: 'init desc', user_id: 'alice' });
    await s.call('think', { text: 'Bob keeps his own Xproj notes.', wiki_type: 'project_spec', wiki_title: 'Project: Xproj', layer: 'user', user_id: 'bob' });
    const before = wikiRows();
    const err = await toolError(project({ action: 'update', name: 'Xproj', status: 'paused', user_id: 'bob' }));
    expect(err.type).toBe('ConflictError');
    expect(err.field).toBe('name');
    expect(wikiRows()).toEqual(before);
    expect((await project({ action: 'recall', name: 'Xproj', user_id: 'alice' })).identity.status).toBe('active');
  });

  // Regression guard, fixed: projects are global, but archive looks the spec page up in the caller's layer only: a
  // project created with layer agent and archived with the default layer keeps its page.
  it('archive removes the spec page whatever layer the project was created on', async () => {
    await project({ action: 'init', name: 'Zeus', layer: 'agent' });
    const r = await project({ action: 'archive', name: 'Zeus' });
    expect(r.shadow_bin_id).not.toBeNull();
    expect(count(s, 'wiki_pages')).toBe(0);
  });
});
