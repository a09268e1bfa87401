import { BRANCH_MAX } from './branches.js';
import { StoreError, validationError } from './errors.js';
import type { ProposalInput, ProposalPayload } from './proposals.js';
import { describeReflection } from './reflections.js';
import { SCOPE_DOC_EXTRA_KINDS, type ScopeDocExtraKind, type ScopeDocExtras } from './scope-doc-extra.js';
import type { KindRecords } from './scope-export.js';
import { isLegacyStandingName, renamedStandingName, type StandingQuery } from './standing.js';
import { STASH_MAX } from './stashes.js';
import type { Stores } from './stores.js';
import type { ImportRefs } from './scope-import-refs.js';
import type { Scope } from './types.js';

type Counts = Record<ScopeDocExtraKind, number>;
type Step = <T>(kind: ScopeDocExtraKind, i: number, fn: () => T) => T;

/** The ISO time a record keeps, or now for one the document gives none. */
const at = (t: string, now: string) => (t === '' ? now : t);

/**
 * memory_data for the kinds added after the first nine (scope-doc-extra.ts): counterfactuals,
 * procedures, stashes, branches, reflections, disclosure and watch rules, standing queries and
 * pending proposals. Each is read through its store's own converter and written back through its
 * store's write (restore), inside ScopeData's transaction, keeping the record's times.
 */
export class ScopeDataExtras {
  constructor(private readonly stores: Stores) {}

  /**
   * The later kinds of a scope's export, in the document's order (SCOPE_DOC_EXTRA_KINDS), each
   * read from its store only when its records are written (scope-export.ts): one kind's list at a
   * time is in memory, not all of them.
   */
  exportKinds(scope: Scope): KindRecords[] {
    const s = this.stores;
    const kinds: { [K in ScopeDocExtraKind]: () => ScopeDocExtras[K] } = {
      counterfactuals: () => s.counterfactuals.all(scope).map((c) => ({ anchor: c.anchor, premise: c.premise, projection: c.projection, created: c.created })),
      procedures: () =>
        s.procedures.all(scope).map((p) => ({
          name: p.name,
          description: p.description,
          trigger: p.trigger,
          steps: p.steps,
          successes: p.successes,
          failures: p.failures,
          last_run: p.last_run,
          last_outcome: p.last_outcome,
          last_note: p.last_note,
          created: p.created,
          updated: p.updated,
        })),
      stashes: () => s.stashes.all(scope).map((x) => ({ name: x.name, note: x.note, created: x.created, entries: x.entries })),
      branches: () => s.branches.all(scope),
      reflections: () => s.reflections.all(scope).map(({ id: _id, ...r }) => r),
      disclosure_rules: () =>
        s.disclosure.list(scope).map((r) => ({
          name: r.name,
          trigger_keywords: r.trigger_keywords,
          content: r.content,
          enabled: r.enabled,
          created: r.created,
          updated: r.updated,
        })),
      watch_rules: () =>
        s.watchRules.list(scope).map((r) => ({
          name: r.name,
          trigger: r.trigger,
          predicate: r.predicate,
          action: r.action,
          enabled: r.enabled,
          created: r.created,
          updated: r.updated,
        })),
      standing_queries: () => s.standing.list(scope).map((q) => ({ name: q.name, description: q.description, filters: q.filters, created: q.created, updated: q.updated })),
      proposals: () => s.proposals.allPending(scope).map((p) => ({ kind: p.kind, payload: p.payload, created: p.created })),
    };
    return SCOPE_DOC_EXTRA_KINDS.map((k) => [k, kinds[k]] as const);
  }

  /**
   * Write the extra kinds of a checked document. merge leaves out a record the target holds: a
   * procedure, stash, branch, disclosure rule, watch rule or standing query of the same name, and a
   * counterfactual, reflection or pending proposal identical to one it held before the import.
   * Store caps (stashes, branches, standing queries) are checked for the whole kind before its first
   * write, naming `<root>.<kind>`.
   */
  importScope(
    scope: Scope,
    doc: ScopeDocExtras,
    opts: { root: string; replace: boolean; now: string; step: Step; refs: ImportRefs; imported: Counts; skipped: Counts; renamed: { from: string; to: string }[] },
  ): void {
    const s = this.stores;
    const { root, now, step, refs, imported, skipped } = opts;
    const c = s.ctx;

    doc.counterfactuals.forEach((x, i) => {
      const made = step('counterfactuals', i, () => s.counterfactuals.restore(scope, { ...x, created: at(x.created, now) }));
      if (made.created_new) imported.counterfactuals++;
      else skipped.counterfactuals++;
    });

    doc.procedures.forEach((p, i) => {
      const made = step('procedures', i, () => s.procedures.restore(scope, { ...p, created: at(p.created, now), updated: at(p.updated, now) }));
      if (made) imported.procedures++;
      else skipped.procedures++;
    });

    const fits = (kind: 'stashes' | 'branches', table: string, max: number, names: string[]) => {
      const held = new Set(c.stmt(`SELECT name FROM ${table} WHERE layer = ? AND user_id = ?`).pluck(true).all(scope.layer, scope.user_id) as string[]);
      const adds = names.filter((n) => !held.has(n)).length;
      if (held.size + adds > max) {
        throw validationError(`${root}.${kind}`, `${root}.${kind} would take the target past its ${max} ${kind} (it holds ${held.size}, the document adds ${adds}); nothing was imported`, `at most ${max} in all`);
      }
    };
    fits('stashes', 'scratchpad_stashes', STASH_MAX, doc.stashes.map((x) => x.name));
    doc.stashes.forEach((x, i) => {
      const entries = x.entries.map((e) => ({ ...e, created: at(e.created, now), updated: at(e.updated, now) }));
      const made = step('stashes', i, () => s.stashes.restore(scope, { ...x, created: at(x.created, now), entries }));
      if (made) imported.stashes++;
      else skipped.stashes++;
    });

    fits('branches', 'fact_branches', BRANCH_MAX, doc.branches.map((b) => b.name));
    doc.branches.forEach((b, i) => {
      // An entry copies a fact, its metadata with it: the ids that names are re-pointed as the fact's.
      const entries = b.entries.map((e) => {
        const { meta, text } = refs.record(e.metadata, e.value ?? '');
        return { ...e, metadata: meta, value: e.value === null ? null : text, base_value: e.base_value === null ? null : refs.text(e.base_value, e.metadata) };
      });
      const made = step('branches', i, () => s.branches.restore(scope, { ...b, entries, created: at(b.created, now), updated: at(b.updated, now) }));
      if (made) imported.branches++;
      else skipped.branches++;
    });

    const reflHeld = new Set(
      opts.replace ? [] : (c.stmt('SELECT created || char(0) || summary FROM reflections WHERE layer = ? AND user_id = ?').pluck(true).all(scope.layer, scope.user_id) as string[]),
    );
    doc.reflections.forEach((r, i) => {
      // The most recalled name the target's records (those the document holds), and the summary that lists them says so.
      const most_recalled = refs.mostRecalled(r.most_recalled);
      const same = most_recalled.length === r.most_recalled.length && most_recalled.every((m, j) => m.id === r.most_recalled[j]!.id);
      const summary = same ? r.summary : describeReflection({ hours: r.period_hours, topic: r.topic ?? undefined, counts: r.counts, top_tags: r.top_tags, most_recalled, recurring_terms: r.recurring_terms });
      if (reflHeld.has(`${at(r.created, now)}\u0000${summary}`)) return void skipped.reflections++;
      step('reflections', i, () => s.reflections.restore(scope, { ...r, most_recalled, summary, created: at(r.created, now) }));
      imported.reflections++;
    });

    doc.disclosure_rules.forEach((r, i) => {
      const made = step('disclosure_rules', i, () => s.disclosure.restore(scope, { ...r, created: at(r.created, now), updated: at(r.updated, now) }));
      if (made) imported.disclosure_rules++;
      else skipped.disclosure_rules++;
    });

    doc.watch_rules.forEach((r, i) => {
      // The store names the action's field as memory_watch's input does (action_kind); the document's is action.
      const made = step('watch_rules', i, () => {
        try {
          return s.watchRules.restore(scope, { ...r, created: at(r.created, now), updated: at(r.updated, now) });
        } catch (err) {
          const field = { action_kind: 'action', predicate_json: 'predicate' }[(err as StoreError).field ?? ''];
          if (err instanceof StoreError && field) throw validationError(field, err.message, err.accepted);
          throw err;
        }
      });
      if (made) imported.watch_rules++;
      else skipped.watch_rules++;
    });

    let pending = 0;
    // A name an older build took (with `_` or `-`) is renamed as the start renames its file: free of
    // the document's other names and of the target's queries, except that a target query of that name
    // with the same filters and description is this one (skipped, as merge skips a name it holds).
    const docNames = new Set(doc.standing_queries.filter((q) => !isLegacyStandingName(q.name)).map((q) => q.name.toLowerCase()));
    const sameHeld = (lower: string, q: (typeof doc.standing_queries)[number]): boolean | null => {
      if (opts.replace) return null;
      let held: StandingQuery | null;
      try {
        held = s.standing.get(scope, lower);
      } catch {
        return false;
      }
      return held === null ? null : held.description === q.description && JSON.stringify(held.filters) === JSON.stringify(q.filters);
    };
    doc.standing_queries.forEach((q, i) => {
      let name = q.name;
      if (isLegacyStandingName(name)) {
        name = renamedStandingName(name, (lower) => docNames.has(lower) || sameHeld(lower, q) === false);
        docNames.add(name.toLowerCase());
        opts.renamed.push({ from: q.name, to: name });
      }
      const made = step('standing_queries', i, () =>
        s.standing.restore(scope, { ...q, name, created: at(q.created, now), updated: at(q.updated, now) }, { pending, cleared: opts.replace }),
      );
      if (made) {
        pending++;
        imported.standing_queries++;
      } else skipped.standing_queries++;
    });

    const propHeld = opts.replace ? [] : s.proposals.allPending(scope);
    doc.proposals.forEach((p, i) => {
      const created = at(p.created, now);
      if (propHeld.some((h) => h.created === created && samePayload(h.payload, p.payload))) return void skipped.proposals++;
      step('proposals', i, () => s.proposals.restorePending(scope, p.payload, created));
      imported.proposals++;
    });
  }

  /** replace: the target's records of the extra kinds go (none has a Shadow Bin origin: the previous export keeps them). */
  clear(scope: Scope, cleared: Counts): void {
    const s = this.stores;
    cleared.counterfactuals = s.counterfactuals.clear(scope);
    cleared.procedures = s.procedures.clear(scope);
    cleared.stashes = s.stashes.clear(scope);
    cleared.branches = s.branches.clear(scope);
    cleared.reflections = s.reflections.clear(scope);
    cleared.disclosure_rules = s.disclosure.clear(scope);
    cleared.watch_rules = s.watchRules.clear(scope);
    cleared.standing_queries = s.standing.clear(scope);
    cleared.proposals = s.proposals.clearPending(scope);
  }
}

/** Whether a held proposal's payload is the document's: same kind and fields (a wiki_type left out matches any). */
function samePayload(held: ProposalPayload, p: ProposalInput): boolean {
  const h = held as unknown as Record<string, unknown>;
  return Object.entries(p).every(([k, v]) => v === undefined || h[k] === v);
}
