export * from './types.js';
export * from './errors.js';
export { slugify, safeJoin, idSegment, isInside, writeFileAtomic } from './paths.js';
export { holdsWord, parseId, wordsMatcher } from './util.js';
export { cleanForgottenLinks, type LinksCleaned } from './forget-links.js';
export { storesMigrations } from './migrations/index.js';
export { FTS_TABLES } from './migrations/fts.js';
export { StoreContext } from './context.js';
export { Stores, DEFERRED_WRITE_MS, ACCESS_FLUSH_ROWS, INDEX_CATCH_UP_MS, INDEX_CATCH_UP_MAX_MS } from './stores.js';
export { AuditLog, type AuditEntry, type ImportanceChange } from './audit.js';
export { Breaker, BreakerRegistry, BREAKER_NAMES, BREAKER_THRESHOLD, BREAKER_COOLDOWN_MS, type BreakerName, type BreakerState, type BreakerSnapshot } from './ops/breakers.js';
export { ApiKeyStore, API_KEY_ID_MAX, API_KEY_NAME_MAX, API_KEY_PREFIX, API_KEY_TOUCH_MS, type ApiKeyInfo, type ApiKeyVerdict } from './ops/api-keys.js';
export { BackupStore, BACKUP_DIR, BACKUP_NAME, BACKUP_KINDS, type BackupKind, type BackupInfo, type BackupStatus, type RestoreResult, type SchedulerState } from './ops/backups.js';
export { BACKUP_FILES_TABLE, BACKUP_FILE_MAX_BYTES, type BackupFilesSaved, type StandingFilesMatched } from './ops/backup-files.js';
export {
  Health,
  HEAL_ACTIONS,
  L1_QUARANTINE_DIR,
  PROPOSAL_BACKLOG_WARN,
  PROPOSAL_MAX_AGE_MS,
  WRITE_PROBE_NAME,
  type HealAction,
  type HealResult,
  type HealthCheck,
  type CheckStatus,
  type OverallStatus,
  type Diagnosis,
  type MigrationHost,
} from './ops/health.js';
export {
  Sagas,
  SAGA_DEFS,
  SAGA_NAMES,
  SAGA_TIMEOUT_SECONDS_DEFAULT,
  SAGA_CLOSE_WAIT_MS,
  type SagaName,
  type SagaDef,
  type SagaStepDef,
  type SagaStepContext,
  type SagaResult,
  type StepOutcome,
  type StepStatus,
} from './ops/sagas.js';
export {
  SagaJournal,
  SAGA_RUN_STATUSES,
  SAGA_LIST_MAX,
  type SagaRun,
  type SagaRunStatus,
  type SagaFinalStatus,
  type JournalStep,
  type JournalStepStatus,
  type CompensatedBy,
  type SagaOwner,
} from './ops/saga-journal.js';
export {
  SagaWatchdog,
  SAGA_WATCHDOG_INTERVAL_SECONDS_DEFAULT,
  SAGA_WATCHDOG_FIRST_CHECK_MS,
  SAGA_STALE_MIN_MS,
  SAGA_FAILED_WARN_DAYS,
  type WatchdogAction,
  type WatchdogReason,
  type WatchdogReport,
} from './ops/saga-watchdog.js';
export { L1Ring, L1_FLUSH_MS, type L1Item, type L1PushInput, type L1File, type L1FileCheck } from './l1.js';
export { SessionStore, type Session, type SessionEndInput, type SessionQualityDetail } from './sessions.js';
export {
  ScratchpadStore,
  SCRATCHPAD_PROMOTE_TARGETS,
  type ScratchpadEntry,
  type ScratchpadPromoteTarget,
  type ScratchpadPromoteOptions,
  type ScratchpadPromotion,
} from './scratchpad.js';
export { SessionCloser, SESSION_SUMMARY_TAG, type SessionCloseOptions, type SessionClosed } from './session-close.js';
export { EpisodeStore, EPISODE_PREFIX, type Episode, type EpisodeInput, type EpisodeListOptions, DREAM_MARKER_TAG } from './episodes.js';
export { tagDimension, facetGroups, matchesFacets } from './tags.js';
export { thoughtLinkText, writtenText } from './thought-link.js';
export {
  FactStore,
  FACT_SOURCES,
  IMPORTANCE_MIN,
  IMPORTANCE_MAX,
  FACT_KEY_MAX,
  clampImportance,
  checkFactImportance,
  FACT_IMPORTANCE_ACCEPTED,
  GENERATED_KEY_PREFIXES,
  FACT_PREFIX,
  type GeneratedKeyPrefix,
  type Fact,
  type FactInput,
  type FactListOptions,
  type FactSource,
} from './facts.js';
export {
  WIKI_TYPES,
  WIKI_TYPES_USER,
  WIKI_TYPES_AGENT,
  WIKI_LINK_RELATIONS,
  SKILL_PAGE_MAX_BYTES,
  isWikiType,
  wikiLint,
  wikiSizeLint,
  checkWikiType,
  type WikiType,
  type WikiLinkRelation,
} from './wiki-types.js';
export {
  WIKI_PERSPECTIVES,
  WIKI_PERSPECTIVE_NAMES,
  WIKI_DIGEST_MAX_TOKENS,
  WIKI_EXCERPT_CHARS,
  WikiViews,
  excerptAround,
  type WikiPerspective,
  type WikiSearchHit,
  type WikiSummary,
} from './wiki-views.js';
export {
  WIKI_QUERY_MAX_LIMIT,
  WIKI_QUERY_DEFAULT_LIMIT,
  WIKI_QUERY_CONTENT_MAX,
  WIKI_QUERY_TITLE_MAX,
  ISO_TIMESTAMP_ACCEPTED,
  checkIsoTimestamp,
  type WikiQuery,
  type WikiQueryResult,
} from './wiki-query.js';
export { ISO_MIN, ISO_MAX, ISO_RANGE, checkTimeRange, isoBoundDescription, recentWindow, recencyAge, type DateOnly, type TimeWindow } from './iso-time.js';
export {
  WIKI_REFLECT_HOURS_MIN,
  WIKI_REFLECT_HOURS_MAX,
  WIKI_REFLECT_HOURS_DEFAULT,
  WIKI_REFLECT_MAX_TOKENS,
  WIKI_REFLECT_TOP_LINKED,
  WIKI_REFLECT_LIST_MAX,
  type WikiReflection,
  type WikiLinkedPage,
  type WikiLintedPage,
} from './wiki-reflect.js';
export { WIKI_TITLE_MAX, WikiStore, type WikiPage, type WikiPageInfo, type WikiSaveInput, type WikiLinkRef } from './wiki.js';
export { WikiFilesBehind, type WikiFilesMatched } from './wiki-files.js';
export {
  GraphStore,
  SOCIAL_NODE_TYPES,
  GRAPH_RELATIONS,
  CAUSAL_RELATIONS,
  ALL_RELATIONS,
  normalizeContent,
  derivedNodeIds,
  NODE_PREFIX,
  type GraphNode,
  type GraphNodeInput,
  type GraphEdge,
  type GraphEdgeInput,
  type GraphRelation,
} from './graph.js';
export { TimelineStore, type TimelineEvent } from './timeline.js';
export { RecallEventStore, RECALL_TRIM_MAX_ROWS, recallTrimEvery, type RecallEvent, type RecallEventInput, type OpenGap } from './recall-events.js';
export { ShadowBin, SHADOW_ORIGINS, type ShadowEntry, type ShadowArchiveInput, type ShadowOrigin } from './shadow-bin.js';
export { ARTIFACT_PATH_MAX, ProjectStore, type Project, type ProjectDecision, type ProjectArtifact } from './projects/projects.js';
export { scanCodeSymbols, extractSymbols, SKIPPED_DIRS, type CodeSymbol, type ScanOptions, type ScanResult } from './projects/code-symbols.js';
export {
  Retrieval,
  RETRIEVAL_SOURCES,
  DEFAULT_SOURCES,
  INTENTS,
  INTENT_WEIGHTS,
  SEARCH_LIMIT_MAX,
  RECENCY_HALF_LIFE_MS,
  ACCESS_SATURATION,
  type Hit,
  type Explain,
  type Intent,
  type RetrievalSource,
  type SearchOptions,
  type FusionWeights,
} from './retrieval/retrieval.js';
export { STOP_WORDS, queryTerms, buildMatch, wordTokens, foldText } from './retrieval/query.js';
export { collapseRedundant, comparableText, searchDistinct, standsIn, standsInAny, DISTINCT_ASK_MAX, type DistinctSearch } from './retrieval/distinct.js';
export { fitToBudget, type BudgetSection, type FittedSections } from './retrieval/budget.js';
export * from './scorers/index.js';
export { useStores, STORES_OWNER, BACKUP_INTERVAL_HOURS_DEFAULT } from './kernel-binding.js';
export { AccessLog, type AccessTable } from './access-log.js';
export {
  MEMORY_QUERY_MAX_LIMIT,
  MEMORY_QUERY_DEFAULT_LIMIT,
  MEMORY_QUERY_LIKE_MAX,
  MEMORY_QUERY_TARGETS,
  substringLike,
  type MemoryQuery,
  type MemoryQueryTarget,
} from './memory-query.js';
export {
  Nightly,
  NIGHTLY_PHASES,
  NIGHTLY_INTERVAL_HOURS_DEFAULT,
  NIGHTLY_CHECK_EVERY_MS,
  NIGHTLY_FIRST_CHECK_MS,
  NIGHTLY_REFLECTION_HOURS,
  NIGHTLY_PREFIX,
  type NightlyPhase,
  type NightlyRun,
  type NightlyRunStatus,
  type NightlyTrigger,
  type NightlyHook,
  type PhaseOutcome,
  type PhaseStatus,
  type ScopeOutcome,
} from './nightly.js';
export { scopeProblem, type NightlyScopesHook, type PluginScopesOutcome } from './nightly-scopes.js';
export { Consolidator, CONSOLIDATION_MIN_IMPORTANCE, CONSOLIDATION_WINDOW, keyWords, type ConsolidationResult } from './consolidation.js';
export {
  SkillStore,
  SKILL_PROMOTED_TAG,
  DREAM_SKILL_TAG,
  AGENT_DISTILLED_TAG,
  SKILL_PROMOTE_MAX_EPISODES,
  SKILL_TITLE_CHARS,
  skillSourceTag,
  skillFooter,
  type SkillPromotion,
} from './skills.js';
export {
  CounterfactualStore,
  COUNTERFACTUAL_PREFIX,
  COUNTERFACTUAL_ANCHOR_MAX,
  COUNTERFACTUAL_TEXT_MAX,
  COUNTERFACTUAL_LIST_MAX,
  type Counterfactual,
} from './counterfactuals.js';
export { scrubSecrets, scrubLabelled, redactionMarker, SECRET_KINDS, type SecretKind, type ScrubResult } from './secrets.js';
export {
  WriteGate,
  WRITE_GATE_FILE,
  WRITE_GATE_BOOST_CAP,
  WRITE_GATE_RULE_FIELDS,
  parseWriteGateRules,
  matchWriteGate,
  type WriteGateRule,
  type WriteGateError,
  type WriteGateRuleset,
  type WriteGateMatch,
} from './write-gate.js';
export {
  TypedSchemas,
  BUILTIN_TYPED_SCHEMAS,
  TYPED_SCHEMA_DIR,
  TYPED_FIELD_TYPES,
  TYPED_NAME_PATTERN,
  typedFieldsText,
  type TypedSchema,
  type TypedField,
  type TypedFieldType,
  type TypedSchemaWarning,
  type TypedSave,
} from './typed-schemas.js';
export {
  WatchRuleStore,
  WATCH_TRIGGERS,
  WATCH_ACTIONS,
  WATCH_PREDICATE_KEYS,
  WATCH_RULE_PREFIX,
  WATCH_HITS_WINDOW_MS,
  checkWatchPredicate,
  watchPredicateMatches,
  watchTag,
  type WatchRule,
  type WatchEvent,
  type WatchFired,
  type WatchPredicate,
  type WatchTrigger,
  type WatchAction,
} from './watch-rules.js';
export { Rememberer, REMEMBER_DEDUP_TTL_MS, REMEMBER_DEFAULT_IMPORTANCE, REMEMBER_KEY_MAX, type RememberResult, type ImportanceGate } from './remember.js';
export {
  DailyBrief,
  BRIEF_WINDOW_MS,
  isTodoFact,
  suggest,
  type DailyBriefResult,
  type BriefPending,
  type BriefRecent,
  type BriefSuggestion,
  type BriefSectionError,
} from './daily-brief.js';
export { VersionLog, FACT_VERSION_PREFIX, WIKI_VERSION_PREFIX, type FactVersion, type WikiVersion, type VersionOp } from './versions.js';
export {
  BranchStore,
  BRANCH_MAX,
  type BranchInfo,
  type BranchDiff,
  type BranchMerge,
  type BranchAdded,
  type BranchChanged,
  type BranchRemoved,
  type BranchEntry,
} from './branches.js';
export { StashStore, STASH_MAX, STASH_NOTE_MAX, type Stash, type StashInfo } from './stashes.js';
export {
  ProcedureStore,
  PROCEDURE_STEPS_MAX,
  PROCEDURE_TEXT_MAX,
  PROCEDURE_NOTE_MAX,
  PROCEDURE_OUTCOMES,
  type Procedure,
  type ProcedureInfo,
  type ProcedureOutcome,
  type ProcedureSaveInput,
} from './procedures.js';
export { recordName, RECORD_NAME_MAX, RECORD_NAME_ACCEPTED } from './record-name.js';
export { lookupForms } from './identity-forms.js';
export {
  ProposalStore,
  PROPOSAL_PREFIX,
  PROPOSAL_KINDS,
  PROPOSAL_STATUSES,
  PROPOSAL_DEFAULT_WIKI_TYPE,
  PROPOSAL_DEFAULT_IMPORTANCE,
  type Proposal,
  type ProposalKind,
  type ProposalStatus,
  type ProposalInput,
  type ProposalPayload,
  type ProposalApplied,
} from './proposals.js';
export { TransitionStore, TRANSITION_PREFIX, type MemoryTransition } from './transitions.js';
export {
  DisclosureStore,
  DISCLOSURE_PREFIX,
  DISCLOSURE_MATCH_SCORE,
  DISCLOSURE_NAME_MAX,
  DISCLOSURE_KEYWORDS_MAX,
  DISCLOSURE_KEYWORD_MAX,
  DISCLOSURE_CONTENT_MAX,
  DISCLOSURE_RULES_MAX,
  type DisclosureRule,
} from './disclosure.js';
export { dayDigest, DAY_DIGEST_NEWEST, type DayDigest, type DayDigestItem, type DayDigestKind } from './day-digest.js';
export { LucidityPurge, PURGE_HOURS_MAX, purgeRecordsSince, type PurgeResult, type RecordsPurged } from './lucidity-purge.js';
export {
  Cleanup,
  CLEANUP_TASKS,
  CLEANUP_LIST_MAX,
  AUDIT_RETENTION_DAYS_DEFAULT,
  AUDIT_RETENTION_DAYS_MAX,
  BACKUPS_KEEP_DEFAULT,
  BACKUPS_KEEP_MAX,
  BACKUPS_DIR,
  episodeKey,
  type CleanupTask,
  type CleanupOptions,
  type CleanupResult,
  type DedupCoreResult,
  type CompressEpisodesResult,
  type DreamBufferResult,
  type AuditTrimResult,
  type BackupsResult,
  type CompactionResult,
} from './cleanup.js';
export { RecordCounter, RECORD_KINDS, RECORD_KIND_TABLES, countSql, type RecordCount, type RecordCounts, type RecordKind } from './record-counts.js';
export { Replica, REPLICA_FILE, REPLICA_FRESH_SECONDS, REPLICA_COUNTED_TABLES, type ReplicaSync, type ReplicaStatus } from './replica.js';
export {
  ScopeData,
  EXPORTS_DIR,
  EXPORT_INLINE_MAX_BYTES,
  EXPORT_FILE_MAX_BYTES,
  IMPORT_MODES,
  type ImportMode,
  type ImportResult,
  type KindCounts,
} from './scope-data.js';
export {
  SCOPE_DOC_FORMAT,
  SCOPE_DOC_VERSION,
  SCOPE_DOC_VERSIONS,
  SCOPE_DOC_KINDS,
  SCOPE_DOC_MAX_RECORDS,
  checkScopeDocument,
  type ScopeDocument,
  type ScopeDocKind,
} from './scope-doc.js';
export { SCOPE_DOC_EXTRA_KINDS, type ScopeDocExtraKind, type ScopeDocExtras } from './scope-doc-extra.js';
export {
  StandingStore,
  STANDING_NAME_MAX,
  STANDING_NAME_PATTERN,
  STANDING_NAME_ACCEPTED,
  STANDING_FILTER_KEYS,
  STANDING_SPEC_KEYS,
  STANDING_DESCRIPTION_MAX,
  STANDING_MAX,
  STANDING_SPEC_JSON_MAX,
  checkStandingName,
  checkStandingSpec,
  isLegacyStandingName,
  renamedStandingName,
  standingSpecJson,
  type StandingRename,
  type StandingQuery,
  type StandingFilters,
  type StandingRun,
} from './standing.js';
export {
  QualityStore,
  FEEDBACK_STEP,
  FEEDBACK_REASON,
  FEEDBACK_USEFUL,
  FEEDBACK_NOT_USEFUL,
  QUALITY_REPORT_MAX,
  QUALITY_REPORT_DEFAULT,
  type FeedbackResult,
  type QualityEntry,
} from './quality.js';
export {
  ReflectionStore,
  REFLECTION_PREFIX,
  REFLECT_HOURS_DEFAULT,
  REFLECT_TOPIC_MAX,
  REFLECT_LIST_DEFAULT,
  REFLECT_LIST_MAX,
  recurringTerms,
  type Reflection,
  type ReflectionCounts,
} from './reflections.js';
export {
  RecallCache,
  SEARCH_STRATEGIES,
  SEARCH_SOURCES,
  SEARCH_MAX_LIMIT,
  SEARCH_DEFAULT_LIMIT,
  KEYWORD_WEIGHTS,
  RECALL_CACHE_TTL_MS,
  RECALL_CACHE_MAX,
  RECALL_SOURCES,
  RECALL_MAX_LIMIT,
  RECALL_DEFAULT_LIMIT,
  strategyOptions,
  type SearchStrategy,
  type RecallAnswer,
} from './memory-search.js';
