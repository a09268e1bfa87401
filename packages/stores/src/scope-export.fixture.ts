import type { Env } from './test-helpers.js';
import type { Scope } from './types.js';

/** Text that JSON writes with escapes and in several UTF-8 lengths: accents, emoji, CJK, quotes, controls, separators. */
export const UNICODE = 'Café ☕ 日本語 𝄞 👩‍👩‍👧 "quoted" back\\slash tab\tline\nsep\u2028para\u2029 ctrl\u001f end';

/** Every record kind of a scope document, several of some, with unicode in their texts (scope-export.test.ts). */
export function seedEveryKind(env: Env, scope: Scope, n = 3): void {
  const s = env.stores;
  for (let i = 0; i < n; i++) {
    s.facts.upsert(scope, { key: `city ${i} ${UNICODE.slice(0, 11)}`, value: `Lyon ${i} ${UNICODE}`, importance: 0.8, source: 'user_explicit', metadata: { origin: UNICODE, n: i, nested: { list: [1, 'two', null, true] } } });
    env.clock.advance(1000);
    s.episodes.add(scope, { summary: `Hiked ${i} ${UNICODE}`, tags: ['trip', `mood:${UNICODE.slice(0, 4)}`], emotional_weight: 0.7, context: `before ${UNICODE}` });
    s.timeline.add(scope, { type: 'thought', summary: `thinking ${i} ${UNICODE}`, metadata: { training_value: 'high', note: UNICODE } });
    s.scratchpad.write(scope, `todo ${i}`, `pack ${UNICODE}`);
  }
  s.wiki.save(scope, { title: `Trips ${UNICODE.slice(0, 14)}`, content: `# Trips\nVercors ${UNICODE}`, wiki_type: 'diary', tags: ['travel', UNICODE.slice(0, 6)] });
  s.wiki.save(scope, { title: 'Review', content: 'good', wiki_type: 'retrospective' });
  s.wiki.link(scope, 'Review', `Trips ${UNICODE.slice(0, 14)}`, 'review_of');
  const a = s.graph.addNode(scope, { content: `Ana ${UNICODE}`, node_type: 'person' });
  const b = s.graph.addNode(scope, { content: 'Lyon', node_type: 'place', tags: ['city', UNICODE.slice(0, 4)] });
  s.graph.addEdge(scope, { from: a.node_id, to: b.node_id, relation: 'mentions', strength: 0.4 });
  s.sessions.start(scope);
  s.sessions.end(scope, { summary: `done ${UNICODE}`, topics: ['trip', UNICODE.slice(0, 4)], state_deltas: { moved: UNICODE, list: [1, 2] } });
  s.sessions.start(scope);
  s.counterfactuals.save(scope, { anchor: 'move', premise: `if we had moved to Lyon ${UNICODE}`, projection: 'more sun' });
  s.procedures.save(scope, 'Deploy', { steps: ['build', `ship ${UNICODE}`], description: 'ship it', trigger: 'release day' });
  s.procedures.record(scope, 'deploy', 'success', `smooth ${UNICODE}`);
  // A stash takes the scratchpad's entries: one is written again after it.
  s.stashes.push(scope, 'plan-a', `for later ${UNICODE}`);
  s.scratchpad.write(scope, 'after the stash', `kept ${UNICODE}`);
  s.branches.create(scope, 'what-if');
  s.branches.set(scope, 'what-if', 'city 0 Café ☕ 日本', `Paris ${UNICODE}`, 0.9);
  s.branches.set(scope, 'what-if', 'pet', 'cat');
  s.reflections.write(scope, { period_hours: 24 });
  const rule = s.disclosure.add(scope, { name: 'Allergy', trigger_keywords: ['food', 'dîner'], content: `Allergic to nuts ${UNICODE}` });
  s.disclosure.setEnabled(scope, rule.rule_id, false);
  s.watchRules.add(scope, { name: 'Big', trigger: 'message_received', predicate: { min_importance: 0.8, keywords: ['deadline', 'échéance'] }, action: 'log' });
  s.standing.save(scope, 'Important', { target: 'core', importance_min: 0.7, description: `key facts ${UNICODE.slice(0, 10)}` });
  s.proposals.propose(scope, { kind: 'core_write', key: 'pet', value: `cat ${UNICODE}`, importance: 0.6 });
  env.clock.advance(60_000);
}
