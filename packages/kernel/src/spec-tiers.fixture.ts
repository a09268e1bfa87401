/** The spec's tier table (plus the two wiki tools ARCHITECTURE.md adds), for exposure tests. */
export const SPEC_TIERS: Record<string, string[]> = {
  primitives: ['think', 'dream', 'forget', 'evolve', 'project', 'memory_hook', 'wake_up'],
  wiki: ['wiki_add', 'wiki_search', 'wiki_list', 'wiki_read', 'wiki_delete', 'wiki_summarize', 'wiki_link', 'wiki_query', 'wiki_reflect'],
  review: ['memory_proposals', 'memory_report_card', 'memory_watch', 'daily_brief'],
  context: ['memory_recall_protocol', 'memory_recap', 'memory_get_smart_context', 'memory_context', 'memory_context_inject', 'memory_steering', 'memory_compress'],
  insight: ['memory_query', 'memory_fact_blame', 'memory_history', 'memory_quality', 'memory_reflect', 'memory_stats', 'memory_search', 'memory_recall', 'memory_episode_recall', 'memory_episode_list', 'memory_episode_get', 'memory_session_list', 'memory_graph_query', 'memory_graph_nodes', 'memory_graph_edges', 'memory_diagnose', 'memory_standing'],
  write: ['memory_remember', 'memory_save_typed', 'memory_load_rules', 'memory_scratchpad', 'memory_counterfactual', 'memory_branch', 'memory_history', 'memory_stash', 'memory_procedure', 'memory_episode_save', 'memory_graph_add', 'memory_session_start', 'memory_session_end', 'memory_heal', 'memory_disclose', 'memory_standing', 'memory_skill_promote'],
  admin: ['memory_api_key', 'memory_backup', 'memory_cleanup', 'memory_data', 'memory_lucidity_purge', 'memory_saga', 'memory_sync_replica'],
};
