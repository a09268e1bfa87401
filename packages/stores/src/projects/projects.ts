import type { AuditLog } from '../audit.js';
import type { StoreContext } from '../context.js';
import { notFound } from '../errors.js';
import { checkText } from '../util.js';
import type { CodeSymbol } from './code-symbols.js';

export interface Project {
  name: string;
  status: string;
  path: string | null;
  description: string;
  created: string;
  updated: string;
}

export interface ProjectDecision {
  id: number;
  decision: string;
  rationale: string;
  outcome: string;
  ts: string;
}

export interface ProjectArtifact {
  id: number;
  path: string;
  role: string;
  status: string;
  ts: string;
}

/** The longest artifact file path, in characters. */
export const ARTIFACT_PATH_MAX = 1000;

function checkName(name: unknown): string {
  return checkText(name, 'name', 200).trim();
}

/** Projects: global records keyed by name (no layer or user split), with decisions, artifacts and a code-symbol index. */
export class ProjectStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
  ) {}

  /** Create the identity row, or return the existing one. */
  init(name: string, opts: { path?: string | null; description?: string; status?: string } = {}): Project & { existed: boolean } {
    const n = checkName(name);
    return this.ctx.tx(() => {
      const existing = this.get(n);
      if (existing) return { ...existing, existed: true };
      const now = this.ctx.iso();
      this.ctx
        .stmt('INSERT INTO projects (name, status, path, description, created, updated) VALUES (?, ?, ?, ?, ?, ?)')
        .run(n, opts.status ?? 'active', opts.path ?? null, opts.description ?? '', now, now);
      this.audit.log(null, 'create', 'project', n, { path: opts.path ?? null });
      return { ...(this.get(n) as Project), existed: false };
    });
  }

  get(name: string): Project | null {
    const r = this.ctx.stmt('SELECT * FROM projects WHERE name = ?').get(checkName(name)) as Project | undefined;
    return r ?? null;
  }

  /** All projects, most recently updated first. */
  list(limit = 100): Project[] {
    return this.ctx.stmt('SELECT * FROM projects ORDER BY updated DESC, name LIMIT ?').all(Math.max(0, Math.floor(limit))) as Project[];
  }

  update(name: string, patch: { status?: string; path?: string | null; description?: string }): Project {
    const n = checkName(name);
    return this.ctx.tx(() => {
      const p = this.get(n);
      if (!p) throw notFound('project', n);
      const next = {
        status: patch.status ?? p.status,
        path: patch.path === undefined ? p.path : patch.path,
        description: patch.description ?? p.description,
      };
      this.ctx
        .stmt('UPDATE projects SET status = ?, path = ?, description = ?, updated = ? WHERE name = ?')
        .run(next.status, next.path, next.description, this.ctx.iso(), n);
      this.audit.log(null, 'update', 'project', n, patch);
      return this.get(n) as Project;
    });
  }

  addDecision(name: string, input: { decision: string; rationale?: string; outcome?: string }): ProjectDecision {
    const n = checkName(name);
    const decision = checkText(input.decision, 'decision', this.ctx.config.maxTextChars);
    return this.ctx.tx(() => {
      if (!this.get(n)) throw notFound('project', n);
      const ts = this.ctx.iso();
      const info = this.ctx
        .stmt('INSERT INTO project_decisions (project, decision, rationale, outcome, ts) VALUES (?, ?, ?, ?, ?)')
        .run(n, decision, input.rationale ?? '', input.outcome ?? '', ts);
      this.touchProject(n, ts);
      this.audit.log(null, 'decision', 'project', n, { decision });
      return this.ctx
        .stmt('SELECT id, decision, rationale, outcome, ts FROM project_decisions WHERE id = ?')
        .get(info.lastInsertRowid) as ProjectDecision;
    });
  }

  /**
   * Register (or update by path) an artifact of the project. Updating one keeps the role and status
   * it has where the input leaves them out.
   */
  addArtifact(name: string, input: { path: string; role?: string; status?: string }): ProjectArtifact {
    const n = checkName(name);
    const p = checkText(input.path, 'path', ARTIFACT_PATH_MAX);
    return this.ctx.tx(() => {
      if (!this.get(n)) throw notFound('project', n);
      const ts = this.ctx.iso();
      this.ctx
        .stmt(
          `INSERT INTO project_artifacts (project, path, role, status, ts) VALUES (@project, @path, coalesce(@role, ''), coalesce(@status, ''), @ts)
           ON CONFLICT (project, path) DO UPDATE SET role = coalesce(@role, role), status = coalesce(@status, status), ts = excluded.ts`,
        )
        .run({ project: n, path: p, role: input.role ?? null, status: input.status ?? null, ts });
      this.touchProject(n, ts);
      this.audit.log(null, 'artifact', 'project', n, { path: p });
      return this.ctx
        .stmt('SELECT id, path, role, status, ts FROM project_artifacts WHERE project = ? AND path = ?')
        .get(n, p) as ProjectArtifact;
    });
  }

  /** Replace the project's code-symbol index; returns the number stored. */
  replaceSymbols(name: string, symbols: readonly CodeSymbol[]): number {
    const n = checkName(name);
    return this.ctx.tx(() => {
      if (!this.get(n)) throw notFound('project', n);
      this.ctx.stmt('DELETE FROM project_symbols WHERE project = ?').run(n);
      const st = this.ctx.stmt('INSERT INTO project_symbols (project, file, symbol, kind, line) VALUES (?, ?, ?, ?, ?)');
      for (const s of symbols) st.run(n, s.file, s.symbol, s.kind, s.line);
      this.touchProject(n, this.ctx.iso());
      this.audit.log(null, 'code_map', 'project', n, { symbols: symbols.length });
      return symbols.length;
    });
  }

  /** The latest `limit` decisions of the project, oldest of them first. */
  decisions(name: string, limit = 200): ProjectDecision[] {
    return this.ctx
      .stmt(
        `SELECT * FROM (SELECT id, decision, rationale, outcome, ts FROM project_decisions WHERE project = ? ORDER BY id DESC LIMIT ?)
         ORDER BY id`,
      )
      .all(checkName(name), Math.max(0, Math.floor(limit))) as ProjectDecision[];
  }

  decisionCount(name: string): number {
    return (this.ctx.stmt('SELECT COUNT(*) AS n FROM project_decisions WHERE project = ?').get(checkName(name)) as { n: number }).n;
  }

  /** The `limit` artifacts of the project registered or updated last, in path order. */
  artifacts(name: string, limit = 200): ProjectArtifact[] {
    return this.ctx
      .stmt(
        `SELECT * FROM (SELECT id, path, role, status, ts FROM project_artifacts WHERE project = ? ORDER BY ts DESC, id DESC LIMIT ?)
         ORDER BY path`,
      )
      .all(checkName(name), Math.max(0, Math.floor(limit))) as ProjectArtifact[];
  }

  artifactCount(name: string): number {
    return (this.ctx.stmt('SELECT COUNT(*) AS n FROM project_artifacts WHERE project = ?').get(checkName(name)) as { n: number }).n;
  }

  symbols(name: string, limit = 1000): CodeSymbol[] {
    return this.ctx
      .stmt('SELECT file, symbol, kind, line FROM project_symbols WHERE project = ? ORDER BY file, line LIMIT ?')
      .all(checkName(name), Math.max(0, Math.floor(limit))) as CodeSymbol[];
  }

  symbolCount(name: string): number {
    return (this.ctx.stmt('SELECT COUNT(*) AS n FROM project_symbols WHERE project = ?').get(checkName(name)) as { n: number }).n;
  }

  /** Mark the project archived (its rows are kept). */
  archive(name: string): Project {
    return this.update(name, { status: 'archived' });
  }

  private touchProject(name: string, ts: string): void {
    this.ctx.stmt('UPDATE projects SET updated = ? WHERE name = ?').run(ts, name);
  }
}
