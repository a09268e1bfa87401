import { callTap, isBlank, shownValue, type Config, type EventContext, type Hooks, type InjectBlock, type Logger } from '@memory-service/kernel';
import { derivedNodeIds, fitToBudget, recentWindow, scoreImportance, searchDistinct, SESSION_SUMMARY_TAG, type Episode, type Scope, type Session, type Stores } from '@memory-service/stores';
import { excerpt, type Action } from '../common.js';
import { freeFactKey } from './thinker.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What session_inject hands each tap with the blocks. */
type InjectContext = Scope & { text: string; budget: number };

/** A block as the hook declares it (InjectBlock): an object with a string source, title and text, and a score, when it has one, that is a number. */
function isInjectBlock(b: unknown): b is InjectBlock {
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
  const { source, title, text, score } = b as Record<string, unknown>;
  return typeof source === 'string' && typeof title === 'string' && typeof text === 'string' && (score === undefined || (typeof score === 'number' && Number.isFinite(score)));
}

/** The smallest and largest inject budget, in tokens: a budget asked for outside them is taken to the nearer one. */
export const INJECT_BUDGET_MIN = 50;
export const INJECT_BUDGET_MAX = 100_000;

/** payload.budget (a positive integer: the kernel checks it) kept within the bounds, or the fallback when absent. */
function budgetOf(payload: Record<string, unknown>, fallback: number): number {
  const b = payload.budget;
  return typeof b === 'number' && Number.isFinite(b) ? Math.min(Math.max(Math.floor(b), INJECT_BUDGET_MIN), INJECT_BUDGET_MAX) : fallback;
}

/**
 * new_message or auto_save_candidate with the text of an episode either saved in the same scope
 * this long ago or less (and not after now) answers that it was already saved, with that episode's ids, and writes
 * nothing: a client retrying, or a hook that fires twice, made a second episode and a second node.
 */
export const AUTO_SAVE_REPEAT_MS = 10 * 60_000;

/**
 * The primitives' answers to the seven lifecycle events of the spec. Their writes wait for another
 * process's write lock without blocking the server (Stores.transactionWhenFree), within the budget
 * of the memory_hook call that fired the event (EventContext.since, signal).
 */
export class LifecycleHandlers {
  /** hooks.auto_save_threshold and hooks.l4_threshold, read (and checked) once, when the plugin starts. */
  private readonly threshold: number;
  private readonly l4Threshold: number;

  constructor(
    private readonly stores: Stores,
    private readonly hooks: Readonly<Hooks>,
    config: Config,
    private readonly logger: Logger,
  ) {
    // A bad value stops the start with an error naming it, rather than failing every message later.
    this.threshold = config.number('hooks.auto_save_threshold', 0.5, 0, 1);
    this.l4Threshold = config.number('hooks.l4_threshold', 0.8, 0, 1);
  }

  private scope(e: EventContext): Scope {
    return { layer: e.layer, user_id: e.user_id };
  }

  /** The critical inject: top 5 relevant, recent L1 items, important facts and other plugins' blocks, capped by tokens. */
  async sessionStarted(e: EventContext) {
    const scope = this.scope(e);
    const text = str(e.payload.text);
    const budget = budgetOf(e.payload, this.stores.config.tokenBudget);
    const session = await this.stores.transactionWhenFree(() => this.stores.sessions.current(scope) ?? this.stores.sessions.start(scope), e);
    const blocks: InjectBlock[] = [];
    // Each memory once, as dream answers them (a remembered fact and its graph node are one hit).
    const relevant = !isBlank(text) ? searchDistinct(this.stores.retrieval, scope, text, 5) : [];
    if (relevant.length) {
      blocks.push({ source: 'retrieval', title: 'Relevant', text: relevant.map((h) => `- [${h.source}] ${excerpt(h.text, 300)}`).join('\n') });
    }
    const facts = this.stores.facts.list(scope, { limit: 10, orderBy: 'importance' });
    if (facts.length) {
      blocks.push({ source: 'l4', title: 'Important facts', text: facts.map((f) => `- ${f.key}: ${excerpt(f.value, 200)} (${f.importance.toFixed(2)})`).join('\n') });
    }
    const recent = this.stores.l1.list(scope, 10);
    if (recent.length) {
      blocks.push({ source: 'l1', title: 'Recent items', text: recent.map((i) => `- ${excerpt(i.text, 200)}`).join('\n') });
    }
    const all = await this.injectBlocks(blocks, { ...scope, text, budget });
    const fitted = fitToBudget(all.map((b) => ({ title: b.title, text: b.text })), budget);
    return {
      session_id: session.id,
      inject: fitted.sections.map((s) => `## ${s.title}\n${s.text}`).join('\n\n'),
      blocks: fitted.sections.map((s, i) => ({ source: all[i]!.source, title: s.title ?? '', score: all[i]!.score ?? null })),
      estimated_tokens: fitted.tokens,
      truncated: fitted.truncated,
    };
  }

  /**
   * The session_inject waterfall, called one tap at a time (in the hook's order) so that each
   * tap's answer is checked under its name, which is its plugin's name: a tap whose answer is not a
   * list fails alone as one that throws does (the next tap gets the blocks this one was given), and
   * a block in its list that is not an InjectBlock is left out; each is logged naming the plugin.
   * A tap answering undefined hands on the list it was given (as tapable does). What a plugin's tap
   * throws the kernel's guard has already logged under its name; a tap that reaches the hook
   * unguarded and throws is logged here the same way. (The hook's call interceptors are not run:
   * none is registered.)
   */
  private async injectBlocks(blocks: InjectBlock[], context: InjectContext): Promise<InjectBlock[]> {
    const fail = (plugin: string, why: string) => this.logger.error(`${plugin} failed on hook session_inject: ${why}`);
    let current = blocks;
    for (const tap of [...this.hooks.session_inject.taps]) {
      const given = [...current];
      let answer: unknown;
      try {
        answer = await callTap(tap, current, context);
      } catch (err) {
        fail(tap.name, err instanceof Error ? err.message : String(err));
        current = given;
        continue;
      }
      const list = answer === undefined ? current : answer;
      if (!Array.isArray(list)) {
        fail(tap.name, `it answered ${shownValue(list)}, not a list of blocks; the blocks it was given are handed on`);
        current = given;
        continue;
      }
      const kept = list.filter(isInjectBlock);
      if (kept.length < list.length) {
        const bad = list.filter((b) => !isInjectBlock(b));
        fail(
          tap.name,
          `left out ${bad.length} block(s) that are not { source, title, text } strings (score a number when present), the first ${shownValue(bad[0])}`,
        );
      }
      current = kept;
    }
    return current;
  }

  /** Saves the summary as an L3 episode tagged session_summary and closes the open L2 session. */
  async sessionEnded(e: EventContext) {
    const scope = this.scope(e);
    const summary = str(e.payload.summary).trim();
    if (isBlank(summary)) return { saved: false, reason: 'payload.summary is empty; nothing to save' };
    // A list of strings when present: the kernel refuses any other topics (EVENT_PAYLOAD_KEYS) before this runs.
    const topics = (e.payload.topics ?? undefined) as string[] | undefined;
    const state_deltas = e.payload.state_deltas ?? undefined;
    const closed = await this.stores.transactionWhenFree(() => {
      const earlier = this.endedRecently(scope, summary, topics ?? [], state_deltas ?? {});
      if (earlier) return { ...earlier, repeat: true };
      // Shared with memory_session_end (SessionCloser): score and close, then the summary episode.
      const { session, episode } = this.stores.sessionCloser.close(scope, { summary, topics, state_deltas }, { origin: 'session_ended' });
      return { session, episode, repeat: false };
    }, e);
    const { session, episode } = closed;
    if (closed.repeat) {
      return {
        saved: true,
        already_saved: true,
        episode_id: episode?.id ?? null,
        session_id: session.id,
        quality: session.quality,
        reason: `no session was open and ${session.id}, ended at ${session.ended}, was closed with the same summary, topics and state_deltas; nothing was written again`,
      };
    }
    try {
      await this.hooks.session_consolidation.promise({ ...scope, session_id: session.id, summary });
    } catch (err) {
      this.logger.error(`hook session_consolidation failed: ${(err as Error).message}`);
    }
    return { saved: true, episode_id: episode!.id, session_id: session.id, quality: session.quality };
  }

  /**
   * With no session open, the scope's last session when it was closed within AUTO_SAVE_REPEAT_MS before now with
   * this summary, topics and state_deltas (a retried or twice-fired session_ended), with its summary episode.
   */
  private endedRecently(scope: Scope, summary: string, topics: string[], deltas: unknown): { session: Session; episode: Episode | null } | undefined {
    if (this.stores.sessions.current(scope)) return undefined;
    const last = this.stores.sessions.lastClosed(scope);
    // The window ends at now: a session that ended after now (the clock stepped back) is not a recent one.
    const w = recentWindow(this.stores.ctx.clock.now(), AUTO_SAVE_REPEAT_MS);
    if (!last || last.ended === null || last.ended < w.since || last.ended > w.until || last.summary !== summary) return undefined;
    if (JSON.stringify(last.topics) !== JSON.stringify(topics) || JSON.stringify(last.state_deltas) !== JSON.stringify(deltas)) return undefined;
    return { session: last, episode: this.stores.episodes.latestWithSummary(scope, summary, { tag: SESSION_SUMMARY_TAG, since: last.ended }) };
  }

  /**
   * new_message and auto_save_candidate: at the threshold to L3 plus a graph node, at 0.8 also to L4.
   * The text of an episode auto-saved in the scope within AUTO_SAVE_REPEAT_MS before now is not saved
   * again (one dated after now, the clock stepped back, is no recent save).
   */
  async autoSave(e: EventContext) {
    const scope = this.scope(e);
    const text = str(e.payload.text).trim();
    const { threshold, l4Threshold } = this;
    if (isBlank(text)) return { saved: false, importance: 0, threshold, reason: 'payload.text is empty', actions: [] };
    const importance = scoreImportance(text);
    const actions: Action[] = [];
    const earlier = await this.stores.transactionWhenFree(() => {
      const repeat = this.dispatch(scope, e, text, importance, actions);
      // One audit row per dispatch, with what it saved (memory_report_card sums them: AuditLog.autoSaveSums).
      const saved = (store: string) => (!repeat && actions.some((a) => a.store === store) ? 1 : 0);
      this.stores.audit.log(scope, 'auto_save', 'hook', e.event, {
        importance,
        saved_l3: saved('l3'),
        saved_l4: saved('l4'),
        saved_graph: saved('graph'),
        ...(repeat ? { repeat_of: repeat.id } : {}),
      });
      return repeat;
    }, e);
    if (earlier) {
      const origin = typeof earlier.meta.origin === 'string' ? earlier.meta.origin : 'an auto-save';
      return {
        saved: true,
        already_saved: true,
        importance,
        threshold,
        l4_threshold: l4Threshold,
        reason: `the same text was saved from ${origin} at ${earlier.created} (${earlier.id}); nothing was written again`,
        actions,
      };
    }
    return { saved: importance >= threshold, importance, threshold, l4_threshold: l4Threshold, actions };
  }

  /**
   * The auto-save writes of one dispatch (in autoSave's transaction), their ids pushed on `actions`;
   * returns the earlier episode of the same text when it was saved recently (nothing written then).
   */
  private dispatch(scope: Scope, e: EventContext, text: string, importance: number, actions: Action[]): Episode | undefined {
    const { threshold, l4Threshold } = this;
    if (importance >= threshold) {
      const earlier = this.savedRecently(scope, text);
      if (earlier) {
        actions.push(...this.savedWith(scope, earlier, text, importance));
        return earlier;
      }
    }
    actions.push({ store: 'l1', id: this.stores.l1.push(scope, { text, kind: e.event }).id });
    if (importance < threshold) return undefined;
    const node = this.stores.graph.addNode(scope, { content: excerpt(text, 500), node_type: 'memory', tags: ['auto_save'], confidence: importance });
    // The episode names its node (as think's do), so a repeat can answer with it and forget removes both.
    const ep = this.stores.episodes.add(scope, {
      summary: text,
      importance,
      emotional_weight: 0,
      tags: ['auto_save', e.event],
      meta: { origin: e.event, derived_nodes: [node.node_id] },
    });
    actions.push({ store: 'l3', id: ep.id }, { store: 'graph', id: node.node_id });
    if (importance >= l4Threshold) {
      const fact = this.stores.facts.upsert(scope, {
        key: freeFactKey(this.stores, scope, 'auto', text),
        value: text,
        importance,
        source: 'staging_promotion',
        // Names the node made from the same text, so forget exact removes both (as think does).
        metadata: { origin: e.event, derived_nodes: [node.node_id] },
      });
      actions.push({ store: 'l4', id: fact.entry_id, key: fact.key });
    }
    return undefined;
  }

  /** The newest episode of the scope auto-saved from exactly this text within AUTO_SAVE_REPEAT_MS before now, if any. */
  private savedRecently(scope: Scope, text: string): Episode | undefined {
    // Up to now (latestWithSummary ends its window there): an episode dated after now is not a recent save.
    const { since } = recentWindow(this.stores.ctx.clock.now(), AUTO_SAVE_REPEAT_MS);
    return this.stores.episodes.latestWithSummary(scope, text, { tag: 'auto_save', since }) ?? undefined;
  }

  /** What an earlier save of the text left that is still there: its episode, node and fact. */
  private savedWith(scope: Scope, ep: Episode, text: string, importance: number): Action[] {
    const actions: Action[] = [{ store: 'l3', id: ep.id }];
    for (const id of derivedNodeIds(ep.meta)) if (this.stores.graph.getNode(scope, id)) actions.push({ store: 'graph', id });
    if (importance >= this.l4Threshold) {
      const fact = this.stores.facts.get(scope, freeFactKey(this.stores, scope, 'auto', text));
      if (fact && fact.value === text) actions.push({ store: 'l4', id: fact.entry_id, key: fact.key });
    }
    return actions;
  }

  /** Rehydrate candidates for a query after the caller compressed its context. */
  postContextCompression(e: EventContext) {
    const query = str(e.payload.query);
    const hits = !isBlank(query) ? searchDistinct(this.stores.retrieval, this.scope(e), query, 10) : [];
    return { query, candidates: hits.map((h) => ({ source: h.source, id: h.id, score: h.score, excerpt: excerpt(h.text) })) };
  }

  /** Advice only: the oldest L1 items beyond half the ring are eviction candidates. */
  contextThreshold(e: EventContext) {
    const items = this.stores.l1.list(this.scope(e));
    const capacity = this.stores.config.l1Size;
    const over = Math.max(0, items.length - Math.floor(capacity / 2));
    return {
      l1_count: items.length,
      capacity,
      candidates: items.slice(0, over).map((i) => ({ id: i.id, excerpt: excerpt(i.text, 120), created: i.created })),
      advice: over ? `Evicting the ${over} oldest L1 items would bring the ring to half its capacity; the decision is yours.` : 'The L1 ring is at most half full; nothing to evict.',
    };
  }

  /** Advice only: ring size and a compression hint. */
  memoryPressure(e: EventContext) {
    const count = this.stores.l1.count(this.scope(e));
    const capacity = this.stores.config.l1Size;
    const fill = capacity ? count / capacity : 0;
    return {
      l1_count: count,
      capacity,
      fill_ratio: Math.round(fill * 1000) / 1000,
      hint: fill >= 0.9 ? 'compress: summarise the L1 ring into an episode (session_ended) and clear it' : fill >= 0.6 ? 'watch: the ring is filling' : 'none',
    };
  }
}
