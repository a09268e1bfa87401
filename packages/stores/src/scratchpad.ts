import { checkNoControlChars, isBlank } from '@memory-service/kernel';
import type { StoreContext } from './context.js';
import type { Episode, EpisodeStore } from './episodes.js';
import { notFound, validationError } from './errors.js';
import { checkFactImportance, checkNewFactKey, FACT_KEY_MAX, type Fact, type FactStore } from './facts.js';
import { scrubSecrets, type SecretKind } from './secrets.js';
import type { Scope } from './types.js';
import { checkScope, checkText, clamp } from './util.js';
import { lookupForms } from './identity-forms.js';

export interface ScratchpadEntry {
  key: string;
  content: string;
  created: string;
  updated: string;
}

/** Where memory_scratchpad promote moves an entry: an L3 episode or an L4 fact. */
export const SCRATCHPAD_PROMOTE_TARGETS = ['episode', 'fact'] as const;
export type ScratchpadPromoteTarget = (typeof SCRATCHPAD_PROMOTE_TARGETS)[number];

export interface ScratchpadPromoteOptions {
  /** Importance of the episode or fact written (default 0.5). */
  importance?: number;
  /** Extra tags of the episode (target episode); `scratchpad` is always added. */
  tags?: string[];
  /** Key of the fact (target fact); default the entry's key. */
  fact_key?: string;
}

export type ScratchpadPromotion =
  | { target: 'episode'; entry: ScratchpadEntry; episode: Episode }
  | {
      target: 'fact';
      entry: ScratchpadEntry;
      fact: Fact & { created_new: boolean };
      /** Secrets replaced in the fact's value, per kind (counts only), as memory_remember strips them. */
      redacted: Partial<Record<SecretKind, number>>;
      redacted_total: number;
    };

/**
 * L2.5 scratchpad: keyed working notes per scope, upsert by key. At capacity (20 by default)
 * writing a new key evicts the least recently written entry.
 */
export class ScratchpadStore {
  constructor(
    private readonly ctx: StoreContext,
    private readonly targets?: { episodes: EpisodeStore; facts: FactStore },
  ) {}

  /**
   * Upsert; returns the entry, the key evicted to make room (the least recently written entry), if
   * any, and the evicted entries in full (more than one only when the capacity was lowered), so the
   * caller can tell what left the pad.
   */
  write(scope: Scope, key: string, content: string): ScratchpadEntry & { evicted: string | null; evicted_entries: ScratchpadEntry[] } {
    checkScope(scope);
    checkText(key, 'key', 200);
    // A key is one line: memory_recap and daily_brief print it on one, where a line break would
    // forge a section of their Markdown. Lookups (get, clear, take, promote) do not check, so a key
    // written earlier can still be read and removed.
    checkNoControlChars('key', key);
    checkText(content, 'content', this.ctx.config.maxTextChars, true);
    return this.ctx.tx(() => {
      // The key as stored: NFC, or the form an entry written before keys were normalised holds.
      key = this.storedKey(scope, key);
      const now = this.ctx.iso();
      const seqRow = this.ctx
        .stmt('SELECT COALESCE(MAX(seq), 0) AS s FROM scratchpad WHERE layer = ? AND user_id = ?')
        .get(scope.layer, scope.user_id) as { s: number };
      const exists = this.ctx
        .stmt('SELECT 1 FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?')
        .get(scope.layer, scope.user_id, key);
      let evicted: string | null = null;
      let evictedEntries: ScratchpadEntry[] = [];
      if (!exists) {
        const count = this.count(scope);
        if (count >= this.ctx.config.scratchpadMax) {
          const oldest = this.ctx
            .stmt('SELECT id, key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? ORDER BY seq LIMIT ?')
            .all(scope.layer, scope.user_id, count - this.ctx.config.scratchpadMax + 1) as (ScratchpadEntry & { id: number })[];
          for (const o of oldest) this.ctx.stmt('DELETE FROM scratchpad WHERE id = ?').run(o.id);
          evicted = oldest[0]?.key ?? null;
          evictedEntries = oldest.map(({ key, content, created, updated }) => ({ key, content, created, updated }));
        }
      }
      this.ctx
        .stmt(
          `INSERT INTO scratchpad (layer, user_id, key, content, created, updated, seq) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (layer, user_id, key) DO UPDATE SET content = excluded.content, updated = excluded.updated, seq = excluded.seq`,
        )
        .run(scope.layer, scope.user_id, key, content, now, now, seqRow.s + 1);
      return { ...(this.get(scope, key) as ScratchpadEntry), evicted, evicted_entries: evictedEntries };
    });
  }

  get(scope: Scope, key: string): ScratchpadEntry | null {
    checkScope(scope);
    return this.lookup(scope, key).found ?? null;
  }

  /**
   * Keys are stored and looked up in NFC, as fact keys and wiki titles are (identity-forms.ts): the
   * same key sent precomposed or decomposed names one note, and one stored in another form earlier
   * is still found.
   */
  private lookup(scope: Scope, key: string): { form: string; found: ScratchpadEntry | undefined } {
    const stmt = this.ctx.stmt('SELECT key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?');
    return lookupForms(key, (form) => stmt.get(scope.layer, scope.user_id, form) as ScratchpadEntry | undefined);
  }

  /** The form a key is (or would be) stored under (lookup). */
  private storedKey(scope: Scope, key: string): string {
    return this.lookup(scope, key).form;
  }

  /** All entries, least recently written first. */
  read(scope: Scope): ScratchpadEntry[] {
    checkScope(scope);
    return this.ctx
      .stmt('SELECT key, content, created, updated FROM scratchpad WHERE layer = ? AND user_id = ? ORDER BY seq')
      .all(scope.layer, scope.user_id) as ScratchpadEntry[];
  }

  count(scope: Scope): number {
    checkScope(scope);
    return (
      this.ctx.stmt('SELECT COUNT(*) AS n FROM scratchpad WHERE layer = ? AND user_id = ?').get(scope.layer, scope.user_id) as {
        n: number;
      }
    ).n;
  }

  /** Remove one key, or every entry when no key is given; returns how many were removed. */
  clear(scope: Scope, key?: string): number {
    checkScope(scope);
    return this.ctx.tx(() =>
      key === undefined
        ? this.ctx.stmt('DELETE FROM scratchpad WHERE layer = ? AND user_id = ?').run(scope.layer, scope.user_id).changes
        : this.ctx.stmt('DELETE FROM scratchpad WHERE layer = ? AND user_id = ? AND key = ?').run(scope.layer, scope.user_id, this.storedKey(scope, key))
            .changes,
    );
  }

  /**
   * Append entries as they were (content, created, updated), after the present ones, in the given
   * order (memory_stash pop). The caller checks that no key is present and that they fit the limit;
   * a present key or an overflow here is refused, naming `field`, rather than evicting anything.
   */
  putBack(scope: Scope, entries: readonly ScratchpadEntry[], field = 'name'): void {
    checkScope(scope);
    this.ctx.tx(() => {
      if (this.count(scope) + entries.length > this.ctx.config.scratchpadMax) {
        throw validationError(field, `the scratchpad holds at most ${this.ctx.config.scratchpadMax} entries`, { max_entries: this.ctx.config.scratchpadMax });
      }
      let seq = this.ctx.stmt('SELECT COALESCE(MAX(seq), 0) FROM scratchpad WHERE layer = ? AND user_id = ?').pluck(true).get(scope.layer, scope.user_id) as number;
      const insert = this.ctx.stmt('INSERT INTO scratchpad (layer, user_id, key, content, created, updated, seq) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const e of entries) {
        if (this.get(scope, e.key)) throw validationError(field, `the scratchpad holds key ${JSON.stringify(e.key)} already`);
        insert.run(scope.layer, scope.user_id, e.key, e.content, e.created, e.updated, ++seq);
      }
    });
  }

  /**
   * Remove the scope's entries written (created or last updated) at or after the ISO time; returns
   * how many. An entry rewritten in the window holds only what the window wrote: an upsert keeps no
   * earlier content.
   */
  deleteSince(scope: Scope, sinceIso: string): number {
    const w = this.ctx.window(sinceIso);
    checkScope(scope);
    return this.ctx.tx(
      () => this.ctx.stmt('DELETE FROM scratchpad WHERE layer = ? AND user_id = ? AND updated >= ? AND updated <= ?').run(scope.layer, scope.user_id, w.since, w.until).changes,
    );
  }

  /** Remove and return one entry (used by promote), or null when absent. */
  take(scope: Scope, key: string): ScratchpadEntry | null {
    checkScope(scope);
    return this.ctx.tx(() => {
      const e = this.get(scope, key);
      if (e) this.clear(scope, key);
      return e;
    });
  }

  /**
   * Move one entry into an L3 episode (its content the summary, tagged `scratchpad`) or an L4 fact
   * (key `fact_key`, default the entry's key; source staging_promotion), and drop it from the pad,
   * in one transaction. A missing key is an error naming key. A fact key already holding another
   * value is an error naming fact_key (the fact is not overwritten); one holding the same value is
   * kept as it is. A fact's value has its secrets replaced by markers (secrets.ts), as
   * memory_remember's has; an episode keeps the note as written, as every episode does.
   */
  promote(scope: Scope, key: string, target: ScratchpadPromoteTarget, opts: ScratchpadPromoteOptions = {}): ScratchpadPromotion {
    checkScope(scope);
    checkText(key, 'key', 200);
    if (!(SCRATCHPAD_PROMOTE_TARGETS as readonly string[]).includes(target)) {
      throw validationError('target', `target must be one of ${SCRATCHPAD_PROMOTE_TARGETS.join(', ')}`, SCRATCHPAD_PROMOTE_TARGETS);
    }
    if (!this.targets) throw new Error('ScratchpadStore.promote needs the episode and fact stores');
    const { episodes, facts } = this.targets;
    // An episode's importance is 0..1; a fact's is 0.05..1.0, refused outside (not clamped), as every fact writer's input.
    if (target === 'fact' && opts.importance !== undefined) checkFactImportance(opts.importance);
    const importance = clamp(opts.importance ?? 0.5, 0, 1);
    return this.ctx.tx(() => {
      const entry = this.get(scope, key);
      if (!entry) throw notFound(`scratchpad entry of layer ${scope.layer}, user_id ${JSON.stringify(scope.user_id)}`, key, 'key');
      if (isBlank(entry.content)) throw validationError('key', `the scratchpad entry ${JSON.stringify(key)} is empty: there is nothing to promote`, 'a key whose entry holds text');
      if (target === 'episode') {
        const episode = episodes.add(scope, {
          summary: entry.content,
          importance,
          emotional_weight: 0,
          tags: ['scratchpad', ...(opts.tags ?? [])],
          meta: { origin: 'scratchpad', key: entry.key },
        });
        this.clear(scope, key);
        return { target, entry, episode };
      }
      const factKey = checkText(opts.fact_key ?? entry.key, 'fact_key', FACT_KEY_MAX).trim();
      // An L4 fact is long-term memory: secrets are stripped from it, as memory_remember strips them.
      const scrub = scrubSecrets(entry.content);
      const before = facts.get(scope, factKey);
      // Named as this call names it: the fact store's own refusal would say key.
      if (!before) checkNewFactKey('fact_key', factKey);
      if (before && before.value !== scrub.text) {
        throw validationError(
          'fact_key',
          `the fact ${JSON.stringify(factKey)} already holds another value; pass another fact_key (or forget that fact first)`,
          'a key with no fact, or one holding the same value',
        );
      }
      const fact = before
        ? { ...before, created_new: false }
        : facts.upsert(scope, {
            key: factKey,
            value: scrub.text,
            importance,
            source: 'staging_promotion',
            metadata: { origin: 'scratchpad', key: entry.key, ...(scrub.total > 0 ? { redacted: scrub.redacted } : {}) },
          });
      this.clear(scope, key);
      return { target, entry, fact, redacted: scrub.redacted, redacted_total: scrub.total };
    });
  }
}
