import { charLength, checkNoControlChars, checkNoHiddenFormat, cutChars, invalid, isBlank, overChars, toNfc, type Clock, type Hooks, type Logger, type MessageInfo } from '@memory-service/kernel';
import {
  checkWikiType,
  EMOTIONAL_L3,
  extractRelation,
  isSignificant,
  L4_IMPORTANCE,
  LONG_THOUGHT_CHARS,
  scoreAgentVoice,
  scoreEmotionalWeight,
  scoreImportance,
  SHORT_THOUGHT_CHARS,
  thoughtLinkText,
  trainingValue,
  WIKI_TITLE_MAX,
  type GeneratedKeyPrefix,
  type Layer,
  type Scope,
  type Stores,
} from '@memory-service/stores';
import { compactTs, excerpt, type Action } from '../common.js';

export interface ThinkInput {
  text: string;
  layer: Layer | 'auto';
  user_id: string;
  wiki_type?: string | null;
  wiki_title?: string | null;
}

export type ThinkRule = 'wiki_forced' | 'long_to_wiki' | 'short_important_to_l4' | 'long_or_emotional_to_l3' | 'default_l3';

export interface ThinkResult {
  routing: {
    importance: number;
    length: number;
    emotional_weight: number;
    resolved_layer: Layer;
    rule: ThinkRule;
    training_value: 'high' | 'medium' | 'low';
  };
  actions: Action[];
  user_id: string;
}

/** A previous thought at most this old is indexed as the neighbouring context of a new episode. */
export const NEIGHBOUR_WINDOW_MS = 30 * 60 * 1000;
/**
 * How many previous thoughts make a new episode's neighbouring context: in an exchange the answer
 * often comes two turns after the words that ask for it ("What was it like?" "Breathtaking!" "I
 * felt tiny..."). On the LoCoMo development pair, two gave recall@5/10/20 0.661/0.745/0.819
 * against 0.649/0.738/0.788 with one; three and four did worse than two.
 */
export const NEIGHBOURS = 2;

/** Default wiki type of an automatic page per layer (routing rule 1). */
export const LONG_THOUGHT_TYPE: Record<Layer, string> = { agent: 'decision_log', user: 'diary' };

/** At most this many characters (code points) of words in a generated fact key, as in a file slug. */
export const KEY_WORDS_MAX = 80;

/** Combining accents on a Latin letter, once decomposed (é -> e + U+0301); й or ё keep theirs. */
const LATIN_ACCENTS = /(\p{Script=Latin})[\u0300-\u036f]+/gu;
/** A word of a key: a letter or digit, then letters, digits and the marks inside words (vowel signs). */
const KEY_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * A key for an L4 fact made by think or evolve: the prefix, then the first six words, lower case,
 * joined by '-' (fuzzy forget never matches it: GENERATED_KEY_PREFIXES). Accents on Latin letters
 * are folded as in a file slug (café -> cafe); letters of every other script are kept whole (й, ß,
 * 日本語, हिन्दी): a key is no path, and a slug of them was `untitled` for every such fact. Only
 * the first six words are read and folded, not a long thought's whole text.
 */
export function baseKey(prefix: GeneratedKeyPrefix, text: string): string {
  const first: string[] = [];
  for (const m of text.matchAll(KEY_WORD)) {
    first.push(cutChars(m[0], KEY_WORDS_MAX));
    if (first.length === 6) break;
  }
  // Folding can split a word (a compatibility form such as ½ becomes 1⁄2): the words are taken again.
  const words = first.join(' ').normalize('NFKD').replace(LATIN_ACCENTS, '$1').normalize('NFC').toLowerCase().match(KEY_WORD) ?? [];
  if (words.length === 0) return `${prefix}:note`;
  return `${prefix}:${cutChars(words.join('-'), KEY_WORDS_MAX).replace(/-+$/, '')}`;
}

/** The key for this value in its family (FactStore.keyFor): the same value keeps its key, another value never overwrites. */
export function freeFactKey(stores: Stores, scope: Scope, prefix: GeneratedKeyPrefix, text: string): string {
  return stores.facts.keyFor(scope, baseKey(prefix, text), text);
}

/**
 * The routing of the think primitive, rules 1-5 of the spec in order. Every write of one thought
 * happens in one transaction; hooks fire after it commits.
 */
export class Thinker {
  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
    private readonly hooks: Readonly<Hooks>,
    private readonly logger: Logger,
    private readonly maxChars: number,
  ) {}

  /**
   * Store one thought. The answer is a value when nothing is tapped on the hooks it fires (the
   * usual case), so a transport can answer within the same turn; otherwise a promise that settles
   * once the hook handlers have run.
   */
  think(input: ThinkInput): ThinkResult | Promise<ThinkResult> {
    // Stored as sent (a code block keeps its indentation); blank and routing length read it without outer white space.
    const text = input.text;
    if (isBlank(text)) throw invalid('text', 'must not be empty or only white space and invisible characters', 'text with a visible character');
    const explicitTitle = input.wiki_title === undefined || input.wiki_title === null ? null : input.wiki_title.trim();
    if (explicitTitle !== null && isBlank(explicitTitle)) throw invalid('wiki_title', 'must not be empty or only white space and invisible characters (omit it, or pass null, for an automatic Thought_<timestamp> title)', 'non-empty string or null');
    // A title is one line: a line break forged a heading of dream's summary, an escape sequence reached every reader's terminal.
    if (explicitTitle !== null) checkNoControlChars('wiki_title', explicitTitle);
    // Nor a character that shows nothing or reorders what is shown, which the wiki refuses in a title (naming title).
    if (explicitTitle !== null) checkNoHiddenFormat('wiki_title', explicitTitle);
    if (overChars(input.text, this.maxChars)) {
      throw invalid('text', `is ${charLength(input.text)} characters; the limit is ${this.maxChars} (think.max_text_chars)`, {
        max: this.maxChars,
      });
    }
    const forcedType = input.wiki_type ?? null;
    if (forcedType !== null) checkWikiType(forcedType);
    const importance = scoreImportance(text);
    const emotional = scoreEmotionalWeight(text);
    const resolved: Layer = input.layer === 'auto' ? scoreAgentVoice(text).layer : input.layer;
    const scope: Scope = { layer: resolved, user_id: input.user_id };
    // Characters are code points, as a user counts them (docs/decisions.md): an emoji is one. They
    // are counted in NFC, so a text sent with combining accents (NFD: macOS, some keyboards) is as
    // long as the same text precomposed; the text itself is stored as sent.
    const length = charLength(toNfc(text.trim()));
    const training = trainingValue(text, importance);
    const now = this.clock.now();
    const actions: Action[] = [];

    const rule: ThinkRule = this.stores.transaction(() => {
      const context = this.neighbours(scope, now);
      // Rule 5 runs first so the fact or episode made by this thought can name its node (forget removes both).
      const relation = extractRelation(text);
      const node = relation
        ? this.stores.graph.addNode(scope, {
            content: `${relation.subject} ${relation.relation.replace(/_/g, ' ')} ${relation.object}`,
            node_type: 'relation',
            tags: ['thought', `relation:${relation.relation}`],
            confidence: Math.max(0.3, importance),
          })
        : null;
      const derived = node ? { derived_nodes: [node.node_id] } : {};
      let episodeId: string | undefined;
      let chosen: ThinkRule;
      if (forcedType !== null || explicitTitle !== null) {
        chosen = 'wiki_forced';
        const page = this.stores.wiki.save(scope, {
          title: explicitTitle !== null ? this.freeExplicitTitle(scope, explicitTitle) : this.autoTitle(scope, now),
          content: text,
          wiki_type: forcedType ?? LONG_THOUGHT_TYPE[resolved],
          tags: ['thought'],
        });
        actions.push({ store: 'wiki', id: page.id, path: page.path, kind: page.wiki_type });
      } else if (length > LONG_THOUGHT_CHARS) {
        chosen = 'long_to_wiki';
        const page = this.stores.wiki.save(scope, {
          title: this.autoTitle(scope, now),
          content: text,
          wiki_type: LONG_THOUGHT_TYPE[resolved],
          tags: ['thought', 'long_thought'],
        });
        actions.push({ store: 'wiki', id: page.id, path: page.path, kind: page.wiki_type });
        // forget reads the link without the page's title and path (writtenText): they are not the user's words.
        const link = thoughtLinkText(excerpt(text, 280), page);
        if (importance > L4_IMPORTANCE) {
          const fact = this.stores.facts.upsert(scope, {
            key: freeFactKey(this.stores, scope, 'thought', text),
            value: link,
            importance,
            source: 'user_explicit',
            metadata: { wiki_path: page.path, origin: 'think', ...derived },
          });
          actions.push({ store: 'l4', id: fact.entry_id, key: fact.key, kind: 'wiki_link' });
        } else {
          const ep = this.stores.episodes.add(scope, {
            summary: link,
            emotional_weight: emotional,
            importance,
            tags: ['thought', 'wiki_link'],
            meta: { wiki_path: page.path, origin: 'think', ...derived },
          });
          actions.push({ store: 'l3', id: ep.id, kind: 'wiki_link' });
        }
      } else if (length < SHORT_THOUGHT_CHARS && importance > L4_IMPORTANCE) {
        chosen = 'short_important_to_l4';
        const fact = this.stores.facts.upsert(scope, {
          // A core fact is a short value: white space around it is no part of it, and "Alice " must
          // find the fact "Alice" holds (the same value keeps its key).
          key: freeFactKey(this.stores, scope, 'note', text.trim()),
          value: text.trim(),
          importance,
          source: 'user_explicit',
          metadata: { origin: 'think', ...derived },
        });
        actions.push({ store: 'l4', id: fact.entry_id, key: fact.key });
      } else {
        chosen = length >= SHORT_THOUGHT_CHARS || emotional > EMOTIONAL_L3 ? 'long_or_emotional_to_l3' : 'default_l3';
        const ep = this.stores.episodes.add(scope, {
          summary: text,
          emotional_weight: emotional,
          importance,
          tags: ['thought'],
          meta: { origin: 'think', ...derived },
          context,
        });
        episodeId = ep.id;
        actions.push({ store: 'l3', id: ep.id });
      }
      const l1 = this.stores.l1.push(scope, { text, kind: 'thought', ...(episodeId ? { ref: episodeId } : {}) });
      actions.unshift({ store: 'l1', id: l1.id });
      if (node) actions.push({ store: 'graph', id: node.node_id, kind: 'relation' });
      if (isSignificant(importance, emotional)) {
        const ev = this.stores.timeline.add(scope, {
          type: 'thought',
          summary: excerpt(text, 200),
          metadata: { training_value: training, importance, emotional_weight: emotional, refs: actions.map((a) => `${a.store}:${a.id}`) },
        });
        actions.push({ store: 'timeline', id: ev.id, kind: 'thought' });
      }
      // Taps on what think wrote (write-gate and watch rules) run here, synchronously, in its transaction.
      if (this.hooks.thought_stored.isUsed()) {
        this.hooks.thought_stored.call({ ...scope, text, importance, emotional_weight: emotional, ids: actions.map(({ store, id }) => ({ store, id })) });
      }
      return chosen;
    });

    const result: ThinkResult = {
      routing: { importance, length, emotional_weight: emotional, resolved_layer: resolved, rule, training_value: training },
      actions,
      user_id: input.user_id,
    };
    const emotion = resolved === 'user' && emotional > EMOTIONAL_L3;
    // A hook nothing is tapped on does nothing when fired: no need to wait a turn for it.
    if (!this.hooks.message_received.isUsed() && !(emotion && this.hooks.emotion_trigger.isUsed())) return result;
    const info: MessageInfo = { ...scope, text, importance, emotional_weight: emotional, ids: actions.map(({ store, id }) => ({ store, id })) };
    return this.afterHooks(info, emotion, result);
  }

  /** Fire message_received (and emotion_trigger for an emotional thought on the user layer), then answer. */
  private async afterHooks(info: MessageInfo, emotion: boolean, result: ThinkResult): Promise<ThinkResult> {
    await this.fire('message_received', () => this.hooks.message_received.promise(info));
    if (emotion) await this.fire('emotion_trigger', () => this.hooks.emotion_trigger.promise(info));
    return result;
  }

  /**
   * The title a thought's page gets when the caller named one: that title, or when the scope already
   * has a page of it, the first free `<title>-<n>`. A thought only ever adds a page: saving under an
   * existing title would replace that page's content (another thought, a project's page), and think
   * never drops what was stored.
   */
  private freeExplicitTitle(scope: Scope, title: string): string {
    const free = this.stores.wiki.freeTitle(scope, title);
    if (overChars(free, WIKI_TITLE_MAX)) {
      throw invalid(
        'wiki_title',
        `names a page that exists, and the numbered title for a new page ("${cutChars(free, 40)}...") would be over ${WIKI_TITLE_MAX} characters: choose a shorter or another title`,
        { max: WIKI_TITLE_MAX },
      );
    }
    return free;
  }

  /** `Thought_<ts>`, with -2, -3… when a page of that title exists: an automatic page never replaces another. */
  private autoTitle(scope: Scope, now: number): string {
    return this.stores.wiki.freeTitle(scope, `Thought_${compactTs(now)}`);
  }

  /**
   * The thoughts just before this one in the scope, nearest first, one per line: those of the same
   * exchange, back to the first item that is no thought or is older than the window. The nearest
   * comes first, so the episode's context cap (EPISODE_CONTEXT_MAX_CHARS) cuts the farther one.
   */
  private neighbours(scope: Scope, now: number): string {
    const items = this.stores.l1.recent(scope, NEIGHBOURS);
    let context = '';
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i]!;
      if (item.kind !== 'thought') break;
      const age = now - Date.parse(item.created);
      if (!(age >= 0 && age <= NEIGHBOUR_WINDOW_MS)) break;
      context = context ? `${context}\n${item.text}` : item.text;
    }
    return context;
  }

  /** The write has landed; a failing hook handler is logged, never turned into a lost write. */
  private async fire(name: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.logger.error(`hook ${name} failed: ${(err as Error).message}`);
    }
  }
}
