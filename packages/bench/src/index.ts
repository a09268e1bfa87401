/** The measurement core of the benchmark and the LoCoMo evaluation, for reuse and tests. */
export { percentile, mean, summarize, type LatencySummary } from './stats.js';
export { Prng } from './prng.js';
export { TextGenerator, sentence, query } from './textgen.js';
export { tokenize, Bm25Index, DEFAULT_BM25, type Bm25Hit, type Bm25Options } from './bm25.js';
export { parseConversation, cleanEvidence, turnText, CATEGORY_NAMES, type LocomoConversation, type LocomoTurn, type LocomoQuestion } from './locomo.js';
export { TurnMap, rankTurns, recallAt, scoreQuestion, summarizeRecall, summarizeByCategory, RECALL_KS } from './recall.js';
export { renderLatencyChart, type ChartSeries } from './report-svg.js';
export { renderBenchmarksPage, renderResultTables, chartSeries } from './report-markdown.js';
export { checkTargets, speedRatio, type TargetCheck } from './targets.js';
export type { BenchResult, ServerRun, InProcessRun, MachineInfo } from './bench-types.js';
