import { checkNoControlChars, checkNoHiddenFormat } from '@memory-service/kernel';
import type { AuditLog } from './audit.js';
import type { StoreContext } from './context.js';
import { notFound, StoreError, validationError } from './errors.js';
import { checkFactImportance, checkNewFactKey, FACT_KEY_MAX, type FactSource, type FactStore } from './facts.js';
import type { ShadowBin } from './shadow-bin.js';
import type { Layer, Scope } from './types.js';
import { checkScope, checkText, clamp, makeId, parseId, parseJson } from './util.js';
import { WIKI_TITLE_MAX, type WikiStore } from './wiki.js';
import { checkWikiType, type WikiType } from './wiki-types.js';

export const PROPOSAL_PREFIX = 'prop';
export const PROPOSAL_KINDS = ['wiki_write', 'core_write'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];
export const PROPOSAL_STATUSES = ['pending', 'applied', 'rejected', 'reverted'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** The wiki type of a wiki_write proposed without one: think's long-thought types (diary for user, decision_log for agent). */
export const PROPOSAL_DEFAULT_WIKI_TYPE: Readonly<Record<Layer, WikiType>> = { user: 'diary', agent: 'decision_log' };
/** Importance of a core_write proposed without one (the facts' default). */
export const PROPOSAL_DEFAULT_IMPORTANCE = 0.5;

export type ProposalPayload =
  | { kind: 'wiki_write'; title: string; content: string; wiki_type: WikiType }
  | { kind: 'core_write'; key: string; value: string; importance: number };

export type ProposalInput =
  | { kind: 'wiki_write'; title: string; content: string; wiki_type?: string }
  | { kind: 'core_write'; key: string; value: string; importance?: number };

/** What an approval wrote and what it replaced, so a revert can put it back. */
export interface ProposalApplied {
  /** The fact's entry_id (core_write) or the page's id (wiki_write). */
  target_id?: string;
  /** Whether the write created the fact or page (else it replaced one). */
  created?: boolean;
  /** The fact replaced: its value, importance, source and metadata. */
  previous_fact?: { value: string; importance: number; source?: FactSource; metadata?: Record<string, unknown> };
  /** The page replaced: its content, type and tags. */
  previous_page?: { content: string; wiki_type: string; tags: string[] };
  /** Shadow Bin entry of the page or fact a revert removed. */
  shadow_id?: string;
}

export interface Proposal {
  /** `prop_<n>`. */
  proposal_id: string;
  layer: Layer;
  user_id: string;
  kind: ProposalKind;
  status: ProposalStatus;
  payload: ProposalPayload;
  created: string;
  decided: string | null;
  reverted: string | null;
  applied: ProposalApplied;
}

interface Row {
  id: number;
  layer: Layer;
  user_id: string;
  kind: ProposalKind;
  payload: string;
  status: ProposalStatus;
  created: string;
  decided: string | null;
  reverted: string | null;
  applied: string;
}

function toProposal(r: Row): Proposal {
  return {
    proposal_id: makeId(PROPOSAL_PREFIX, r.id),
    layer: r.layer,
    user_id: r.user_id,
    kind: r.kind,
    status: r.status,
    payload: parseJson<ProposalPayload>(r.payload, { kind: 'core_write', key: '', value: '', importance: 0.5 }),
    created: r.created,
    decided: r.decided,
    reverted: r.reverted,
    applied: parseJson<ProposalApplied>(r.applied, {}),
  };
}

function conflict(p: Proposal, message: string): StoreError {
  return new StoreError('STORES_ERR_CONFLICT', `proposal_id ${p.proposal_id} is ${p.status}: ${message}`, { field: 'proposal_id', details: { state: p.status } });
}

interface Targets {
  facts: FactStore;
  wiki: WikiStore;
  shadowBin: ShadowBin;
}

/**
 * Staged mutations (memory_proposals): a wiki_write or core_write proposed pending, then approved
 * (applied: the write the direct path makes, WikiStore.save or FactStore.upsert) or rejected; an
 * applied one can be reverted. Every decision and revert is audit-logged on the proposal.
 */
export class ProposalStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly audit: AuditLog,
    private readonly targets: Targets,
  ) {}

  /** Check and stage a write; everything the write itself would refuse is refused here, naming the field. */
  propose(scope: Scope, input: ProposalInput): Proposal {
    checkScope(scope);
    const payload = this.checkInput(scope, input);
    return this.ctx.tx(() => {
      const info = this.ctx
        .stmt("INSERT INTO proposals (layer, user_id, kind, payload, status, created) VALUES (?, ?, ?, ?, 'pending', ?)")
        .run(scope.layer, scope.user_id, payload.kind, JSON.stringify(payload), this.ctx.iso());
      const id = makeId(PROPOSAL_PREFIX, Number(info.lastInsertRowid));
      this.audit.log(scope, 'propose', 'proposal', id, { kind: payload.kind });
      return this.get(scope, id) as Proposal;
    });
  }

  private checkInput(scope: Scope, input: ProposalInput): ProposalPayload {
    if (!input || !(PROPOSAL_KINDS as readonly string[]).includes(input.kind)) {
      throw validationError('kind', `kind must be one of ${PROPOSAL_KINDS.join(', ')}`, PROPOSAL_KINDS);
    }
    if (input.kind === 'wiki_write') {
      const title = checkText(input.title, 'title', WIKI_TITLE_MAX).trim();
      checkNoControlChars('title', title);
      // Refused when proposed, as the wiki would refuse it when approved (a page of that title may still be updated).
      if (!this.targets.wiki.getByTitle(scope, title)) checkNoHiddenFormat('title', title);
      const content = checkText(input.content, 'content', this.ctx.config.maxTextChars, true);
      const wiki_type = input.wiki_type === undefined ? PROPOSAL_DEFAULT_WIKI_TYPE[scope.layer] : checkWikiType(input.wiki_type);
      return { kind: 'wiki_write', title, content, wiki_type };
    }
    const key = checkText(input.key, 'key', FACT_KEY_MAX);
    // Refused when proposed, as the fact store would refuse it when approved (a fact of that key may still be updated).
    if (!this.targets.facts.get(scope, key)) checkNewFactKey('key', key);
    // Blank refused now, as the fact store refuses it when approved.
    const value = checkText(input.value, 'value', this.ctx.config.maxTextChars);
    // Refused outside 0.05..1.0 now, as the fact store would clamp it when approved: the proposal says the write it makes.
    const importance = checkFactImportance(input.importance ?? PROPOSAL_DEFAULT_IMPORTANCE);
    return { kind: 'core_write', key, value, importance };
  }

  /** The scope's proposal with this id; null for another scope's, an unknown or a malformed id. */
  get(scope: Scope, id: string): Proposal | null {
    checkScope(scope);
    const n = parseId(PROPOSAL_PREFIX, id.trim());
    if (n === null) return null;
    const r = this.ctx.stmt('SELECT * FROM proposals WHERE id = ? AND layer = ? AND user_id = ?').get(n, scope.layer, scope.user_id) as Row | undefined;
    return r ? toProposal(r) : null;
  }

  /** The scope's proposals in a state (oldest first for pending, the work queue; newest first otherwise). */
  list(scope: Scope, status: ProposalStatus = 'pending', limit = 50): Proposal[] {
    checkScope(scope);
    const order = status === 'pending' ? 'id ASC' : 'id DESC';
    const rows = this.ctx
      .stmt(`SELECT * FROM proposals WHERE layer = ? AND user_id = ? AND status = ? ORDER BY ${order} LIMIT ?`)
      .all(scope.layer, scope.user_id, status, clamp(Math.floor(limit), 0, 10_000)) as Row[];
    return rows.map(toProposal);
  }

  /**
   * Remove the scope's pending proposals staged at or after the ISO time (memory_lucidity_purge: the
   * staging area); decided ones stay, their writes are the stores' own. Returns how many.
   */
  deletePendingSince(scope: Scope, sinceIso: string): number {
    checkScope(scope);
    return this.ctx.tx(
      () => {
        const w = this.ctx.window(sinceIso);
        return this.ctx
          .stmt("DELETE FROM proposals WHERE layer = ? AND user_id = ? AND status = 'pending' AND created >= ? AND created <= ?")
          .run(scope.layer, scope.user_id, w.since, w.until).changes;
      },
    );
  }

  /** Every pending proposal of the scope, oldest first (memory_data export: decided ones are history). */
  allPending(scope: Scope): Proposal[] {
    checkScope(scope);
    return (this.ctx.stmt("SELECT * FROM proposals WHERE layer = ? AND user_id = ? AND status = 'pending' ORDER BY id").all(scope.layer, scope.user_id) as Row[]).map(toProposal);
  }

  /** Stage a proposal as propose() does, staged at `created` (memory_data import keeps its age). */
  restorePending(scope: Scope, input: ProposalInput, created: string): Proposal {
    return this.ctx.tx(() => {
      const p = this.propose(scope, input);
      this.ctx.stmt('UPDATE proposals SET created = ? WHERE id = ?').run(created, parseId(PROPOSAL_PREFIX, p.proposal_id));
      return this.get(scope, p.proposal_id) as Proposal;
    });
  }

  /** Delete every pending proposal of the scope (memory_data import replace; decided ones stay); returns how many. */
  clearPending(scope: Scope): number {
    checkScope(scope);
    return this.ctx.tx(() => this.ctx.stmt("DELETE FROM proposals WHERE layer = ? AND user_id = ? AND status = 'pending'").run(scope.layer, scope.user_id).changes);
  }

  /**
   * Delete the scope's pending proposals the test takes (forget exact and fuzzy: those whose write
   * would put back what was forgotten), each audit-logged without its words; returns them.
   */
  deletePendingWhere(scope: Scope, test: (p: Proposal) => boolean): Proposal[] {
    checkScope(scope);
    return this.ctx.tx(() => {
      const gone = this.allPending(scope).filter(test);
      for (const p of gone) {
        this.ctx.stmt('DELETE FROM proposals WHERE id = ?').run(parseId(PROPOSAL_PREFIX, p.proposal_id));
        this.audit.log(scope, 'delete', 'proposal', p.proposal_id, { kind: p.kind, reason: 'forget' });
      }
      return gone;
    });
  }

  /** How many proposals of the scope are in each state now. */
  countByStatus(scope: Scope): Record<ProposalStatus, number> {
    checkScope(scope);
    const out = { pending: 0, applied: 0, rejected: 0, reverted: 0 };
    const rows = this.ctx.stmt('SELECT status, COUNT(*) AS n FROM proposals WHERE layer = ? AND user_id = ? GROUP BY status').all(scope.layer, scope.user_id) as {
      status: ProposalStatus;
      n: number;
    }[];
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  /** The scope's proposals decided (approved or rejected) from the ISO time up to now (StoreContext.window), newest decision first. */
  decidedSince(scope: Scope, sinceIso: string, limit = 10): Proposal[] {
    checkScope(scope);
    const w = this.ctx.window(sinceIso);
    const rows = this.ctx
      .stmt('SELECT * FROM proposals WHERE layer = ? AND user_id = ? AND decided IS NOT NULL AND decided >= ? AND decided <= ? ORDER BY decided DESC, id DESC LIMIT ?')
      .all(scope.layer, scope.user_id, w.since, w.until, clamp(Math.floor(limit), 0, 1000)) as Row[];
    return rows.map(toProposal);
  }

  private mustGet(scope: Scope, id: string): Proposal {
    const p = this.get(scope, id);
    if (!p) throw notFound(`proposal of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, id.trim().slice(0, 100), 'proposal_id');
    return p;
  }

  /**
   * Decide a pending proposal: approve runs its write and moves it to applied, reject moves it to
   * rejected; both audit-logged. One transaction: a write that fails leaves the proposal pending.
   * A proposal not pending is an error naming proposal_id and its state.
   */
  decide(scope: Scope, id: string, approve: boolean): Proposal {
    checkScope(scope);
    return this.ctx.tx(() => {
      const p = this.mustGet(scope, id);
      if (p.status !== 'pending') throw conflict(p, `only a pending proposal can be decided (decided at ${p.decided})`);
      const now = this.ctx.iso();
      const applied = approve ? this.apply(scope, p) : {};
      const status: ProposalStatus = approve ? 'applied' : 'rejected';
      this.ctx.stmt('UPDATE proposals SET status = ?, decided = ?, applied = ? WHERE id = ?').run(status, now, JSON.stringify(applied), parseId(PROPOSAL_PREFIX, p.proposal_id));
      this.audit.log(scope, approve ? 'approve' : 'reject', 'proposal', p.proposal_id, { kind: p.kind, status, ...(applied.target_id ? { target_id: applied.target_id } : {}) });
      return this.get(scope, p.proposal_id) as Proposal;
    });
  }

  private apply(scope: Scope, p: Proposal): ProposalApplied {
    const w = p.payload;
    if (w.kind === 'core_write') {
      const before = this.targets.facts.get(scope, w.key);
      const fact = this.targets.facts.upsert(scope, {
        key: w.key,
        value: w.value,
        importance: w.importance,
        source: 'staging_promotion',
        metadata: { proposal_id: p.proposal_id },
      });
      return { target_id: fact.entry_id, created: !before, ...(before ? { previous_fact: { value: before.value, importance: before.importance, source: before.source, metadata: before.metadata } } : {}) };
    }
    const before = this.targets.wiki.getByTitle(scope, w.title);
    // As wiki_add: an existing page keeps its tags.
    const page = this.targets.wiki.save(scope, { title: w.title, content: w.content, wiki_type: w.wiki_type, tags: before?.tags });
    return {
      target_id: page.id,
      created: !before,
      ...(before ? { previous_page: { content: before.content, wiki_type: before.wiki_type, tags: before.tags } } : {}),
    };
  }

  /**
   * Undo an applied proposal's write, archiving what it removes in the Shadow Bin: a created page
   * or fact is deleted, a replaced one gets its previous content back. Only while the record still
   * holds what the proposal wrote (a later write would be lost); otherwise an error naming
   * proposal_id. A proposal not applied is an error naming proposal_id and its state.
   */
  revert(scope: Scope, id: string): Proposal {
    checkScope(scope);
    return this.ctx.tx(() => {
      const p = this.mustGet(scope, id);
      if (p.status !== 'applied') throw conflict(p, 'only an applied proposal can be reverted');
      const w = p.payload;
      const a = p.applied;
      let shadow_id: string | undefined;
      if (w.kind === 'core_write') {
        const fact = this.targets.facts.get(scope, w.key);
        if (!fact || fact.entry_id !== a.target_id || fact.value !== w.value) {
          throw conflict(p, `fact ${JSON.stringify(w.key)} ${fact ? 'was changed' : 'was deleted'} since it was applied; nothing was reverted`);
        }
        shadow_id = this.targets.shadowBin.archive(scope, { origin_store: 'l4', origin_id: fact.key, content: fact, reason: `proposal_revert ${p.proposal_id}` }).id;
        const prev = a.previous_fact;
        if (prev) this.targets.facts.upsert(scope, { key: w.key, value: prev.value, importance: prev.importance, source: prev.source ?? fact.source, metadata: prev.metadata ?? {} });
        else this.targets.facts.delete(scope, w.key);
      } else {
        const page = this.targets.wiki.getByTitle(scope, w.title);
        if (!page || page.id !== a.target_id || page.content !== w.content) {
          throw conflict(p, `wiki page ${JSON.stringify(w.title)} ${page ? 'was changed' : 'was deleted'} since it was applied; nothing was reverted`);
        }
        if (a.previous_page) {
          shadow_id = this.targets.shadowBin.archive(scope, { origin_store: 'wiki', origin_id: page.title, content: page, reason: `proposal_revert ${p.proposal_id}` }).id;
          this.targets.wiki.save(scope, { title: page.title, content: a.previous_page.content, wiki_type: a.previous_page.wiki_type, tags: a.previous_page.tags });
        } else {
          shadow_id = this.targets.shadowBin.deleteWikiPage(scope, page.title, true, `proposal_revert ${p.proposal_id}`)?.entry?.id;
        }
      }
      const now = this.ctx.iso();
      this.ctx.stmt("UPDATE proposals SET status = 'reverted', reverted = ?, applied = ? WHERE id = ?").run(now, JSON.stringify({ ...a, shadow_id }), parseId(PROPOSAL_PREFIX, p.proposal_id));
      this.audit.log(scope, 'revert', 'proposal', p.proposal_id, { kind: p.kind, target_id: a.target_id, shadow_id });
      return this.get(scope, p.proposal_id) as Proposal;
    });
  }
}
