import type { EventContext, EventResults, Hooks, MessageInfo } from '@memory-service/kernel';
import { clampImportance, scoreImportance, type Stores, type WatchEvent } from '@memory-service/stores';

/** What a lifecycle handler answered about a save: its importance and the records it wrote. */
function savedBy(results: EventResults): { importance: number; actions: { store: string; id: string }[] } | null {
  for (const v of Object.values(results)) {
    if (v && typeof v === 'object' && typeof (v as any).importance === 'number' && Array.isArray((v as any).actions)) {
      const actions = ((v as any).actions as unknown[]).filter(
        (a): a is { store: string; id: string } => !!a && typeof (a as any).store === 'string' && typeof (a as any).id === 'string',
      );
      return { importance: (v as any).importance, actions };
    }
  }
  return null;
}

/**
 * Evaluate the watch rules on the events they watch: think (thought_stored, in its transaction), the new_message
 * and auto_save_candidate lifecycle events (after the handlers that save them), and
 * memory_remember (its importance gate, tapped last so it sees the final importance). Tapped in
 * the review plugin's setup, so rules work whether or not memory_watch is exposed.
 */
export function tapWatchRules(plugin: string, hooks: Readonly<Hooks>, stores: Stores): void {
  hooks.thought_stored.tap(plugin, (m: MessageInfo) => {
    const scope = { layer: m.layer, user_id: m.user_id };
    const l4 = m.ids.some((r) => r.store === 'l4');
    stores.watchRules.fire(scope, 'message_received', { text: m.text, importance: m.importance, l4_importance: l4 ? m.importance : null, sender: null, refs: m.ids });
  });

  for (const trigger of ['new_message', 'auto_save_candidate'] as const) {
    hooks[trigger].tapPromise(plugin, async (results: EventResults, e: EventContext) => {
      const scope = { layer: e.layer, user_id: e.user_id };
      if (!stores.watchRules.watching(scope, trigger)) return results;
      const text = typeof e.payload.text === 'string' ? e.payload.text : '';
      const saved = savedBy(results);
      const l4 = saved?.actions.find((a) => a.store === 'l4');
      const fact = l4 ? stores.facts.getByEntryId(l4.id) : null;
      const event: WatchEvent = {
        text,
        importance: saved?.importance ?? scoreImportance(text),
        l4_importance: fact ? fact.importance : null,
        sender: typeof e.payload.sender === 'string' ? e.payload.sender : null,
        refs: saved?.actions ?? [],
      };
      const fired = stores.watchRules.fire(scope, trigger, event);
      return fired.length > 0 ? { ...results, [plugin]: { watch_hits: fired } } : results;
    });
  }

  hooks.importance_gate.tap({ name: plugin, stage: 1000 }, (importance: number, fact) => {
    const scope = { layer: fact.layer, user_id: fact.user_id };
    const final = clampImportance(importance);
    stores.watchRules.fire(scope, 'remember', {
      text: `${fact.key}: ${fact.value}`,
      importance: final,
      l4_importance: final,
      sender: null,
      refs: [{ store: 'l4_key', id: fact.key }],
    });
    return importance;
  });
}
