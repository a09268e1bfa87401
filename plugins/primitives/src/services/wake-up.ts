import { isBlank } from '@memory-service/kernel';
import { fitToBudget, searchDistinct, type BudgetSection, type Scope, type Stores } from '@memory-service/stores';
import { excerpt } from '../common.js';

export interface WakeUpInput extends Scope {
  budget: number;
  query?: string;
}

/** Distinct hits the query section lists at most. */
export const WAKE_UP_QUERY_HITS = 5;

/** Facts whose key starts with one of these are pending work. */
export const PENDING_KEY_PREFIXES = ['todo', 'task', 'pending'];

/**
 * The start-of-session brief: the last closed session, the most important facts, recent L1
 * items, the latest timeline events and pending work (scratchpad notes, todo facts), plus hits
 * for an optional query, in that order of priority within the token budget.
 */
export class WakeUp {
  constructor(private readonly stores: Stores) {}

  brief(input: WakeUpInput) {
    const scope: Scope = { layer: input.layer, user_id: input.user_id };
    const sections: (BudgetSection & { key: string })[] = [];
    const last = this.stores.sessions.lastClosed(scope);
    if (last) {
      const topics = last.topics.length ? `\nTopics: ${last.topics.join(', ')}` : '';
      const deltas = JSON.stringify(last.state_deltas ?? {});
      const changes = deltas === '{}' || deltas === '[]' ? '' : `\nState deltas: ${excerpt(deltas, 500)}`;
      sections.push({ key: 'last_session', title: `Last session (ended ${last.ended})`, text: `${last.summary ?? ''}${topics}${changes}` });
    }
    if (input.query !== undefined && !isBlank(input.query)) {
      // Each memory once (a remembered fact and its graph node are one): 5 distinct hits.
      const hits = searchDistinct(this.stores.retrieval, scope, input.query, WAKE_UP_QUERY_HITS);
      if (hits.length) sections.push({ key: 'query', title: `About "${excerpt(input.query, 60)}"`, text: hits.map((h) => `- [${h.source}] ${excerpt(h.text, 300)}`).join('\n') });
    }
    const facts = this.stores.facts.list(scope, { limit: 10, orderBy: 'importance' });
    if (facts.length) sections.push({ key: 'facts', title: 'Important facts', text: facts.map((f) => `- ${f.key}: ${excerpt(f.value, 200)}`).join('\n') });
    const pendingFacts = this.stores.facts
      .list(scope, { limit: 200, orderBy: 'updated' })
      .filter((f) => PENDING_KEY_PREFIXES.some((p) => f.key.startsWith(`${p}:`) || f.key.startsWith(`${p}_`)));
    const notes = this.stores.scratchpad.read(scope);
    if (pendingFacts.length || notes.length) {
      sections.push({
        key: 'pending',
        title: 'Pending work',
        text: [...pendingFacts.map((f) => `- ${f.key}: ${excerpt(f.value, 200)}`), ...notes.map((n) => `- scratchpad ${n.key}: ${excerpt(n.content, 200)}`)].join('\n'),
      });
    }
    const recent = this.stores.l1.list(scope, 10);
    if (recent.length) sections.push({ key: 'recent', title: 'Recent items', text: recent.map((i) => `- ${excerpt(i.text, 200)}`).join('\n') });
    const events = this.stores.timeline.latest(scope, 5);
    if (events.length) sections.push({ key: 'timeline', title: 'Latest events', text: events.map((e) => `- ${e.created} [${e.type}] ${excerpt(e.summary, 160)}`).join('\n') });

    const fitted = fitToBudget(sections, input.budget);
    const included = sections.slice(0, fitted.sections.length).map((s) => s.key);
    return {
      brief: fitted.sections.length ? fitted.sections.map((s) => `## ${s.title}\n${s.text}`).join('\n\n') : 'No memories yet for this layer and user.',
      sections: included,
      counts: { facts: facts.length, pending: pendingFacts.length + notes.length, recent_items: recent.length, events: events.length, has_last_session: !!last },
      estimated_tokens: fitted.tokens,
      truncated: fitted.truncated,
    };
  }
}
