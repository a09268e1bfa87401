import fs from 'node:fs';
import path from 'node:path';
import { charLength, checkNoControlChars, checkNoHiddenFormat, invalid, isBlank, MemoryError, overChars, type Hooks, type Logger, type WriteWait } from '@memory-service/kernel';
import { ARTIFACT_PATH_MAX, lookupForms, scanCodeSymbols, type Fact, type Scope, type Stores, type WikiPage } from '@memory-service/stores';
import { excerpt } from '../common.js';
import { mentionsAny } from './audit-words.js';
import { firstSentence } from './first-sentence.js';

export const PROJECT_ACTIONS = ['init', 'update', 'mapping', 'decision', 'recall', 'audit', 'archive'] as const;
export type ProjectAction = (typeof PROJECT_ACTIONS)[number];

export interface ProjectInput extends Scope {
  action: ProjectAction;
  name: string;
  details?: string;
  outcome?: string;
  role?: string;
  status?: string;
  path?: string;
}

/**
 * The audit's dimensions and the words its targeted searches use; evidence mentions one of them as a
 * whole word or with a common ending (audit-words.ts).
 */
export const AUDIT_DIMENSIONS: Readonly<Record<string, string[]>> = Object.freeze({
  Architecture: ['architecture', 'architectural', 'design', 'structure', 'component', 'module', 'api', 'schema', 'database'],
  Security: [
    'security',
    'auth',
    'authentication',
    'authenticate',
    'authorization',
    'authorize',
    'secret',
    'permission',
    'encrypt',
    'encryption',
    'vulnerability',
    'vulnerabilities',
    'token',
  ],
  Testing: ['test', 'testing', 'coverage', 'ci', 'benchmark', 'regression', 'fixture'],
});

/** The title of a project's spec page. */
export const specTitle = (name: string) => `Project: ${name}`;

/** The tag marking the spec page a project wrote (the only page of its title the project may replace). */
const SPEC_TAG = 'project';
const isProjectSpec = (page: Pick<WikiPage, 'wiki_type' | 'tags'>) => page.wiki_type === 'project_spec' && page.tags.includes(SPEC_TAG);

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The optional texts of a project call: when given, each must show something (omit it to leave it out). */
const OPTIONAL_TEXTS = ['details', 'status', 'path', 'role', 'outcome'] as const;

function checkOptionalTexts(input: ProjectInput): void {
  for (const field of OPTIONAL_TEXTS) {
    const value = input[field];
    if (value !== undefined && isBlank(value)) {
      throw invalid(field, 'must not be empty or only white space and invisible characters; omit it to leave it out', 'text with a visible character');
    }
  }
}

/**
 * The fields each action takes (the tool's actionFields: the kernel refuses any other the call
 * gives, naming it, before the action runs); recall, audit and archive take only the name.
 */
export const PROJECT_FIELDS = {
  init: ['name', 'details', 'status', 'path'],
  update: ['name', 'details', 'status', 'path'],
  mapping: ['name', 'details', 'role', 'status'],
  decision: ['name', 'details', 'outcome'],
  recall: ['name'],
  audit: ['name'],
  archive: ['name'],
} as const satisfies Readonly<Record<ProjectAction, readonly (keyof ProjectInput)[]>>;

/**
 * The texts of a project call hold no control character (C0, DEL, C1), naming the field: the
 * name and the one-line fields (path, role, status, and details when it is a mapping's file path)
 * none at all, the free texts (details as description or decision, outcome) none but line breaks
 * and tabs.
 */
function checkControlChars(input: ProjectInput): void {
  checkNoControlChars('name', input.name);
  for (const field of ['path', 'role', 'status'] as const) {
    const value = input[field];
    if (value !== undefined) checkNoControlChars(field, value);
  }
  if (input.details !== undefined) checkNoControlChars('details', input.details, { multiline: input.action !== 'mapping' });
  if (input.outcome !== undefined) checkNoControlChars('outcome', input.outcome, { multiline: true });
}

/** recall and audit show the project's latest decisions, this many (decision_count counts them all). */
export const DECISIONS_SHOWN = 200;

/** recall and audit show the artifacts registered or updated last, this many (artifact_count counts them all). */
export const ARTIFACTS_SHOWN = 200;

/** A project's description with the details of an update appended as a paragraph of their own. */
const withDetails = (description: string, details: string | undefined) => (details ? [description, details].filter(Boolean).join('\n\n') : description);

/** The status archive gives a project. */
const ARCHIVED = 'archived';

/**
 * Only action archive makes a project archived, since it also moves the spec pages to the Shadow
 * Bin: a status "archived" given to init's reopen or to update is refused, naming the field.
 */
function refuseArchivedStatus(input: ProjectInput, why: string): void {
  if (input.status !== ARCHIVED) return;
  throw invalid('status', `cannot be "${ARCHIVED}" ${why}`, 'a status other than archived');
}

/** The fields init sets on a new project. */
const INIT_FIELDS = ['details', 'status', 'path'] as const;

/** Bounds of the code-map scan of `update`. */
export const CODE_MAP_LIMITS = { maxFiles: 500, maxBytes: 2_000_000, maxDirs: 2_000 } as const;

/** Project context: a global identity row, a project_spec wiki page, decisions, artifacts and a code map. */
export class ProjectService {
  constructor(
    private readonly stores: Stores,
    private readonly hooks: Readonly<Hooks>,
    private readonly logger: Logger,
  ) {}

  /**
   * Run one action. Its writes wait for another process's write lock without blocking the server
   * (Stores.transactionWhenFree), within the busy timeout counted from `wait.since` (the tool
   * call's start) and until `wait.signal` aborts; recall and audit take no lock.
   */
  async run(input: ProjectInput, wait: WriteWait = {}): Promise<Record<string, unknown>> {
    const name = this.projectName(input.name.trim());
    if (isBlank(name)) throw invalid('name', 'must not be empty', 'a project name');
    checkOptionalTexts(input);
    checkControlChars(input);
    const scope: Scope = { layer: input.layer, user_id: input.user_id };
    const held = this.stores.projects.get(name);
    if (input.action !== 'init' && !held) {
      throw new MemoryError('KERNEL_ERR_NOT_FOUND', `No project named "${name}"; create it with action init`, { field: 'name' });
    }
    // A new project's name titles its spec page: refused here as the wiki refuses such a title, naming name.
    if (!held) checkNoHiddenFormat('name', name);
    switch (input.action) {
      case 'init':
        return this.init(scope, name, input, wait);
      case 'update':
        return this.update(scope, name, input, wait);
      case 'mapping': {
        if (input.details === undefined || isBlank(input.details)) throw invalid('details', 'is required for mapping: the artifact file path', 'file path');
        if (overChars(input.details.trim(), ARTIFACT_PATH_MAX)) {
          throw invalid('details', `is ${charLength(input.details.trim())} characters; an artifact's file path is at most ${ARTIFACT_PATH_MAX}`, { max: ARTIFACT_PATH_MAX });
        }
        const file = input.details.trim();
        const artifact = await this.stores.transactionWhenFree(() => this.stores.projects.addArtifact(name, { path: file, role: input.role, status: input.status }), wait);
        return { status: 'mapped', project: name, artifacts: [artifact] };
      }
      case 'decision':
        return this.decision(scope, name, input, wait);
      case 'recall':
        return this.recall(scope, name);
      case 'audit':
        return this.audit(scope, name);
      case 'archive':
        return this.archive(scope, name, wait);
    }
  }

  /**
   * A project's name in NFC, so "Café" with a combining accent (NFD) and with a precomposed é name one
   * project, as they look the same. A project stored earlier under a name in another form is found
   * by that name as given, by its NFC form or by its NFD form; one an older build stored under both
   * forms stays two projects, each found by its own form (lookupForms).
   */
  private projectName(given: string): string {
    return lookupForms(given, (form) => this.stores.projects.get(form) ?? undefined).form;
  }

  /**
   * The project's spec page: projects are global, so it is looked up in the caller's layer first,
   * then in the other layer of the same user. Only a page the project wrote counts (a project_spec
   * page tagged `project`, as every version of init has saved it): a page of that title written by
   * anything else (think with wiki_type project_spec and wiki_title) is never taken over.
   */
  private findSpec(scope: Scope, name: string): { scope: Scope; page: WikiPage } | null {
    for (const layer of [scope.layer, scope.layer === 'user' ? 'agent' : 'user'] as const) {
      const at = { layer, user_id: scope.user_id };
      const page = this.stores.wiki.getByTitle(at, specTitle(name));
      if (page && isProjectSpec(page)) return { scope: at, page };
    }
    return null;
  }

  /**
   * Save the spec page where it already is, never over a page the project did not write, and
   * bring the copies other users keep up to date.
   */
  private saveSpec(scope: Scope, name: string, content: string): WikiPage {
    const found = this.findSpec(scope, name);
    const at = found?.scope ?? scope;
    const clash = found ? null : this.stores.wiki.getByTitle(scope, specTitle(name));
    if (clash) {
      const whose = clash.wiki_type === 'project_spec' ? 'project_spec page not written by project' : `${clash.wiki_type} page`;
      throw new MemoryError(
        'KERNEL_ERR_CONFLICT',
        `A ${whose} titled "${clash.title}" already exists in the ${scope.layer} layer of user ${scope.user_id}; the spec page of project "${name}" ` +
          'would replace it, so nothing was changed: that page is kept; choose another project name',
        { field: 'name' },
      );
    }
    const page = this.stores.wiki.save(at, { title: specTitle(name), content, wiki_type: 'project_spec', tags: [SPEC_TAG] });
    // The project is global: the spec pages other users keep of it say the same.
    for (const other of this.stores.wiki.listByTitle(page.title)) {
      if (other.id === page.id || !isProjectSpec(other)) continue;
      const otherScope = { layer: other.layer, user_id: other.user_id };
      if (this.stores.wiki.getByTitle(otherScope, other.title)?.content === content) continue;
      this.stores.wiki.save(otherScope, { title: other.title, content, wiki_type: 'project_spec', tags: other.tags });
    }
    return page;
  }

  /**
   * The spec page's text. It is held to the text limit (think.max_text_chars) here, naming the
   * field of the call that made it too long (update appends details to the description).
   */
  private specContent(input: ProjectInput, name: string, description: string, status: string, dir: string | null): string {
    const header = [`# ${name}`, '', `Status: ${status}`, ...(dir ? [`Path: ${dir}`] : [])];
    const content = [...header, '', description || '(no description yet)'].join('\n');
    const max = this.stores.config.maxTextChars;
    if (overChars(content, max)) {
      const field = input.details !== undefined ? 'details' : input.path !== undefined ? 'path' : 'status';
      throw invalid(
        field,
        `would make the project's spec page ${charLength(content)} characters (its description is ${charLength(description)}); ` +
          `the limit is ${max} (think.max_text_chars)`,
        { max },
      );
    }
    return content;
  }

  private checkDir(dir: string | undefined): string | null {
    if (!dir) return null;
    // A relative path would be read against the server's working directory, which the caller does not know.
    if (!path.isAbsolute(dir)) {
      throw invalid(
        'path',
        `must be an absolute path: "${dir}" is relative, and it would be resolved against the server's working directory, which the caller does not know; pass the directory's absolute path`,
        'an absolute directory path',
      );
    }
    const abs = path.resolve(dir);
    if (!isDirectory(abs)) throw invalid('path', `is not an existing directory: ${dir}`, 'an absolute directory path');
    return abs;
  }

  private init(scope: Scope, name: string, input: ProjectInput, wait: WriteWait) {
    const dir = this.checkDir(input.path);
    return this.stores.transactionWhenFree(() => {
      // Read under the write lock: another process may have archived or created the project since.
      const existing = this.stores.projects.get(name);
      if (existing?.status === ARCHIVED) return this.reopen(scope, name, input, dir);
      // A new project archived from the start would have spec pages in the wiki saying so, and update would refuse it.
      if (!existing) refuseArchivedStatus(input, `in init of the new project "${name}": a project starts open; use action archive once it exists`);
      const project = this.stores.projects.init(name, { path: dir, description: input.details ?? '', status: input.status ?? 'active' });
      const page = this.saveSpec(scope, name, this.specContent(input, name, project.description, project.status, project.path));
      const result = { status: project.existed ? 'exists' : 'created', project: name, identity: project, wiki_ref: { title: page.title, path: page.path } };
      // init never changes a project that exists: say which of the given fields were not used.
      const ignored = project.existed ? INIT_FIELDS.filter((f) => input[f] !== undefined) : [];
      if (!ignored.length) return result;
      return {
        ...result,
        ignored,
        warning: `Project "${name}" already exists, so init changed nothing and did not use ${ignored.join(', ')}; use action update to change them`,
      };
    }, wait);
  }

  /**
   * init of an archived project reopens it: the status given (active when none is) replaces
   * archived, a given path and details are taken as update takes them, and the spec page, which
   * archive moved to the Shadow Bin, is written again from the project's row.
   */
  private reopen(scope: Scope, name: string, input: ProjectInput, dir: string | null) {
    refuseArchivedStatus(input, `when init reopens the archived project "${name}"; omit it to reopen the project as active`);
    return this.stores.transaction(() => {
      const before = this.stores.projects.get(name)!;
      const description = withDetails(before.description, input.details);
      const project = this.stores.projects.update(name, { status: input.status ?? 'active', path: dir ?? undefined, description });
      const page = this.saveSpec(scope, name, this.specContent(input, name, project.description, project.status, project.path));
      return { status: 'reopened', project: name, identity: project, wiki_ref: { title: page.title, path: page.path } };
    });
  }

  /** An archived project is changed only by init (which reopens it): update would write its spec page back unasked. */
  private refuseArchived(name: string, action: ProjectAction): void {
    if (this.stores.projects.get(name)?.status !== ARCHIVED) return;
    throw new MemoryError(
      'KERNEL_ERR_CONFLICT',
      `Project "${name}" is archived, so ${action} changed nothing (it would write back the spec page archive moved to the Shadow Bin); ` +
        'to work on it again, reopen it with action init, which sets its status to active (or the status given) and writes its spec page again',
      { field: 'name' },
    );
  }

  private update(scope: Scope, name: string, input: ProjectInput, wait: WriteWait) {
    this.refuseArchived(name, 'update');
    refuseArchivedStatus(input, `in update: it would mark project "${name}" archived and leave its spec pages in the wiki; use action archive, which also moves them to the Shadow Bin`);
    const dir = this.checkDir(input.path);
    const before = this.stores.projects.get(name)!;
    // A stored path that is gone (moved, unmounted) keeps the code map rather than rescanning it to nothing.
    const gone = !dir && before.path !== null && !isDirectory(before.path);
    const root = dir ?? (gone ? null : before.path);
    const scan = root ? scanCodeSymbols(root, CODE_MAP_LIMITS) : null;
    return this.stores.transactionWhenFree(() => {
      // The scan ran outside the transaction, where another process may have archived or updated the
      // project: what is written is read again under the write lock, so neither is undone.
      this.refuseArchived(name, 'update');
      const current = this.stores.projects.get(name)!;
      // A scan of a stored path another process has changed since is not this project's map any more.
      const stale = !dir && current.path !== before.path;
      const description = withDetails(current.description, input.details);
      const project = this.stores.projects.update(name, { status: input.status, path: dir ?? undefined, description });
      if (scan && !stale) this.stores.projects.replaceSymbols(name, scan.symbols);
      const page = this.saveSpec(scope, name, this.specContent(input, name, project.description, project.status, project.path));
      const kept = gone ? this.stores.projects.symbolCount(name) : 0;
      return {
        status: 'updated',
        project: name,
        identity: project,
        wiki_ref: { title: page.title, path: page.path },
        code_map: scan && !stale
          ? { files: scan.files, bytes: scan.bytes, truncated: scan.truncated, symbols: scan.symbols.length, sample: scan.symbols.slice(0, 50) }
          : null,
        ...(gone
          ? {
              warning: `The project's stored path ${before.path} is no longer an existing directory, so the code map was not rescanned and keeps its ${kept} symbol(s); pass path to scan another directory`,
            }
          : {}),
      };
    }, wait);
  }

  private async decision(scope: Scope, name: string, input: ProjectInput, wait: WriteWait) {
    if (input.details === undefined || isBlank(input.details)) throw invalid('details', 'is required for decision: the decision and its rationale', 'text');
    const { head, rest } = firstSentence(input.details);
    // The store holds the decision (the first sentence) to think.max_text_chars, which may be set below details' 20,000.
    const max = this.stores.config.maxTextChars;
    if (overChars(head, max)) {
      throw invalid('details', `has a decision (its first sentence) of ${charLength(head)} characters; the limit is ${max} (think.max_text_chars)`, { max });
    }
    const decision = await this.stores.transactionWhenFree(() => {
      const d = this.stores.projects.addDecision(name, { decision: head, rationale: rest, outcome: input.outcome ?? '' });
      this.stores.timeline.add(scope, {
        type: 'project_decision',
        summary: `${name}: ${excerpt(head, 160)}`,
        metadata: { project: name, decision_id: d.id, outcome: input.outcome ?? null },
      });
      return d;
    }, wait);
    try {
      await this.hooks.project_decision.promise({ project: name, decision: head, outcome: input.outcome ?? null });
    } catch (err) {
      this.logger.error(`hook project_decision failed: ${(err as Error).message}`);
    }
    return { status: 'recorded', project: name, decisions: [decision] };
  }

  private recall(scope: Scope, name: string) {
    const project = this.stores.projects.get(name)!;
    const page = this.findSpec(scope, name)?.page;
    return {
      status: project.status,
      project: name,
      identity: project,
      wiki_ref: page ? { title: page.title, path: page.path } : null,
      decisions: this.stores.projects.decisions(name, DECISIONS_SHOWN),
      decision_count: this.stores.projects.decisionCount(name),
      artifacts: this.stores.projects.artifacts(name, ARTIFACTS_SHOWN),
      artifact_count: this.stores.projects.artifactCount(name),
      code_symbol_count: this.stores.projects.symbolCount(name),
    };
  }

  private audit(scope: Scope, name: string) {
    const decisions = this.stores.projects.decisions(name, DECISIONS_SHOWN);
    const artifacts = this.stores.projects.artifacts(name, ARTIFACTS_SHOWN);
    const dimensions = Object.entries(AUDIT_DIMENSIONS).map(([dimension, words]) => {
      const hits = this.stores.retrieval.search(scope, `${name} ${words.join(' ')}`, { limit: 5 });
      // One pattern per dimension, made once rather than once per item.
      const mentions = mentionsAny(words);
      const relevant = hits.filter((h) => mentions(h.text));
      const fromDecisions = decisions.filter((d) => mentions(`${d.decision} ${d.rationale} ${d.outcome}`));
      const fromArtifacts = artifacts.filter((a) => mentions(`${a.path} ${a.role}`));
      const evidence = relevant.length + fromDecisions.length + fromArtifacts.length;
      return {
        dimension,
        verdict: evidence >= 2 ? 'covered' : evidence === 1 ? 'partial' : 'gap',
        evidence,
        hits: relevant.map((h) => ({ source: h.source, id: h.id, excerpt: excerpt(h.text, 160) })),
        decisions: fromDecisions.map((d) => d.decision),
        artifacts: fromArtifacts.map((a) => a.path),
      };
    });
    const conflicts = this.conflicts(this.stores.facts.findMatching(scope, name, 500));
    const complete = dimensions.every((d) => d.verdict === 'covered') && conflicts.length === 0;
    return {
      status: complete ? 'complete' : 'incomplete',
      project: name,
      dimensions,
      conflicts,
      decisions,
      decision_count: this.stores.projects.decisionCount(name),
      artifacts,
      artifact_count: this.stores.projects.artifactCount(name),
    };
  }

  /** Facts about the project whose keys share a stem (key minus a -N suffix) but disagree. */
  private conflicts(facts: Fact[]) {
    const groups = new Map<string, Fact[]>();
    for (const f of facts) {
      const stem = f.key.replace(/-\d+$/, '');
      groups.set(stem, [...(groups.get(stem) ?? []), f]);
    }
    return [...groups.entries()]
      .filter(([, list]) => new Set(list.map((f) => f.value.trim().toLowerCase())).size > 1)
      .map(([stem, list]) => ({ key: stem, values: list.map((f) => ({ key: f.key, value: f.value, entry_id: f.entry_id })) }));
  }

  /**
   * Archive marks the project archived and moves its spec pages to the Shadow Bin: the caller's
   * (found on either layer of its user) and those other users keep in their wiki spaces, each
   * archived in its own scope, since the project is global.
   */
  private archive(scope: Scope, name: string, wait: WriteWait) {
    return this.stores.transactionWhenFree(() => {
      const found = this.findSpec(scope, name);
      const others = this.stores.wiki
        .listByTitle(specTitle(name))
        .filter((p) => isProjectSpec(p) && p.id !== found?.page.id)
        .map((p) => ({ scope: { layer: p.layer, user_id: p.user_id }, page: this.stores.wiki.getByTitle({ layer: p.layer, user_id: p.user_id }, p.title)! }));
      const ids = [...(found ? [found] : []), ...others].map(({ scope: at, page }) => {
        const id = this.stores.shadowBin.archive(at, { origin_store: 'wiki', origin_id: page.title, content: page, reason: `project archive ${name}` }).id;
        this.stores.wiki.delete(at, page.title);
        return id;
      });
      const project = this.stores.projects.archive(name);
      const page = found?.page;
      return {
        status: 'archived',
        project: name,
        identity: project,
        shadow_bin_id: found ? ids[0]! : null,
        wiki_ref: page ? { title: page.title, path: page.path, removed: true } : null,
        removed_pages: ids.length,
      };
    }, wait);
  }
}
