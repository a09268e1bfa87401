import { checkNoControlChars } from '@memory-service/kernel';
import { BRANCH_MAX, type BranchEntry } from './branches.js';
import { COUNTERFACTUAL_ANCHOR_MAX, COUNTERFACTUAL_TEXT_MAX, type Counterfactual } from './counterfactuals.js';
import { DISCLOSURE_CONTENT_MAX, DISCLOSURE_KEYWORD_MAX, DISCLOSURE_KEYWORDS_MAX, DISCLOSURE_NAME_MAX, type DisclosureRule } from './disclosure.js';
import { validationError } from './errors.js';
import { FACT_KEY_MAX, FACT_SOURCES, IMPORTANCE_MIN } from './facts.js';
import { PROCEDURE_NOTE_MAX, PROCEDURE_OUTCOMES, PROCEDURE_STEPS_MAX, PROCEDURE_TEXT_MAX, type Procedure } from './procedures.js';
import { PROPOSAL_KINDS, type ProposalInput } from './proposals.js';
import { recordName } from './record-name.js';
import { REFLECT_TOPIC_MAX, type Reflection, type ReflectionCounts } from './reflections.js';
import { Fields, records, unique, type Obj } from './scope-doc-fields.js';
import { checkStandingName, checkStandingSpec, isLegacyStandingName, STANDING_MAX, type StandingFilters } from './standing.js';
import { STASH_MAX, STASH_NOTE_MAX } from './stashes.js';
import { checkWatchPredicate, WATCH_ACTIONS, WATCH_NAME_MAX, WATCH_TRIGGERS, type WatchRule } from './watch-rules.js';
import { WIKI_TITLE_MAX } from './wiki.js';
import { WIKI_REFLECT_HOURS_MAX } from './wiki-reflect.js';
import { WIKI_TYPES } from './wiki-types.js';

/**
 * The record kinds memory_data added to version 1 of its document after the first nine: each
 * optional, so a document written before them (without these keys) still imports.
 */
export const SCOPE_DOC_EXTRA_KINDS = [
  'counterfactuals',
  'procedures',
  'stashes',
  'branches',
  'reflections',
  'disclosure_rules',
  'watch_rules',
  'standing_queries',
  'proposals',
] as const;
export type ScopeDocExtraKind = (typeof SCOPE_DOC_EXTRA_KINDS)[number];

/** The document's records are the stores' own, without ids and scope (new in the target) or what is derived. */
export type DocCounterfactual = Omit<Counterfactual, 'id' | 'layer' | 'user_id'>;
export type DocProcedure = Omit<Procedure, 'step_count' | 'success_rate'>;
export interface DocStashEntry {
  key: string;
  content: string;
  created: string;
  updated: string;
}
export interface DocStash {
  name: string;
  note: string;
  created: string;
  /** The stashed scratchpad entries, in the pad's order. */
  entries: DocStashEntry[];
}
export type DocBranchEntry = BranchEntry;
export interface DocBranch {
  name: string;
  created: string;
  updated: string;
  entries: DocBranchEntry[];
}
/** A reflection's most_recalled ids are those of the exported scope; an import re-points them to its own records (ImportRefs). */
export type DocReflection = Omit<Reflection, 'id'>;
export type DocDisclosureRule = Omit<DisclosureRule, 'rule_id' | 'layer' | 'user_id'>;
export type DocWatchRule = Omit<WatchRule, 'id' | 'layer' | 'user_id' | 'hits_24h'>;
export interface DocStandingQuery {
  name: string;
  description: string;
  filters: StandingFilters;
  created: string;
  updated: string;
}
/** A pending proposal (decided ones are history: their writes are the facts and pages exported). */
export interface DocProposal {
  kind: ProposalInput['kind'];
  payload: ProposalInput;
  created: string;
}

export interface ScopeDocExtras {
  counterfactuals: DocCounterfactual[];
  procedures: DocProcedure[];
  stashes: DocStash[];
  branches: DocBranch[];
  reflections: DocReflection[];
  disclosure_rules: DocDisclosureRule[];
  watch_rules: DocWatchRule[];
  standing_queries: DocStandingQuery[];
  proposals: DocProposal[];
}

const COUNT_MAX = Number.MAX_SAFE_INTEGER;
/** A reflection's counts, each a whole number (0 when left out), as memory_reflect answers them. */
function reflectionCounts(f: Fields): ReflectionCounts {
  const raw = f.object('counts');
  const c = new Fields(raw, `${f.at}.counts`);
  const n = (k: keyof ReflectionCounts) => Math.floor(c.number(k, 0, COUNT_MAX, 0));
  return { facts: n('facts'), episodes: n('episodes'), wiki_pages: n('wiki_pages'), graph_nodes: n('graph_nodes'), events: n('events'), sessions_closed: n('sessions_closed'), recalls: n('recalls') };
}

function strings(f: Fields, name: string, min: number, max: number, each: number): string[] {
  const list = f.list(name, { min, max });
  list.forEach((x, i) => {
    if (typeof x !== 'string' || x.trim() === '' || [...x].length > each) {
      throw validationError(`${f.at}.${name}[${i}]`, `${f.at}.${name}[${i}] must be a non-empty string of at most ${each} characters`, `a string of 1..${each} characters`);
    }
  });
  return (list as string[]).map((s) => s.trim());
}

/** At most `max` records of a kind (a store's own cap per scope, so an import never half-fits). */
function atMost(fields: Fields[], kind: string, root: string, max: number): void {
  if (fields.length > max) throw validationError(`${root}.${kind}`, `${root}.${kind} holds ${fields.length} records; a layer and user_id keeps at most ${max}`, `at most ${max}`);
}

/**
 * Check the extra kinds of a scope document (see checkScopeDocument), each error naming the path
 * of the bad field under `root`. Missing kinds are empty lists.
 */
export function checkScopeDocExtras(doc: Obj, root: string, maxText: number): ScopeDocExtras {
  const counterfactuals = records(doc, 'counterfactuals', root).map((f) => ({
    anchor: f.text('anchor', COUNTERFACTUAL_ANCHOR_MAX).trim(),
    premise: f.text('premise', COUNTERFACTUAL_TEXT_MAX).trim(),
    projection: f.text('projection', COUNTERFACTUAL_TEXT_MAX).trim(),
    created: f.time('created', ''),
  }));

  const procFields = records(doc, 'procedures', root);
  const procedures = procFields.map((f) => {
    const steps = strings(f, 'steps', 1, PROCEDURE_STEPS_MAX, PROCEDURE_TEXT_MAX);
    const outcome = f.raw('last_outcome');
    return {
      name: f.check(() => recordName(f.raw('name'))),
      description: f.text('description', PROCEDURE_TEXT_MAX, { empty: true, optional: '' }).trim(),
      trigger: f.text('trigger', PROCEDURE_TEXT_MAX, { empty: true, optional: '' }).trim(),
      steps,
      successes: Math.floor(f.number('successes', 0, Number.MAX_SAFE_INTEGER, 0)),
      failures: Math.floor(f.number('failures', 0, Number.MAX_SAFE_INTEGER, 0)),
      last_run: f.nullableTime('last_run'),
      last_outcome: outcome === null || outcome === undefined ? null : f.oneOf('last_outcome', PROCEDURE_OUTCOMES),
      last_note: f.nullableText('last_note', PROCEDURE_NOTE_MAX),
      created: f.time('created', ''),
      updated: f.time('updated', ''),
    };
  });
  unique(procFields, 'name', (i) => procedures[i]!.name);

  const stashFields = records(doc, 'stashes', root);
  atMost(stashFields, 'stashes', root, STASH_MAX);
  const stashes = stashFields.map((f) => {
    const entryFields = f.nested('entries');
    const entries = entryFields.map((e) => ({
      key: e.text('key', 200),
      content: e.text('content', maxText, { empty: true }),
      created: e.time('created', ''),
      updated: e.time('updated', ''),
    }));
    unique(entryFields, 'key', (i) => entries[i]!.key);
    if (entries.length === 0) throw validationError(`${f.at}.entries`, `${f.at}.entries must hold at least one entry (a stash is a set-aside scratchpad)`, 'a non-empty list');
    return {
      name: f.check(() => recordName(f.raw('name'))),
      note: f.text('note', STASH_NOTE_MAX, { empty: true, optional: '' }).trim(),
      created: f.time('created', ''),
      entries,
    };
  });
  unique(stashFields, 'name', (i) => stashes[i]!.name);

  const branchFields = records(doc, 'branches', root);
  atMost(branchFields, 'branches', root, BRANCH_MAX);
  const branches = branchFields.map((f) => {
    const entryFields = f.nested('entries');
    const entries = entryFields.map((e) => {
      const entry = {
        key: e.text('key', FACT_KEY_MAX),
        base_value: e.nullableText('base_value', maxText),
        base_importance: e.nullableNumber('base_importance', 0, 1),
        value: e.nullableText('value', maxText),
        importance: e.nullableNumber('importance', 0, 1),
        source: e.oneOf('source', FACT_SOURCES, 'manual'),
        metadata: e.object('metadata'),
      };
      for (const [v, imp] of [['base_value', 'base_importance'], ['value', 'importance']] as const) {
        if ((entry[v] === null) !== (entry[imp] === null)) throw validationError(`${e.at}.${imp}`, `${e.at}.${imp} must be given exactly when ${v} is (both null or both set)`, `null with ${v} null, else 0..1`);
      }
      if (entry.base_value === null && entry.value === null) throw validationError(`${e.at}.value`, `${e.at} holds neither a base_value nor a value`, 'a base_value, a value or both');
      return entry;
    });
    unique(entryFields, 'key', (i) => entries[i]!.key);
    return { name: f.check(() => recordName(f.raw('name'))), created: f.time('created', ''), updated: f.time('updated', ''), entries };
  });
  unique(branchFields, 'name', (i) => branches[i]!.name);

  const reflections = records(doc, 'reflections', root).map((f) => {
    const topic = f.nullableText('topic', REFLECT_TOPIC_MAX);
    return {
      topic: topic === null || topic.trim() === '' ? null : topic.trim(),
      period_hours: f.number('period_hours', 1, WIKI_REFLECT_HOURS_MAX),
      period_start: f.time('period_start'),
      period_end: f.time('period_end'),
      summary: f.text('summary', maxText),
      counts: reflectionCounts(f),
      top_tags: f.nested('top_tags').map((t) => ({ tag: t.text('tag', 200), count: Math.floor(t.number('count', 0, COUNT_MAX)) })),
      most_recalled: f.nested('most_recalled').map((m) => ({
        source: m.oneOf('source', ['l3', 'l4'] as const),
        id: m.text('id', 100),
        text: m.text('text', 1000, { empty: true }),
        access_count: Math.floor(m.number('access_count', 0, COUNT_MAX)),
      })),
      recurring_terms: f.nested('recurring_terms').map((t) => ({ term: t.text('term', 200), records: Math.floor(t.number('records', 0, COUNT_MAX)) })),
      created: f.time('created', ''),
    };
  });

  const discFields = records(doc, 'disclosure_rules', root);
  const disclosure_rules = discFields.map((f) => {
    const name = f.text('name', DISCLOSURE_NAME_MAX).trim();
    f.check(() => checkNoControlChars('name', name));
    return {
      name,
      trigger_keywords: strings(f, 'trigger_keywords', 1, DISCLOSURE_KEYWORDS_MAX, DISCLOSURE_KEYWORD_MAX),
      content: f.text('content', DISCLOSURE_CONTENT_MAX),
      enabled: f.bool('enabled', true),
      created: f.time('created', ''),
      updated: f.time('updated', ''),
    };
  });
  unique(discFields, 'name', (i) => disclosure_rules[i]!.name);

  const watchFields = records(doc, 'watch_rules', root);
  const watch_rules = watchFields.map((f) => {
    const trigger = f.oneOf('trigger', WATCH_TRIGGERS);
    const action = f.oneOf('action', WATCH_ACTIONS);
    if (action === 'tag' && trigger === 'remember') throw validationError(`${f.at}.action`, `${f.at}.action tag needs a trigger that writes an episode; remember writes none`, ['log', 'note']);
    return {
      name: f.text('name', WATCH_NAME_MAX).trim(),
      trigger,
      predicate: f.check(() => checkWatchPredicate(f.raw('predicate') ?? {}, trigger, 'predicate')),
      action,
      enabled: f.bool('enabled', true),
      created: f.time('created', ''),
      updated: f.time('updated', ''),
    };
  });
  unique(watchFields, 'name', (i) => watch_rules[i]!.name);

  const standingFields = records(doc, 'standing_queries', root);
  atMost(standingFields, 'standing_queries', root, STANDING_MAX);
  const standing_queries = standingFields.map((f) => {
    // A name an older build took (with `_` or `-`) is kept here: the import renames it (scope-data-extra.ts).
    const name = f.check(() => (isLegacyStandingName(f.raw('name')) ? (f.raw('name') as string) : checkStandingName(f.raw('name'))));
    const description = f.text('description', 500, { empty: true, optional: '' });
    const filters = f.object('filters');
    const spec = f.check(
      () => checkStandingSpec({ ...filters, description }),
      (field) => (field === 'spec_json.description' ? 'description' : field.replace(/^spec_json/, 'filters')),
    );
    return { name, description: spec.description, filters: spec.filters, created: f.time('created', ''), updated: f.time('updated', '') };
  });
  unique(standingFields, 'name', (i) => standing_queries[i]!.name.toLowerCase());

  const proposals = records(doc, 'proposals', root).map((f) => {
    const kind = f.oneOf('kind', PROPOSAL_KINDS);
    const raw = f.raw('payload');
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw validationError(`${f.at}.payload`, `${f.at}.payload must be an object`, 'object');
    const p = new Fields(raw as Obj, `${f.at}.payload`);
    if (p.raw('kind') !== undefined && p.raw('kind') !== kind) throw validationError(`${f.at}.payload.kind`, `${f.at}.payload.kind must be the proposal's kind, ${kind}`, [kind]);
    const payload: ProposalInput =
      kind === 'core_write'
        ? // An older version took 0 to 1: raised to 0.05 here, so the imported proposal says what its approval writes.
          { kind, key: p.text('key', FACT_KEY_MAX), value: p.text('value', maxText), importance: Math.max(IMPORTANCE_MIN, p.number('importance', 0, 1, 0.5)) }
        : {
            kind,
            title: p.text('title', WIKI_TITLE_MAX).trim(),
            content: p.text('content', maxText, { empty: true }),
            ...(p.raw('wiki_type') === undefined ? {} : { wiki_type: p.oneOf('wiki_type', WIKI_TYPES) }),
          };
    return { kind, payload, created: f.time('created', '') };
  });

  return { counterfactuals, procedures, stashes, branches, reflections, disclosure_rules, watch_rules, standing_queries, proposals };
}
